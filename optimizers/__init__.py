"""Compile-time pieces: the DSPy metric and (later) optimizers, router and reranker training."""
