"""Retrieval: filings in, cited passages out.

Ingestion turns filings into :class:`Passage` objects that keep their page, table and
10-K Item; document metadata (company, period, fiscal calendar) drives the filters; the
index and the search pipeline rank passages for the program.
"""

from filingqa.retrieval.documents import DocType, Document, Passage, PassageKind

__all__ = ["DocType", "Document", "Passage", "PassageKind"]
