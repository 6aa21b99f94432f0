import json

import dspy
import pytest

from filingqa.checks.unsupported_numbers import unsupported_numbers
from filingqa.program.anti_refusal import AntiRefusal
from filingqa.records.refusal import is_refusal

EVIDENCE = "Net revenue was $4,186.3 million in fiscal 2024 and $3,902.7 million in 2023."


@pytest.mark.parametrize(
    "text",
    [
        "",
        "Cannot determine from the provided evidence.",
        "The capex figure is not provided.",
        "Insufficient information to answer.",
        "I am unable to find it.",
    ],
)
def test_refusals_are_recognised(text: str) -> None:
    assert is_refusal(text)


@pytest.mark.parametrize("text", ["4,186.3 million", "Yes, revenue grew 7.3%."])
def test_answers_are_not_refusals(text: str) -> None:
    assert not is_refusal(text)


def test_numbers_must_come_from_evidence_or_computation() -> None:
    assert unsupported_numbers("Revenue was $4,186.3 million in 2024.", EVIDENCE) == []
    assert unsupported_numbers("Growth was 7.27%.", EVIDENCE, computed=[7.2668]) == []
    assert unsupported_numbers("Revenue was $5,000 million.", EVIDENCE) == [5000.0]


def review(scripted_lm, reply: dict, draft: str):
    lm = scripted_lm([json.dumps(reply)])
    with dspy.context(lm=lm, adapter=dspy.JSONAdapter()):
        return AntiRefusal()("What was revenue?", EVIDENCE, draft), lm


def test_a_small_computed_value_shown_to_two_decimals_counts_as_computed() -> None:
    # 0.954955 is shown as 0.95: 0.5% relative tolerance alone would call that invented
    assert unsupported_numbers("0.95", "Termination 106; total 111", computed=[0.954955]) == []
    assert unsupported_numbers("0.97", "Termination 106; total 111", computed=[0.954955]) == [0.97]


def test_a_non_refusing_draft_is_not_reviewed(scripted_lm) -> None:
    result, lm = review(scripted_lm, {"decision": "refuse", "answer": "-"}, "4,186.3 million")
    assert (result.answer, result.refused) == ("4,186.3 million", False)
    assert lm.engine.requests == []


def test_rewrite_with_evidence_numbers_is_accepted(scripted_lm) -> None:
    reply = {"decision": "answer", "answer": "Revenue was $4,186.3 million in fiscal 2024."}
    result, _ = review(scripted_lm, reply, "Not stated.")
    assert not result.refused
    assert result.answer == reply["answer"]


def test_rewrite_with_an_invented_number_is_discarded(scripted_lm) -> None:
    reply = {"decision": "answer", "answer": "Revenue was about $4.5 billion."}
    result, _ = review(scripted_lm, reply, "Not stated.")
    assert result.refused
    assert result.answer == "Not stated."
    assert "not in the evidence" in result.reason


def test_confirmed_refusal_stays_refused(scripted_lm) -> None:
    reply = {"decision": "refuse", "answer": "The filing does not give segment revenue."}
    result, _ = review(scripted_lm, reply, "Cannot determine.")
    assert result.refused
    assert result.answer == "The filing does not give segment revenue."
