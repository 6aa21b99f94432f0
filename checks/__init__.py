"""Deterministic answer checks: question input, screening of evidence, sign, cell and formula
notes, citations, refusals and unsupported numbers, with no LM call."""
