"""The executor check's cause assignment."""

from __future__ import annotations

import pytest

from filingqa.datasets.convfinqa import turn_program_to_python
from filingqa.datasets.finqa import finqa_program_to_python
from filingqa.evaluation.robustness.executor_check import (
    Check,
    assign_cause,
    check_convfinqa,
    execute,
    missed_by,
)
from filingqa.metrics.judge import StrictJudge
from filingqa.records import QARecord


@pytest.mark.parametrize(
    ("gold", "got", "score", "official", "cause"),
    [
        ("127.4", 127.4, 1.0, True, None),
        ("16", 15.67, 1.0, False, "rounding"),
        ("-43", 43.0, 0.0, False, "gold annotation inconsistency: sign"),
        ("0.08", 8.3275, 1.0, False, "percent-vs-fraction"),
        ("92437", 92.437, 0.0, False, "scale"),
        ("12", 20.0, 0.0, False, "gold annotation inconsistency: the program"),
        ("yes", False, 0.0, False, "gold annotation inconsistency: yes/no"),
    ],
)
def test_assign_cause(
    gold: str,
    got: float | bool,
    score: float,
    official: bool,
    cause: str | None,
) -> None:
    check = Check("tatqa", "x", "q", "p", gold, got=got, score=score)
    check.official = official
    assigned = assign_cause(check)
    assert assigned == cause if cause is None else assigned.startswith(cause)


def test_translation_failure_keeps_its_cause() -> None:
    check = Check("finqa", "x", "q", "modulo(1, 2)", "1")
    assert not execute(check, lambda: finqa_program_to_python(check.program, []))
    assert assign_cause(check).startswith("translation error: unknown FinQA op")
    assert missed_by(check) == "both"


@pytest.mark.parametrize(
    ("program", "answer", "value", "agrees"),
    [
        ("ans = 15 - 19", "-4", -4.0, True),
        ("ans = 13.4% * 2", "0.268", 0.268, True),
        ("ans = 15 + 19", "-4", -4.0, False),
    ],
)
def test_convfinqa_turn_programs_are_run_and_judged(
    program: str, answer: str, value: float, agrees: bool
) -> None:
    record = QARecord(
        id="conv/turn0",
        dataset="convfinqa",
        split="dev",
        question="what was the change?",
        answer=answer,
        answer_value=value,
        answer_type="number",
        gold_program=program,
    )
    check = check_convfinqa(record, StrictJudge(lm=None))
    assert check.code == turn_program_to_python(program)
    assert (check.score == 1.0 and check.official) is agrees
