"""A question's state before any search: gold context that overflows the evidence budget
keeps its tables and the paragraphs the question is about, in their given order."""

from __future__ import annotations

from filingqa.lm.trace import Trace
from filingqa.program.question_state import QuestionState, Sources
from filingqa.router.rule import route_by_rule

from ..kit.passages import CASH_FLOW, passage

QUESTION = "What share of capital expenditure went to the new Dallas plant in 2024?"
FILLER = [
    passage(f"ACME_2024_10K:p1:tex{n}", f"Note {n}: the board met in session {n}. " * 3)
    for n in range(1, 5)
]
DALLAS = passage(
    "ACME_2024_10K:p1:tex9",
    "Of capital expenditure in 2024, $120.0 million went to the new Dallas plant, which opens"
    " in 2025 and replaces the leased site in Plano.",
)
GIVEN = [CASH_FLOW, *FILLER, DALLAS]


def given_passages(budget: int) -> list[str]:
    sources = Sources(passages=GIVEN, search=None, company=None, carried=None)
    state = QuestionState.start(QUESTION, route_by_rule(QUESTION), sources, budget, Trace())
    return [p.id for p in state.evidence.passages()]


def test_gold_context_within_the_budget_is_kept_whole_in_order() -> None:
    assert given_passages(100_000) == [p.id for p in GIVEN]


def test_gold_context_over_the_budget_keeps_the_table_and_the_paragraph_asked_about() -> None:
    assert len(FILLER[0].text) < len(DALLAS.text) < 2 * len(FILLER[0].text)
    kept = given_passages(len(CASH_FLOW.text) + len(DALLAS.text) + 10)
    assert kept == [CASH_FLOW.id, DALLAS.id]  # the given order alone keeps a note instead
