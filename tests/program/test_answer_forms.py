"""FinancialQA with answer forms on: each form's path, end to end, with an LM answering by rule."""

import dspy
import pytest

from filingqa.program.financial_qa import FinancialQA
from filingqa.program.reasoning_loop import CHOICE_NOTE, DECIDE_NOTE

from ..kit.lm import FakeEngine, Rule, marker_lm
from ..kit.passages import CASH_FLOW, MDNA, PENSIONS
from ..kit.replies import AMBIGUITY, DECIDE, FORM, ITEMS, NO_AMBIGUITY, QUOTE, STATE, WRITE, fenced


def run(rules: list[Rule], question: str, passages, forms: str = "decide"):
    lm = marker_lm([(AMBIGUITY, NO_AMBIGUITY), *rules])
    with dspy.context(lm=lm, adapter=dspy.JSONAdapter()):
        prediction = FinancialQA(answer_forms=forms)(question=question, passages=passages)
    engine: FakeEngine = lm.engine
    return prediction.final, engine


def test_off_keeps_the_keyword_rule_and_asks_no_form() -> None:
    final, engine = run(
        [(WRITE, fenced("result = 812.4"))],
        "What was operating cash flow in 2024?",
        [CASH_FLOW],
        "off",
    )
    assert final.path == "pot" and engine.count(FORM) == 0
    assert "answer form" not in [s.name for s in final.trace.steps]


def test_a_sure_guess_takes_its_path_without_asking_the_lm() -> None:
    final, engine = run(
        [(ITEMS, {"items": ["2024", "2023"]})],
        "In which years was operating cash flow reported?",
        [CASH_FLOW],
    )
    assert (final.path, final.answer, final.outcome) == ("quote", "2024; 2023", "answered")
    assert engine.count(FORM) == 0
    steps = [s.name for s in final.trace.steps]
    assert steps == ["ambiguity", "answer form", "route", "reason 1"]
    assert final.trace.steps[1].note.startswith("guess list (sure)")


def test_an_unsure_guess_is_decided_by_the_lm_over_the_evidence() -> None:
    final, engine = run(
        [(FORM, {"form": "computed"}), (WRITE, fenced("result = 812.4 - 412.6"))],
        "What was net cash after purchases of property and equipment in 2024?",
        [CASH_FLOW, MDNA],
    )
    assert final.path == "pot" and final.value == pytest.approx(399.8)
    (decision,) = [s for s in final.trace.steps if s.name == "answer form" and s.lm_calls]
    assert decision.note == "decided computed over the evidence (first guess looked_up)"
    (form_request,) = [p for p in engine.prompts if FORM in p]
    assert "[[ ## first_guess ## ]]\nlooked_up" in form_request


@pytest.mark.parametrize("forms", ["decide", "guess"])
def test_a_metric_no_table_row_states_is_computed_without_asking_the_lm(forms: str) -> None:
    final, engine = run(
        [(FORM, {"form": "span"}), (WRITE, fenced("result = 812.4 - 412.6"))],
        "What was free cash flow in 2024?",
        [CASH_FLOW, MDNA],
        forms,
    )
    assert final.path == "pot" and final.value == pytest.approx(399.8)
    assert engine.count(FORM) == 0
    notes = [s.note for s in final.trace.steps if s.name == "answer form"]
    assert notes[-1] == "computed: no table row states Free cash flow"


def test_a_metric_a_table_row_states_is_still_decided_by_the_lm() -> None:
    stated = CASH_FLOW.model_copy(
        update={"text": CASH_FLOW.text + "\n| Free cash flow | 399.8 | 346.9 |"}
    )
    final, engine = run(
        [(FORM, {"form": "looked_up"}), (QUOTE, {"quote": "399.8"})],
        "What was free cash flow in 2024?",
        [stated],
    )
    assert (final.path, final.answer) == ("quote", "399.8 million")
    assert engine.count(FORM) == 1


