"""How passages are cut and embedded: the header, the budget under an embedder's window."""

import pytest

from filingqa.records.documents import Document, Passage
from filingqa.retrieval.index.passage_recipe import (
    HEADER_RECIPE,
    HEADER_TOKENS,
    LEGACY,
    SPECIAL_TOKENS,
    passage_header,
    recipe_for_window,
)

from ..filings import count_pieces

TEN_K = Document(doc_id="3M_2022_10K", company="3M", doc_type="10k", fiscal_year=2022)
CASH_FLOWS = Passage(
    id="3M_2022_10K:p54:table1",
    doc_id="3M_2022_10K",
    page=54,
    kind="table",
    text="| | 2022 |\n| Purchases of property, plant and equipment | (1,749) |",
    item="Item 8",
    title="Consolidated Statement of  Cash Flows\n(Millions)",
)


def test_the_header_names_company_form_period_item_and_title() -> None:
    header = passage_header(CASH_FLOWS, TEN_K)
    assert header == "3M · 10-K · FY2022 · Item 8 · Consolidated Statement of Cash Flows (Millions)"
    quarter = TEN_K.model_copy(update={"doc_type": "10q", "fiscal_quarter": 2})
    bare = CASH_FLOWS.model_copy(update={"item": None, "title": None})
    assert passage_header(bare, quarter) == "3M · 10-Q · Q2 FY2022"
    unknown = Document(doc_id="notes")
    assert passage_header(bare, unknown) == "notes"


def test_a_passage_is_embedded_under_its_header_and_a_legacy_one_bare() -> None:
    recipe = recipe_for_window(128, count_pieces, counted_by="pieces")
    text = recipe.embedding_text(CASH_FLOWS, TEN_K)
    assert text == f"{passage_header(CASH_FLOWS, TEN_K)}\n{CASH_FLOWS.text}"
    assert LEGACY.embedding_text(CASH_FLOWS, TEN_K) == CASH_FLOWS.text


def test_a_long_header_is_cut_to_its_share_of_the_window() -> None:
    recipe = recipe_for_window(128, count_pieces, counted_by="pieces")
    long_title = CASH_FLOWS.model_copy(update={"title": "word " * 100})
    header = recipe.embedding_text(long_title, TEN_K).split("\n")[0]
    assert count_pieces(header) == HEADER_TOKENS
    assert header.startswith("3M · 10-K · FY2022 · Item 8 · word word")


def test_the_budget_is_the_window_less_special_tokens_and_the_header() -> None:
    recipe = recipe_for_window(256, count_pieces, counted_by="pieces")
    room = 256 - SPECIAL_TOKENS - HEADER_TOKENS
    assert recipe.describe() == {
        "header": HEADER_RECIPE,
        "text": room,
        "table": room,
        "counted_by": "pieces",
    }
    assert recipe.budget.overlap == room // 8
    assert LEGACY.describe() == {
        "header": None,
        "text": 512,
        "table": 200,
        "counted_by": "estimate",
    }
    with pytest.raises(ValueError, match="no room"):
        recipe_for_window(64, count_pieces, counted_by="pieces")
