"""Ingestion: a filing (PDF, HTML, plain text) or a QA record's context read into passages
that keep their page, table and 10-K Item; the cover page and the document metadata
(company, form, fiscal period) a build records beside the index."""
