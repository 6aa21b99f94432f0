from filingqa.ask import sample_filing
from filingqa.evidence.plain_filing import split_filing
from filingqa.evidence.render import render
from filingqa.evidence.selection import select

FILING = (
    "ACME CORP\nAnnual report\n\fItem 7. MD&A\n\nRevenue grew on strong demand.\n\n"
    "Table 1. Revenue\n(In millions)\n\n| Year | 2024 | 2023 |\n|---|---|---|\n"
    "| Revenue | 120.5 | 100.0 |\n\nRevenue is recognised on delivery."
)


def test_split_keeps_pages_and_joins_captions_to_tables() -> None:
    passages = split_filing(FILING, "ACME_2024_10K")
    assert [(p.page, p.kind) for p in passages] == [
        (1, "text"),
        (2, "text"),
        (2, "text"),
        (2, "table"),
        (2, "text"),
    ]
    table = passages[3]
    assert table.id == "ACME_2024_10K:p2:tab1"
    assert table.text.startswith("Table 1. Revenue\n(In millions)\n| Year |")


def test_ids_are_unique_on_the_sample_filing() -> None:
    passages = split_filing(sample_filing().read_text(), "NW")
    assert len({p.id for p in passages}) == len(passages)
    assert [p.id for p in passages if p.kind == "table"] == ["NW:p3:tab1", "NW:p4:tab2"]


def test_small_filing_is_selected_whole_in_order() -> None:
    passages = split_filing(FILING, "A")
    assert select("anything", passages, budget_chars=10_000) == passages


def test_budget_keeps_the_most_relevant_passages_in_filing_order() -> None:
    passages = split_filing(FILING, "A")
    chosen = select("revenue 2024 table in millions", passages, budget_chars=120)
    assert "A:p2:tab1" in [p.id for p in chosen]
    assert sum(len(p.text) for p in chosen) <= 120
    assert [p.id for p in chosen] == sorted(
        (p.id for p in chosen), key=[q.id for q in passages].index
    )


def test_budget_fills_with_smaller_passages_after_one_that_does_not_fit() -> None:
    passages = split_filing(FILING, "A")
    table = passages[3]
    chosen = select("revenue 2024 table in millions", passages, budget_chars=len(table.text) + 40)
    assert table in chosen
    assert len(chosen) > 1  # a short paragraph still fits beside the table


def test_passages_picked_first_are_kept_before_more_relevant_ones() -> None:
    passages = split_filing(FILING, "A")
    table = passages[3]
    question = "Revenue grew on strong demand; revenue is recognised on delivery"
    budget = len(table.text) + 10
    assert table not in select(question, passages, budget)
    chosen = select(question, passages, budget, first=lambda p: p.kind == "table")
    assert chosen[0] == table


def test_render_shows_page_headers_and_no_ids() -> None:
    text = render(split_filing(FILING, "ACME_2024_10K")[3:4])
    assert text.startswith("--- page 2, table ---\nTable 1. Revenue")
    assert "ACME_2024_10K" not in text  # small models read ids as variables
