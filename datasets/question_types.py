"""The question type an eval breaks accuracy down by, from each dataset's own labels:
FinanceBench's ``question_type`` (metrics-generated, domain-relevant, novel-generated),
TAT-QA's ``answer_from`` (table, text, table-text), LOFin's subset, ConvFinQA's
conversation kind, and for FinQA the number of steps in the gold program."""

from __future__ import annotations

from filingqa.datasets import convfinqa, financebench, finqa, lofin, tatqa
from filingqa.records import QARecord

LABEL_KEYS = {
    financebench.NAME: "question_type",
    tatqa.NAME: "answer_from",
    lofin.NAME: "subset",
    convfinqa.NAME: "kind",
}
"""The ``meta`` key holding each dataset's question-type label."""


def question_type(record: QARecord) -> str:
    """The record's question type ("" when its dataset labels none)."""
    if record.dataset == finqa.NAME:
        return _program_steps(record.gold_program)
    key = LABEL_KEYS.get(record.dataset)
    return str(record.meta.get(key) or "") if key else ""


def _program_steps(program: str | None) -> str:
    """``"1 step"``, ``"2 steps"`` ... of a FinQA program (``"subtract(a, b), divide(#0, b)"``)."""
    if not program:
        return ""
    steps = program.count("),") + 1
    return "1 step" if steps == 1 else f"{steps} steps"
