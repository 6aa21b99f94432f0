"""Answers assembled from the computation, end to end with an LM answering by rule: the yes
or no a program computed, ratios without a scale word, amounts in the unit asked, echoes and
repetition asked for again, and figures at another scale than the evidence withheld."""

import dspy
import pytest

from filingqa.program.final_answer import MISSCALED, UNUSABLE
from filingqa.program.financial_qa import FinancialQA
from filingqa.router.rule import fixed_router

from ..kit.lm import FakeEngine, Rule, marker_lm
from ..kit.passages import CASH_FLOW, MDNA, passage
from ..kit.replies import (
    ACCEPT,
    AMBIGUITY,
    COT,
    DECIDE,
    NO_AMBIGUITY,
    QUOTE,
    REVISE,
    VERIFY,
    WRITE,
    fenced,
)

ECHO = "a figure as printed (with its $ or %), a name, a date or a phrase"
INCOME = passage(
    "ACME_2024_10K:p5:tab1", "(In millions)\n| | 2024 | 2023 |\n| Net income | 11,588 | 9,877 |"
)
ABOVE_THREE = "Is the ratio of operating cash flow to capex above 3 in 2024?"


def run(rules: list[Rule], question: str, passages, **options):
    lm = marker_lm([(AMBIGUITY, NO_AMBIGUITY), *rules])
    with dspy.context(lm=lm, adapter=dspy.JSONAdapter()):
        prediction = FinancialQA(**options)(question=question, passages=passages)
    engine: FakeEngine = lm.engine
    return prediction.final, engine


def replies(*texts: object):
    """A rule's reply giving ``texts`` in turn, the last one from then on."""
    queue = list(texts)
    return lambda prompt: queue.pop(0) if len(queue) > 1 else queue[0]


@pytest.mark.parametrize(
    ("decision", "reason"),
    [("yes", "The ratio is 1.97, above 3."), ("not stated", ""), ("no", "It is below 3.")],
)
def test_the_yes_or_no_is_the_comparison_the_program_computed(decision: str, reason: str) -> None:
    decided = {"deciding": "1.97", "decision": decision, "reason": reason}
    final, _ = run(
        [(WRITE, fenced("result = 812.4 / 412.6 > 3")), (DECIDE, decided)],
        ABOVE_THREE,
        [CASH_FLOW],
        answer_forms="decide",
    )
    assert final.path == "decide" and final.value is False
    if decision == "no":  # the LM agreed: its reason stands
        assert final.answer == "No. It is below 3."
    else:
        assert final.answer == "No. Computed: 812.4 / 412.6 > 3 is False."
    assert final.outcome == "answered"


def test_a_computed_comparison_on_the_program_path_answers_yes_or_no() -> None:
    final, _ = run(
        [(WRITE, fenced("ratio = 812.4 / 412.6\nresult = ratio > 3"))], ABOVE_THREE, [CASH_FLOW]
    )
    assert (final.path, final.answer, final.value) == ("pot", "No", False)


@pytest.mark.parametrize(
    "question",
    [
        "What is the ratio of operating cash flow to purchases of property and equipment in 2024?",
        "How many dollars of operating cash flow did each dollar of purchases of property bring?",
    ],
)
def test_a_ratio_takes_no_scale_word_from_its_million_table(question: str) -> None:
    final, _ = run([(WRITE, fenced("result = round(812.4 / 412.6, 2)"))], question, [CASH_FLOW])
    assert (final.answer, final.outcome) == ("1.97", "answered")


def test_a_capex_asked_in_billions_is_stated_positively_in_billions() -> None:
    question = (
        "What is the FY2024 capital expenditure amount (in USD billions) for Acme? Respond by "
        "relying on the details shown in the cash flow statement."
    )
    final, _ = run([(WRITE, fenced("capex = -412.6\nresult = capex"))], question, [CASH_FLOW])
    assert (final.answer, final.outcome) == ("0.413 billion", "answered")
    assert final.value == pytest.approx(-412.6)  # the program's own value is kept


def test_an_echoed_field_description_is_asked_for_again() -> None:
    final, engine = run(
        [(QUOTE, replies({"quote": ECHO}, {"quote": ECHO}, {"quote": "812.4"}))],
        "What was operating cash flow in 2024?",
        [CASH_FLOW],
        answer_forms="guess",
    )
    assert (final.path, final.answer, final.outcome) == ("quote", "812.4 million", "answered")
    assert engine.count(QUOTE) == 3  # the quote's own retry, then the answer asked again
    quotes = [p for p in engine.prompts if QUOTE in p]
    assert "repeats the request's wording" in quotes[2]
    (check,) = [s for s in final.trace.steps if s.name == "answer check 1"]
    assert check.note.startswith("asked again: the answer repeats the request's wording")


def test_an_echo_given_again_is_no_answer() -> None:
    final, engine = run(
        [(QUOTE, {"quote": ECHO})],
        "What was operating cash flow in 2024?",
        [CASH_FLOW],
        answer_forms="guess",
    )
    assert (final.answer, final.outcome, final.value) == (UNUSABLE, "unverified", None)
    assert engine.count(QUOTE) == 4
    assert "no answer: the answer repeats the request's wording" in final.reason
    assert ECHO not in final.answer


