"""Tables to markdown and to stand-alone row-group passages."""

from __future__ import annotations

from filingqa.records.qa_record import Table
from filingqa.retrieval.ingest.chunking import estimate_tokens
from filingqa.retrieval.ingest.tables import (
    clean_rows,
    header_count,
    lead_in,
    row_groups,
    table_passages,
    to_markdown,
)

SMALL = Table(
    id="t1",
    caption="Consolidated Statements of Operations (In millions)",
    rows=[
        ["", "2024", "2023"],
        ["Net revenue", "4,186.3", "3,902.7"],
        ["Cost of revenue", "2,301.9", "2,226.4"],
    ],
)


def _balance_sheet(rows: int) -> Table:
    body = [["Current assets:", "", ""]]
    body += [[f"Asset line number {i}", f"{1000 + i:,}", f"{900 + i:,}"] for i in range(rows)]
    return Table(
        id="t1",
        caption="CONSOLIDATED BALANCE SHEETS (In millions)",
        rows=[["", "December 31, 2024", "December 31, 2023"], *body],
    )


def test_markdown_has_caption_header_separator_and_rows() -> None:
    assert to_markdown(SMALL) == (
        "Consolidated Statements of Operations (In millions)\n"
        "|  | 2024 | 2023 |\n"
        "|---|---|---|\n"
        "| Net revenue | 4,186.3 | 3,902.7 |\n"
        "| Cost of revenue | 2,301.9 | 2,226.4 |"
    )


def test_pipes_in_cells_are_escaped() -> None:
    table = Table(id="t", rows=[["a", "b"], ["x|y", "1"]])
    assert "| x\\|y | 1 |" in to_markdown(table)


def test_header_rows_are_leading_rows_without_data_numbers() -> None:
    assert header_count(SMALL.rows) == 1
    two = [["", "2019", "2018"], ["", "$'000", "$'000"], ["Revenue", "1,200", "1,100"]]
    assert header_count(two) == 2
    assert header_count([["Revenue", "1,200"], ["Costs", "900"]]) == 0


def test_multi_row_header_is_joined_per_column() -> None:
    table = Table(id="t", rows=[["", "2019", "2018"], ["", "$'000", "$'000"], ["Rev", "5", "4"]])
    assert to_markdown(table).splitlines()[0] == "|  | 2019 $'000 | 2018 $'000 |"


def test_long_shared_header_words_move_to_the_caption() -> None:
    table = Table(
        id="t",
        caption="Plan assets",
        rows=[
            ["", "Fair Value Measurements Using Level 1", "Fair Value Measurements Using Level 2"],
            ["Equities", "501", "12"],
        ],
    )
    lines = to_markdown(table).splitlines()
    assert lines[:2] == ["Plan assets Fair Value Measurements Using", "|  | Level 1 | Level 2 |"]
    assert to_markdown(SMALL).splitlines()[1] == "|  | 2024 | 2023 |"  # short prefixes stay


def test_small_table_is_one_passage_without_parts() -> None:
    (passage,) = table_passages(SMALL, doc_id="D", page=4, number=2, item="Item 8")
    assert passage.id == "D:p4:table2"
    assert passage.parent_id is None
    assert (passage.kind, passage.page, passage.item) == ("table", 4, "Item 8")
    assert passage.title == SMALL.caption


def test_row_groups_stand_alone_and_cover_every_row_once() -> None:
    table = _balance_sheet(40)
    groups = row_groups(table, max_tokens=200)
    assert len(groups) > 1
    data_rows = []
    for group in groups:
        lines = group.splitlines()
        assert lines[0] == table.caption
        assert lines[1] == "|  | December 31, 2024 | December 31, 2023 |"
        assert estimate_tokens(group) <= 200
        data_rows += [line for line in lines[3:] if "Asset line" in line]
    assert data_rows == [to_markdown(table).splitlines()[i] for i in range(4, 44)]


def test_groups_are_of_even_size() -> None:
    sizes = [len(g.splitlines()) for g in row_groups(_balance_sheet(40), max_tokens=200)]
    assert max(sizes) - min(sizes) <= 2


def test_section_row_is_repeated_in_later_groups() -> None:
    groups = row_groups(_balance_sheet(40), max_tokens=200)
    assert all(group.splitlines()[3] == "| Current assets: |  |  |" for group in groups)


def test_row_group_passages_point_to_the_whole_table() -> None:
    passages = table_passages(_balance_sheet(40), doc_id="D", page=7, number=1)
    whole, *parts = passages
    assert whole.id == "D:p7:table1" and whole.parent_id is None
    assert "Asset line number 39" in whole.text
    assert [p.id for p in parts] == [f"D:p7:table1.{k}" for k in range(1, len(parts) + 1)]
    assert {p.parent_id for p in parts} == {"D:p7:table1"}


def test_a_row_longer_than_the_budget_still_gets_its_group() -> None:
    table = Table(id="t", rows=[["", "2024"], ["word " * 300, "1"], ["short", "2"]])
    groups = row_groups(table, max_tokens=50)
    assert len(groups) == 2 and "short" in groups[1]


def test_clean_rows_joins_currency_and_percent_cells_and_drops_empty_columns() -> None:
    rows = [
        ["", "", "2024", "", "", "2023", ""],
        ["Net sales", "$", "34,229", "", "$", "35,355", ""],
        ["Margin", "", "12.5", "%", "", "11.0", "%"],
        ["", "", "", "", "", "", ""],
    ]
    assert clean_rows(rows) == [
        ["", "2024", "2023"],
        ["Net sales", "$34,229", "$35,355"],
        ["Margin", "12.5%", "11.0%"],
    ]


def test_lead_in_is_the_last_sentence_before_a_colon() -> None:
    paragraph = "Liquidity is ample. Cash and cash equivalents were as follows ($ in millions):"
    assert lead_in(paragraph) == "Cash and cash equivalents were as follows ($ in millions):"
    assert lead_in("Revenue grew 8%.") is None
    assert lead_in("word " * 60 + ":") is None


def test_row_groups_fit_a_budget_counted_by_another_counter() -> None:
    def characters(text: str) -> int:
        return len(text)

    groups = row_groups(_balance_sheet(40), max_tokens=400, count=characters)
    assert len(groups) > 1
    assert all(characters(group) <= 400 for group in groups)
