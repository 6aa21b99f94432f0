"""`filingqa compile`: data draws, optimizer presets and budget, router labels, reranker
training, and the paired selection of what a compiled artifact keeps."""
