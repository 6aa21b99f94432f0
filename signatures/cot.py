"""Chain of thought for textual answers (no arithmetic to run)."""

from __future__ import annotations

import dspy


class AnswerFromEvidence(dspy.Signature):
    """Answer a question about a filing from the evidence in a sentence or two, using the
    filing's own figures and words. Say "not stated in the evidence" if it is not there.
    """

    question: str = dspy.InputField()
    evidence: str = dspy.InputField(desc="passages from the filing")
    reasoning: str = dspy.OutputField(desc="which passage answers it and how, briefly")
    answer: str = dspy.OutputField(desc="the answer, short")
