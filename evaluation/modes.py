"""The settings ``filingqa eval`` compares, each a function from a record to an answer.

Gold-context settings read the record's own context; ``program`` runs the whole
FinancialQA over it. Every setting answers with the same LM (``dspy.settings.lm``).
"""

from __future__ import annotations

from collections.abc import Callable

import dspy
from pydantic import BaseModel

from filingqa.datasets import QARecord
from filingqa.evaluation.gold_context import gold_passages
from filingqa.program.financial_qa import FinancialQA
from filingqa.program.lm import adapter_for
from filingqa.program.passages import render
from filingqa.program.pot import ProgramOfThought
from filingqa.signatures.cot import AnswerFromEvidence
from filingqa.signatures.direct import AnswerDirectly


class ModeAnswer(BaseModel):
    """What one setting answered for one record."""

    answer: str
    outcome: str = "answered"
    working: str = ""
    note: str = ""


Mode = Callable[[QARecord], ModeAnswer]


def direct(record: QARecord) -> ModeAnswer:
    """The LM answers from the gold context in one call (no program)."""
    with dspy.context(adapter=adapter_for(dspy.settings.lm)):
        out = dspy.Predict(AnswerDirectly)(question=record.question, evidence=_evidence(record))
    return ModeAnswer(answer=out.answer)


def cot(record: QARecord) -> ModeAnswer:
    """The LM reasons, then answers, from the gold context in one call."""
    with dspy.context(adapter=adapter_for(dspy.settings.lm)):
        out = dspy.Predict(AnswerFromEvidence)(question=record.question, evidence=_evidence(record))
    return ModeAnswer(answer=out.answer, working=out.reasoning)


def pot(record: QARecord) -> ModeAnswer:
    """Bare Program-of-Thought over the gold context: one greedy program, ≤ 2 repairs."""
    out = ProgramOfThought()(question=record.question, evidence=_evidence(record))
    error = out.execution.error
    return ModeAnswer(
        answer=out.answer,
        outcome="answered" if error is None else "error",
        working=out.program,
        note=f"{error.kind}: {error.message}" if error else "",
    )


def program(record: QARecord, qa: FinancialQA | None = None) -> ModeAnswer:
    """The full FinancialQA program over the gold context."""
    qa = qa or FinancialQA()
    with dspy.context(adapter=adapter_for(dspy.settings.lm)):
        final = qa(question=record.question, passages=gold_passages(record)).final
    return ModeAnswer(
        answer=final.answer, outcome=final.outcome, working=final.working, note=final.reason
    )


GOLD_CONTEXT_MODES: dict[str, Mode] = {"direct": direct, "cot": cot, "pot": pot, "program": program}


def _evidence(record: QARecord) -> str:
    return render(gold_passages(record))
