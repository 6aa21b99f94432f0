import json

import dspy

from filingqa.checks.answer_checks import automatic_checks
from filingqa.program.verification import Verifier

from ..kit.passages import passage

TABLE = passage("D:p4:tab1", "| OCF | 812.4 |\n| Capex | (412.6) |")


def test_clean_program_passes_the_checks() -> None:
    report = automatic_checks("result = 812.4 - 412.6", 399.8, [TABLE])
    assert report.problems == []
    assert report.render() == "all automatic checks passed"


def test_invented_inputs_and_a_different_value_are_problems() -> None:
    report = automatic_checks("result = 812.4 - 500.0", 399.8, [TABLE])
    assert report.untraced == [500.0]
    assert any("not 399.8" in p for p in report.problems)
    assert any("numbers not found in the evidence: 500" in p for p in report.problems)


def test_failing_program_is_a_problem() -> None:
    report = automatic_checks("result = undefined_name", None, [TABLE])
    assert "fails when run again" in report.problems[0]


def test_failed_checks_reject_even_when_the_lm_accepts(scripted_lm) -> None:
    lm = scripted_lm([json.dumps({"reasons": ["fine"], "missing": "", "verdict": "ACCEPT"})])
    with dspy.context(lm=lm, adapter=dspy.JSONAdapter()):
        verdict = Verifier()(
            question="FCF?",
            evidence=TABLE.text,
            answer="312.4",
            program="result = 812.4 - 500.0",
            value=312.4,
            passages=[TABLE],
        )
    assert verdict.verdict == "REJECT"
    assert verdict.reasons[-1] == "fine"
    assert "numbers not found in the evidence: 500" in lm.engine.prompts[0]


def test_lm_verdict_stands_when_checks_pass(scripted_lm) -> None:
    lm = scripted_lm([json.dumps({"reasons": [], "missing": "", "verdict": "ACCEPT"})])
    with dspy.context(lm=lm, adapter=dspy.JSONAdapter()):
        verdict = Verifier()(
            question="FCF?",
            evidence=TABLE.text,
            answer="399.8",
            program="result = 812.4 - 412.6",
            value=399.8,
            passages=[TABLE],
        )
    assert verdict.verdict == "ACCEPT"
