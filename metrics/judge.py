"""The strict judge: deterministic stages first (numeric, pre-check, polarity, direction, span),
an LLM (or exact match) for what they leave."""

from __future__ import annotations

import re
from decimal import Decimal

import dspy

from filingqa.core.numbers import asked_scale
from filingqa.lm.backbone import adapter_for
from filingqa.metrics.category import resolve_category
from filingqa.metrics.exact import exact_verdict
from filingqa.metrics.judge_signature import JudgeAnswer
from filingqa.metrics.numeric import numeric_verdict, sentence_figure_verdict
from filingqa.metrics.precheck import precheck
from filingqa.metrics.short_answer import short_answer_verdict
from filingqa.metrics.verdict import Verdict
from filingqa.records.refusal import says_not_indexed

__all__ = ["StrictJudge", "Verdict"]

# A verdict is a sentence or two and a score; without a cap a small judge can repeat its
# reason until the token limit, and the reply then lacks the score.
VERDICT_TOKENS = 256
_MISMATCH = re.compile(
    r"\b(does|do) not match\b|\bdoesn't match\b|\b(is|are) (incorrect|wrong|not correct)\b"
    r"|\binconsistent with\b|\bcontradicts\b|\b(is|are) different from\b",
    re.IGNORECASE,
)


def as_text(value: object) -> str:
    """An answer as text: strings unchanged, None empty, floats positional (``0.00001``)."""
    if value is None:
        return ""
    if isinstance(value, float):
        return format(Decimal(repr(value)), "f")
    return value if isinstance(value, str) else str(value)


def _gold_for_llm(gold: str, scale: str | None, unit: str | None) -> str:
    """The gold with the record's scale and unit spelled out, so the LLM reads it as stated."""
    labels = [f"{name}: {label}" for name, label in (("scale", scale), ("unit", unit)) if label]
    return f"{gold} ({'; '.join(labels)})" if labels else gold


class StrictJudge:
    """Scores a predicted answer against the gold: 1, 0.5 or 0, with the reason and stage.

    The numeric stage decides number-like golds, and a bare figure asked for against a gold
    sentence stating one figure; the pre-check
    (:func:`~filingqa.metrics.precheck.precheck`) zeroes plainly wrong answers (empty,
    refusing, the opposite yes/no, a figure the gold lacks); the short-answer stage
    (:func:`~filingqa.metrics.short_answer.short_answer_verdict`) decides yes/no,
    directions, names and spans it can read word by word; ``lm`` grades the rest, held to
    its own reason; with ``lm=None`` those fall back to a normalized exact/contains match
    (stage ``"exact"``). A verdict's ``stage`` names the stage that decided it.
    """

    def __init__(self, lm: dspy.BaseLM | None = None) -> None:
        self.lm = lm
        self._grade = dspy.Predict(JudgeAnswer, max_tokens=VERDICT_TOKENS)

    def judge(
        self,
        question: str,
        gold: str | float,
        prediction: str | float | None,
        *,
        answer_type: str | None = None,
        scale: str | None = None,
        unit: str | None = None,
    ) -> Verdict:
        """Judge one answer. ``answer_type`` (category or dataset name) None: inferred;
        ``scale`` (the gold's) None: the one the question asks (``Answer in USD millions``),
        as the dataset loaders read it."""
        gold_text, predicted, asked = as_text(gold), as_text(prediction), as_text(question)
        if scale is None:
            scale = asked_scale(asked)
        if says_not_indexed(predicted):
            return Verdict(score=0, reason="pre-check: answered not in the index", stage="precheck")
        category = resolve_category(answer_type, gold_text)
        figure = (
            numeric_verdict(gold_text, predicted, scale=scale, unit=unit, question=asked)
            if category == "number"
            else sentence_figure_verdict(asked, gold_text, predicted, scale=scale, unit=unit)
        )
        if figure is not None:
            return figure
        plainly_wrong = precheck(gold_text, predicted, category)
        if plainly_wrong is not None:
            return plainly_wrong
        read = short_answer_verdict(asked, gold_text, predicted, category)
        if read is not None:
            return read
        if self.lm is None:
            return exact_verdict(gold_text, predicted, category, scale)
        # The judge's own adapter (DSPy's layout, whatever the program's), and kept out of
        # program traces.
        adapter = adapter_for(self.lm, evidence_first=False)
        with dspy.context(lm=self.lm, adapter=adapter, trace=None):
            graded = self._grade(
                question=asked,
                gold_answer=_gold_for_llm(gold_text, scale, unit),
                predicted_answer=predicted,
                answer_category=category,
            )
        return _held_to_its_reason(float(graded.score), graded.reason.strip())


def _held_to_its_reason(score: float, reason: str) -> Verdict:
    """The LLM's verdict, scored 0 when its own reason says the answer does not match.

    A small judge LM writes "The predicted answer '112' does not match the gold answer '…
    $411 million'" and then scores 0.5 (how often: docs/experiments.md). The reason comes
    first in the signature, so it is taken as the verdict.
    """
    if score > 0 and _MISMATCH.search(reason):
        marked = f"{reason} [scored 0: the reason says no match]"
        return Verdict(score=0, reason=marked, stage="llm")
    return Verdict(score=score, reason=reason, stage="llm")