def test_guess_alone_follows_the_wording_even_when_unsure() -> None:
    final, engine = run(
        [(QUOTE, {"quote": "812.4"})],
        "What was operating cash flow in 2024?",
        [CASH_FLOW],
        "guess",
    )
    assert (final.path, final.answer) == ("quote", "812.4 million")  # the table's scale
    assert engine.count(FORM) == 0


def test_a_quoted_amount_is_stated_positively_in_the_unit_the_question_asks() -> None:
    final, _ = run(
        [(QUOTE, {"quote": "(412.6)"})],
        "What was the purchase of property and equipment in 2024 (in USD billions)?",
        [CASH_FLOW],
        "guess",
    )
    assert (final.path, final.answer) == ("quote", "0.413 billion")


def test_listed_figures_each_take_the_scale_their_passage_states() -> None:
    final, _ = run(
        [(ITEMS, {"items": ["812.4", "701.9", "2024"]})],
        "What was operating cash flow in 2024 and 2023 respectively?",
        [CASH_FLOW, MDNA],
    )
    assert final.answer == "812.4 million; 701.9 million; 2024"  # a year takes no scale


def test_a_question_asking_which_one_wins_has_the_program_name_it() -> None:
    final, engine = run(
        [(WRITE, fenced("result = '2018' if 178 > 166 else '2019'"))],
        "In which year were defined contribution schemes higher?",
        [PENSIONS],
    )
    assert final.answer == "2018"
    (request,) = [p for p in engine.prompts if WRITE in p]
    assert CHOICE_NOTE in request


def test_a_question_asking_a_direction_gets_it_stated_with_the_figure() -> None:
    final, engine = run(
        [
            (WRITE, fenced("result = 812.4 - 701.9")),
            (STATE, {"answer": "Operating cash flow increased by 110.5, from 701.9 to 812.4."}),
        ],
        "Did operating cash flow increase or decrease in 2024?",
        [CASH_FLOW],
    )
    assert final.answer == "Operating cash flow increased by 110.5, from 701.9 to 812.4."
    assert final.value == pytest.approx(110.5)
    (statement,) = [p for p in engine.prompts if STATE in p]
    assert "110.5" in statement and "result = 812.4 - 701.9" in statement


def test_a_yes_no_question_naming_a_computation_is_decided_by_the_computed_figure() -> None:
    decided = {"deciding": "1.97", "decision": "yes", "reason": "The ratio is 1.97, above 1."}
    final, engine = run(
        [(WRITE, fenced("result = 812.4 / 412.6")), (DECIDE, decided)],
        "Is the ratio of operating cash flow to capex above 1 in 2024?",
        [CASH_FLOW],
    )
    assert final.path == "decide"
    assert final.answer == "Yes. The ratio is 1.97, above 1."
    assert final.working == "result = 812.4 / 412.6"
    (request,) = [p for p in engine.prompts if DECIDE in p]
    assert "1.96898" in request  # the computed figure reaches the decision
    assert [c.page for c in final.citations] == [4]


def test_a_yes_no_questions_program_is_asked_for_the_deciding_comparison() -> None:
    decided = {"deciding": "812.4", "decision": "yes", "reason": "It rose to 812.4."}
    final, engine = run(
        [(WRITE, fenced("result = 812.4 / 450.0 > 812.4 / 412.6")), (DECIDE, decided)],
        "Did the ratio of operating cash flow to capex rise in 2024?",
        [CASH_FLOW],
    )
    assert (final.path, final.value) == ("decide", False)
    assert final.answer.startswith("No.")  # the computed comparison, not the LM's yes
    (request,) = [p for p in engine.prompts if WRITE in p]
    assert DECIDE_NOTE in request


def test_a_value_questions_program_is_not_asked_for_a_comparison() -> None:
    _, engine = run(
        [(WRITE, fenced("result = 812.4 / 412.6"))],
        "What is the ratio of operating cash flow to capex in 2024?",
        [CASH_FLOW],
    )
    (request,) = [p for p in engine.prompts if WRITE in p]
    assert DECIDE_NOTE not in request
