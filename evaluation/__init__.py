"""Evaluation: run a setting (direct, PoT, the program, ...) over a dataset split, judge
every answer strictly, and report accuracy with LM calls, tokens and latency."""
