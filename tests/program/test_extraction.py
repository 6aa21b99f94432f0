"""Answers quoted from the evidence, listed, counted or decided: each path with a scripted LM."""

from collections.abc import Callable

import dspy

from filingqa.lm.trace import Trace
from filingqa.program.extraction import UNDECIDED, Comparison, Extraction, decided_by
from filingqa.program.final_answer import from_draft
from filingqa.program.question_state import QuestionState, Sources
from filingqa.router.rule import route_by_rule

from ..kit.lm import FakeEngine, marker_lm
from ..kit.passages import CASH_FLOW, MDNA, passage
from ..kit.replies import DECIDE, ITEMS, QUOTE

POLICY = passage(
    "ACME_2024_10K:p7:tex2",
    "We adopted ASC 842 using the modified retrospective method on January 1, 2019. "
    "Depreciation is calculated using the straight-line method over the estimated useful "
    "lives of the assets, which range from three to forty years. Our segments are Analyzers, "
    "Services and Software.",
)
EVIDENCE = [MDNA, CASH_FLOW, POLICY]


def replies(*texts: dict) -> Callable[[str], dict]:
    """Each call gives the next reply (the last one repeats)."""
    queue = list(texts)
    return lambda prompt: queue.pop(0) if len(queue) > 1 else queue[0]


def extract(rules, question: str, form: str, **options) -> tuple:
    lm = marker_lm(rules)
    with dspy.context(lm=lm, adapter=dspy.JSONAdapter()):
        draft = Extraction()(question, EVIDENCE, form, **options)
    engine: FakeEngine = lm.engine
    return draft, engine


def test_a_quote_found_in_the_evidence_is_the_answer_with_its_location() -> None:
    draft, engine = extract(
        [(QUOTE, {"quote": "the straight-line method"})], "How is depreciation calculated?", "span"
    )
    assert (draft.path, draft.answer, draft.problems) == ("quote", "the straight-line method", [])
    (quote,) = draft.quotes
    assert quote.location is not None and quote.location.passage_id == POLICY.id
    assert engine.count(QUOTE) == 1


def test_a_span_not_in_the_evidence_is_rejected_and_asked_again_told_why() -> None:
    draft, engine = extract(
        [(QUOTE, replies({"quote": "the declining-balance method"}, {"quote": "straight-line"}))],
        "How is depreciation calculated?",
        "span",
    )
    assert draft.answer == "straight-line" and draft.problems == []
    assert engine.count(QUOTE) == 2
    retry = engine.prompts[1]
    assert "'the declining-balance method' does not occur in the evidence" in retry


def test_a_span_rejected_again_is_marked_not_hidden() -> None:
    draft, engine = extract(
        [(QUOTE, {"quote": "the declining-balance method"})], "How is depreciation?", "span"
    )
    assert engine.count(QUOTE) == 2  # one retry by default
    assert draft.quotes == []
    assert draft.problems == [
        "'the declining-balance method' does not occur in the evidence: copy the words exactly"
    ]


def test_an_over_long_quote_is_rejected() -> None:
    draft, engine = extract(
        [(QUOTE, replies({"quote": POLICY.text[:260]}, {"quote": "modified retrospective"}))],
        "Which transition method was used for ASC 842?",
        "span",
    )
    assert "is too long: quote only the words that answer" in engine.prompts[1]
    assert draft.answer == "modified retrospective"


def test_a_list_with_a_duplicate_yields_it_once_and_drops_an_item_not_in_the_evidence() -> None:
    items = ["Analyzers", "Services", "analyzers", "Hardware", "Software"]
    draft, engine = extract([(ITEMS, {"items": items})], "What are Acme's segments?", "list")
    assert draft.answer == "Analyzers; Services; Software"
    assert [q.quote for q in draft.quotes] == ["Analyzers", "Services", "Software"]
    assert draft.problems == [
        "dropped: 'Hardware' does not occur in the evidence: copy the words exactly"
    ]
    assert engine.count(ITEMS) == 1


def test_a_count_is_the_number_of_quoted_items() -> None:
    items = ["Analyzers", "Services", "Software", "Services"]
    draft, _ = extract([(ITEMS, {"items": items})], "How many segments does Acme have?", "count")
    assert draft.answer == "3"
    assert draft.program == "counted items:\n- Analyzers\n- Services\n- Software"


