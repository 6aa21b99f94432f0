"""Retrieval: filings in, cited passages out, in four rooms, one per stage (top first).

- :mod:`~filingqa.retrieval.search`: the search pipeline the program calls (scope, hybrid
  search, documents, the learned reranker, pages);
- :mod:`~filingqa.retrieval.index`: the passage index over its point stores (embedded or a
  Qdrant server), its embeddings, BM25 vectors and index-time signals, and the resumable
  build of a corpus into it;
- :mod:`~filingqa.retrieval.ingest`: filings (PDF, HTML, text) read into passages that keep
  their page, table and 10-K Item, with the metadata (company, period) a build records;
- :mod:`~filingqa.retrieval.vocabulary`: what filings' words mean: fiscal calendars and
  period expressions, company names, the finance lexicon.

The passages and documents themselves are shared records (:mod:`filingqa.records`).
"""
