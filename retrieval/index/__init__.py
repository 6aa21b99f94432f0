"""The passage index: dense and BM25 vectors in Qdrant (embedded, or a server by URL),
fused by RRF under metadata filters, with the signals the reranker reads stored per
passage; and the resumable build that ingests a corpus of filings into it."""
