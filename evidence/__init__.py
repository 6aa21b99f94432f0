"""Evidence: the passages one question reads, as the LM reads them.

Rendered under plain page headers and fitted to the evidence budget (:mod:`.render`),
gathered across the reasoning loop's rounds in a bounded buffer (:mod:`.buffer`), or taken
from a plain-text filing (:mod:`.plain_filing`), the most relevant chosen when they do not
all fit (:mod:`.selection`); statement figures become labelled rows
(:mod:`.statement_rows`). Retrieval finds passages; this room shapes what the model and the
checks see of them.
"""