def test_an_answer_repeating_itself_is_asked_for_again_told_why() -> None:
    looped = {"reasoning": "-", "answer": "Acme " * 30}
    fine = {"reasoning": "-", "answer": "Demand for analyzers."}
    final, engine = run([(COT, replies(looped, fine))], "Why did revenue grow?", [MDNA])
    assert (final.answer, final.outcome) == ("Demand for analyzers.", "answered")
    assert engine.count(COT) == 2
    assert "An earlier answer was rejected: the answer repeats 'acme'" in engine.prompts[-1]


def test_a_figure_at_another_scale_than_the_evidence_is_withheld() -> None:
    final, _ = run(
        [(WRITE, fenced("income_2024 = 11.588\nincome_2023 = 9877\nresult = income_2024"))],
        "What was net income in 2024?",
        [INCOME],
    )
    assert (final.answer, final.outcome, final.value) == (MISSCALED, "unverified", None)
    assert "11.59 million (the evidence: 11,588 million)" in final.reason
    assert "11.588 where the evidence prints 11,588" in final.reason  # the check's problem


def test_an_answer_in_words_at_another_scale_is_withheld() -> None:
    cot = {"reasoning": "-", "answer": "Net income was $11.59 million."}
    final, _ = run([(COT, cot)], "Describe Acme's earnings in 2024.", [INCOME])
    assert (final.path, final.answer, final.outcome) == ("cot", MISSCALED, "unverified")
    assert "the answer states figures at the wrong scale" in final.reason


def test_the_revision_fixes_a_figure_copied_at_the_wrong_scale() -> None:
    final, engine = run(
        [
            (REVISE, fenced("result = 11588")),
            (WRITE, fenced("result = 11.588")),
            (VERIFY, ACCEPT),
        ],
        "What was net income in 2024?",
        [INCOME],
        router=fixed_router(True, "test"),
    )
    assert (final.answer, final.outcome) == ("11,588 million", "answered")
    (revision,) = [p for p in engine.prompts if REVISE in p]
    assert "11.588 where the evidence prints 11,588" in revision


def test_a_yes_no_echoing_the_request_is_decided_again_told_why() -> None:
    echoed = {"deciding": "", "decision": "yes", "reason": ECHO}
    fine = {"deciding": "services were flat", "decision": "no", "reason": "Services were flat."}
    final, engine = run(
        [(DECIDE, replies(echoed, fine))],
        "Did Acme's services business do well in 2024?",
        [MDNA],
        answer_forms="decide",
    )
    assert (final.path, final.answer) == ("decide", "No. Services were flat.")
    decisions = [p for p in engine.prompts if DECIDE in p]
    assert len(decisions) == 2
    assert "An earlier answer was rejected: the answer repeats" in decisions[1]


def test_an_undecided_yes_no_in_the_requests_words_is_not_an_echo() -> None:
    undecided = {
        "deciding": "",
        "decision": "not stated",
        "reason": "The evidence does not decide it.",
    }
    final, engine = run(
        [(DECIDE, undecided)],
        "Did Acme's services business do well in 2024?",
        [MDNA],
        answer_forms="decide",
    )
    assert final.answer == "Undecided: The evidence does not decide it."
    assert engine.count(DECIDE) == 1


def _decided_above_one(program: str, deciding: str):
    """The final answer when ``program`` decides "above 1?" and the LM says yes by
    ``deciding``."""
    reason = f"The ratio is {deciding}, above 1."
    final, _ = run(
        [
            (WRITE, fenced(program)),
            (DECIDE, {"deciding": deciding, "decision": "yes", "reason": reason}),
        ],
        "Is the ratio of operating cash flow to capex above 1 in 2024?",
        [CASH_FLOW],
        answer_forms="decide",
    )
    return final


def test_a_yes_or_no_may_state_a_figure_its_program_derived() -> None:
    program = "ocf = 812.4\ncapex = 412.6\nratio = ocf / capex\nresult = ratio > 1"
    final = _decided_above_one(program, "1.97")
    assert (final.answer, final.outcome) == ("Yes. The ratio is 1.97, above 1.", "answered")


def test_a_figure_the_program_only_wrote_down_is_still_checked() -> None:
    final = _decided_above_one("ratio = 5.1\nresult = ratio > 1", "5.1")
    assert final.outcome != "answered" and "5.1" not in final.answer


def test_a_reason_quoting_numbers_found_nowhere_gives_way_to_the_computation() -> None:
    program = "ocf = 812.4\ncapex = 412.6\nratio = ocf / capex\nresult = ratio > 1"
    final = _decided_above_one(program, "2.5")  # the program computed 1.97
    assert final.answer == "Yes. Computed: ratio > 1 is True."
    assert final.outcome == "answered"
    [step] = [s for s in final.trace.steps if s.name == "number check"]
    assert step.note == "withheld: 2.5; stated from the computation: " + final.answer
    assert step.fault is None
