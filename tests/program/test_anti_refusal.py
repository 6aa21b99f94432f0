import json

import dspy

from filingqa.program.anti_refusal import AntiRefusal

EVIDENCE = "Net revenue was $4,186.3 million in fiscal 2024 and $3,902.7 million in 2023."


def review(scripted_lm, reply: dict, draft: str):
    lm = scripted_lm([json.dumps(reply)])
    with dspy.context(lm=lm, adapter=dspy.JSONAdapter()):
        return AntiRefusal()("What was revenue?", EVIDENCE, draft), lm


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
