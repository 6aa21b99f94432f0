"""Artifacts shipped with filingqa (the trained reranker; compiled programs)."""
