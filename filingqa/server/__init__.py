"""``filingqa serve``: an HTTP API and a web page over one index.

An analyst asks a question (:mod:`.app`), watches the program's steps arrive, and checks
the answer on the cited page rendered with the passage highlighted (:mod:`.pages`). One
local model answers one question at a time behind a bounded queue (:mod:`.answer_queue`);
uploads are ingested beside the answering, a filing becoming searchable only once it is
whole (:mod:`.library`). Locked down by default (:mod:`.security`).
"""
