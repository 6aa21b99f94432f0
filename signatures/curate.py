"""Curate: keep the passages that answer the question; say what is still missing."""

from __future__ import annotations

import dspy


class CurateEvidence(dspy.Signature):
    """Choose the passages of the evidence needed to answer the question, by their numbers
    in the passage list, and judge whether they suffice. If something is missing, write one
    search query for the missing part only.
    """

    evidence: str = dspy.InputField(desc="the retrieved passages, in order")
    question: str = dspy.InputField()
    passage_list: str = dspy.InputField(
        desc="the evidence's passages in order, numbered: page, kind and opening words"
    )
    keep: list[int] = dspy.OutputField(desc="numbers of the passages to keep")
    answerable: bool = dspy.OutputField(desc="true if the kept passages answer the question")
    missing: str = dspy.OutputField(desc="what is still needed, or empty")
    complementary_query: str = dspy.OutputField(desc="a query for the missing part, or empty")
