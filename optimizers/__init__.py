"""`filingqa compile`: data draws, optimizer presets, the optimizer registry and budget, the
compile's stages and their records, router labels, reranker training, and the paired
selection of what a compiled artifact keeps."""
