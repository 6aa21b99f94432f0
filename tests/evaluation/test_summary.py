"""Where a setting's seconds went: the steps of its rows, per question."""

from __future__ import annotations

import pytest

from filingqa.evaluation.summary import format_step_costs, step_costs, step_kind, summarize
from filingqa.lm.trace import Step

from ..kit.data import judged_row


def step(name: str, seconds: float, calls: int = 1, evaluated: int = 0, generated: int = 0):
    return Step(
        name=name,
        seconds=seconds,
        lm_calls=calls,
        prompt_tokens_evaluated=evaluated,
        generated_tokens=generated,
    )


ROWS = [
    judged_row(
        id="a",
        steps=[
            step("retrieve", 20.0, 2, 700, 350),
            step("curate", 50.0, 1, 3000, 20),
            step("reason 1", 25.0, 1, 500, 80),
            step("verify 1", 3.0, 1, 100, 10),
            step("reason 2", 15.0, 1, 300, 60),
        ],
    ),
    judged_row(
        id="b",
        steps=[step("retrieve (question only)", 1.0, 0), step("reason 1", 35.0, 1, 900, 100)],
    ),
]


def test_step_kinds_drop_the_round_and_the_variant() -> None:
    assert [step_kind(n) for n in ("reason 2", "verify 10", "retrieve (question only)")] == [
        "reason",
        "verify",
        "retrieve",
    ]
    assert step_kind("complementary search") == "complementary search"


def test_step_costs_are_per_question_over_every_row_most_seconds_first() -> None:
    costs = {c.step: c for c in step_costs(ROWS)}
    assert list(costs) == ["reason", "curate", "retrieve", "verify"]
    assert costs["reason"].seconds == pytest.approx((25 + 15 + 35) / 2)
    assert costs["reason"].questions == 2 and costs["curate"].questions == 1
    assert costs["curate"].prompt_tokens_evaluated == 1500 and costs["curate"].seconds == 25
    assert costs["retrieve"].lm_calls == 1 and costs["retrieve"].generated_tokens == 175


def test_the_summary_carries_the_step_costs_and_they_print_per_setting() -> None:
    summary = summarize(ROWS)
    assert [c.step for c in summary.steps] == ["reason", "curate", "retrieve", "verify"]
    printed = format_step_costs({"program@retrieved": summary}).splitlines()
    assert printed[0].startswith("program@retrieved: where the seconds went, per question")
    assert printed[1].split() == ["step", "questions", "s/q", "calls/q", "evaluated/q", "gen/q"]
    assert printed[2].split() == ["reason", "2", "37.5", "1.50", "850", "120"]
    assert format_step_costs({"pot": summarize([judged_row()])}) == ""