def test_a_list_with_no_item_in_the_evidence_is_asked_again_then_marked() -> None:
    draft, engine = extract([(ITEMS, {"items": ["Hardware"]})], "What are the segments?", "list")
    assert engine.count(ITEMS) == 2
    assert "'Hardware' does not occur in the evidence" in engine.prompts[1]
    assert (draft.answer, draft.quotes) == ("", [])
    assert "no item was found in the evidence" in draft.problems


def test_a_yes_no_states_the_quoted_fact_that_decides_it() -> None:
    decided = {
        "deciding": "Operating cash flow | 812.4 | 701.9",
        "decision": "yes",
        "reason": "Operating cash flow rose from 701.9 to 812.4.",
    }
    draft, _ = extract([(DECIDE, decided)], "Did operating cash flow rise in 2024?", "yes_no")
    assert draft.path == "decide"
    assert draft.answer == "Yes. Operating cash flow rose from 701.9 to 812.4."
    assert draft.problems == [] and draft.quotes[0].location.passage_id == CASH_FLOW.id


def test_a_yes_no_whose_deciding_figure_is_missing_is_answered_and_marked() -> None:
    decided = {"deciding": "", "decision": "yes", "reason": "Cash flow is healthy."}
    draft, _ = extract([(DECIDE, decided)], "Is Acme's liquidity healthy?", "yes_no")
    assert draft.answer == "Yes. Cash flow is healthy."
    assert draft.problems == ["the deciding figure could not be checked: the quote is empty"]
    assert draft.quotes == []


def test_a_yes_no_decided_by_a_figure_not_in_the_evidence_is_answered_and_marked() -> None:
    decided = {"deciding": "quick ratio 1.57", "decision": "yes", "reason": "It is 1.57."}
    draft, _ = extract([(DECIDE, decided)], "Is the quick ratio healthy?", "yes_no")
    assert draft.answer == "Yes. It is 1.57."
    assert "does not occur in the evidence" in draft.problems[0]


def test_a_yes_no_the_evidence_does_not_decide_is_undecided() -> None:
    decided = {"deciding": "", "decision": "not stated", "reason": "No ratio is given."}
    draft, _ = extract([(DECIDE, decided)], "Is the quick ratio healthy?", "yes_no")
    assert draft.answer == f"{UNDECIDED}: No ratio is given."
    assert not draft.answer.lower().startswith(("yes", "no"))
    assert draft.problems == ["the evidence does not decide it"]


def test_a_yes_no_may_be_decided_by_the_computed_figure() -> None:
    decided = {
        "deciding": "1.97",
        "decision": "yes",
        "reason": "Cash flow covers capex 1.97 times.",
    }
    draft, engine = extract(
        [(DECIDE, decided)],
        "Does operating cash flow cover capex twice?",
        "yes_no",
        computed="1.97 (computed by: result = 812.4 / 412.6)",
    )
    assert draft.answer == "Yes. Cash flow covers capex 1.97 times."
    assert "1.97 (computed by: result = 812.4 / 412.6)" in engine.prompts[0]


def test_a_quoted_answer_cites_the_passage_it_was_quoted_from() -> None:
    draft, _ = extract(
        [(QUOTE, {"quote": "the straight-line method"})], "How is depreciation calculated?", "span"
    )
    question = "How is depreciation calculated?"
    state = QuestionState.start(
        question, route_by_rule(question), Sources(EVIDENCE, None, None, None), 8000, Trace()
    )
    final = from_draft(state, draft, review=None)
    assert [(c.passage_id, c.page) for c in final.citations] == [(POLICY.id, 7)]
    assert (final.path, final.answer, final.outcome) == (
        "quote",
        "the straight-line method",
        "answered",
    )


def test_a_computed_comparison_decides_the_yes_or_no() -> None:
    above = Comparison(holds=False, expression="ratio > 3")
    assert decided_by(above, "yes", "The ratio is above 3.") == "No. Computed: ratio > 3 is False."
    assert decided_by(above, "no", "It is below 3.") == "No. It is below 3."
    assert decided_by(Comparison(holds=True), "not stated", "") == "Yes."
