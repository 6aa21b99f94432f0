"""Compiled artifacts: the manifest format, reading an artifact into a ready program, and the
artifacts filingqa ships (the default reranker, the compiled local backbone)."""
