"""Extracted answers: words quoted from the evidence, and yes/no decided by a quoted fact."""

from __future__ import annotations

from typing import Literal

import dspy


class QuoteAnswer(dspy.Signature):
    """Answer by copying the shortest words of the evidence that answer the question: a
    figure as printed (with its $ or %), a name, a date or a phrase. Copy them exactly; do
    not explain."""

    evidence: str = dspy.InputField()
    question: str = dspy.InputField()
    rejected: str = dspy.InputField(desc="why an earlier quote was rejected, or empty")
    quote: str = dspy.OutputField(desc="words copied exactly from the evidence")


class QuoteExplanation(dspy.Signature):
    """Answer a question asking why or how by copying, word for word, the sentence or two of
    the evidence that give the reason. Copy them exactly; do not add words of your own."""

    evidence: str = dspy.InputField()
    question: str = dspy.InputField()
    rejected: str = dspy.InputField(desc="why an earlier quote was rejected, or empty")
    quote: str = dspy.OutputField(desc="sentences copied exactly from the evidence")


class QuoteItems(dspy.Signature):
    """Answer with every item the question asks for, each copied exactly from the evidence
    (a figure as printed, a name, a year), in the order the question names them, once each."""

    evidence: str = dspy.InputField()
    question: str = dspy.InputField()
    rejected: str = dspy.InputField(desc="why earlier items were rejected, or empty")
    items: list[str] = dspy.OutputField(desc="each item copied exactly from the evidence")


class DecideYesNo(dspy.Signature):
    """Decide a yes/no question from the evidence. First copy the figure or words of the
    evidence that decide it (or give the computed figure when one is given), then say yes
    or no; say "not stated" when the evidence does not decide it."""

    evidence: str = dspy.InputField()
    question: str = dspy.InputField()
    computed: str = dspy.InputField(desc="a figure computed from the evidence, or empty")
    deciding: str = dspy.OutputField(desc="the deciding figure or words, copied exactly")
    decision: Literal["yes", "no", "not stated"] = dspy.OutputField()
    reason: str = dspy.OutputField(desc="one sentence stating the deciding figure or fact")


class StateComputedAnswer(dspy.Signature):
    """State a computed result in the form the question asks for: which direction (with the
    figures) for "improved or declined?", the name of the winner for "which …?". Use only the
    figures given; one short sentence."""

    question: str = dspy.InputField()
    working: str = dspy.InputField(desc="the program that computed the result")
    result: str = dspy.InputField(desc="what the program computed")
    answer: str = dspy.OutputField()
