"""Multi-turn: a follow-up question rewritten so it stands on its own."""

from __future__ import annotations

import dspy


class MakeStandalone(dspy.Signature):
    """Rewrite the follow-up question so it can be answered without the conversation.

    Replace references ("that", "the year before", "what about 2019?") with what they refer
    to, and put earlier answers in as numbers where the question uses them. A question that
    already stands alone is returned unchanged.
    """

    conversation: list[str] = dspy.InputField(desc="earlier turns, 'Q: ... A: ...'")
    question: str = dspy.InputField(desc="the follow-up question")
    standalone_question: str = dspy.OutputField()
