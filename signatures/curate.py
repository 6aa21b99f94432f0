"""Curate: keep the passages that answer the question; say what is still missing."""

from __future__ import annotations

import dspy


class CurateEvidence(dspy.Signature):
    """Choose the retrieved passages needed to answer the question and judge whether they
    suffice. If something is missing, write one search query for the missing part only.
    """

    question: str = dspy.InputField()
    passages: str = dspy.InputField(desc="retrieved passages, each under a numbered header")
    keep: list[int] = dspy.OutputField(desc="numbers of the passages to keep")
    answerable: bool = dspy.OutputField(desc="true if the kept passages answer the question")
    missing: str = dspy.OutputField(desc="what is still needed, or empty")
    complementary_query: str = dspy.OutputField(desc="a query for the missing part, or empty")
