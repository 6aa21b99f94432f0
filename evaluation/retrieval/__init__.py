"""Retrieval quality without an LM: each search pipeline stage on a split, scored against
the dataset's gold pages or facts (:mod:`.gold`), with latency at scale over a synthetic
corpus (:mod:`.scale_latency`)."""
