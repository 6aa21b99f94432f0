"""Item sections of 10-K / 10-Q / 8-K filings."""

from __future__ import annotations

import pytest

from filingqa.records.qa_record import Table
from filingqa.retrieval.ingest.sections import (
    assign_sections,
    is_contents,
    parse_heading,
    parse_part,
)

CONTENTS = (
    "Item 1. Business 3\nItem 1A. Risk Factors 9\nItem 2. Properties 20\nItem 3. Legal 21\n"
    "PART II\nItem 7. Management's Discussion 30\n"
    "Item 8. Financial Statements and Supplementary Data 50"
)


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (
            "Item 7. Management's Discussion and Analysis",
            (None, "7", "Management's Discussion and Analysis"),
        ),
        ("ITEM 8 — FINANCIAL STATEMENTS", (None, "8", "FINANCIAL STATEMENTS")),
        ("ITEM 7A. QUANTITATIVE AND QUALITATIVE", (None, "7A", "QUANTITATIVE AND QUALITATIVE")),
        ("Item 1A.", (None, "1A", "")),
        ("Item 1. - Business", (None, "1", "Business")),
        (
            "Item 2.02 Results of Operations and Financial Condition",
            (None, "2.02", "Results of Operations and Financial Condition"),
        ),
        ("PART II — ITEM 1. LEGAL PROCEEDINGS", ("II", "1", "LEGAL PROCEEDINGS")),
        ("Items 1 and 2. Business and Properties", (None, "1", "Business and Properties")),
        ("Item 7. Management's Discussion .......... 24", (None, "7", "Management's Discussion")),
    ],
)
def test_headings_are_parsed(line: str, expected: tuple) -> None:
    assert parse_heading(line) == expected


@pytest.mark.parametrize(
    "line",
    [
        "Item 7 of this report describes our liquidity.",
        "items 1 through 4 of the indenture were amended",
        "The Item 8 statements are audited.",
        "Item 7. " + "Long heading " * 20,
    ],
)
def test_references_and_prose_are_not_headings(line: str) -> None:
    assert parse_heading(line) is None


def test_part_lines() -> None:
    assert parse_part("PART II") == "II"
    assert parse_part("Part I — Financial Information") == "I"
    assert parse_part("part of our strategy") is None


def test_contents_page_is_recognised() -> None:
    assert is_contents([CONTENTS])
    assert not is_contents(["Item 7. Management's Discussion\nRevenue grew."])


def test_contents_rendered_as_a_table_is_recognised() -> None:
    rows = [["Item 1. Business", "3"], ["Item 1A. Risk Factors", "9"], ["PART II", ""]]
    rows += [[f"Item {n}. Heading {n}", str(10 * n)] for n in (5, 6, 7, 8)]
    assert is_contents([Table(id="toc", rows=rows)])


def test_page_of_short_items_is_not_contents() -> None:
    text = "\n".join(
        f"ITEM {n}. SECTION NUMBER {n}\nThe information required by this Item {n} of Form 10-K "
        "is incorporated herein by reference to our 2023 Proxy Statement."
        for n in range(10, 15)
    )
    assert not is_contents([text])
    assert _items([[text]]) == [["Item 10"]]


def _items(pages: list[list[str | Table]], doc_type: str | None = None) -> list[list[str | None]]:
    sections = assign_sections(pages, doc_type)
    return [[s.item if s else None for s in page] for page in sections]


def test_items_carry_across_pages_and_skip_the_contents() -> None:
    table = Table(id="t", rows=[["Net sales", "1"]])
    pages: list[list[str | Table]] = [
        [CONTENTS],
        ["Item 7. Management's Discussion and Analysis", "Revenue grew."],
        ["More discussion.", table],
        ["Item 8. Financial Statements and Supplementary Data", table],
    ]
    assert _items(pages) == [
        [None],
        ["Item 7", "Item 7"],
        ["Item 7", "Item 7"],
        ["Item 8", "Item 8"],
    ]


def test_title_on_the_next_line_is_used() -> None:
    (page,) = assign_sections([["ITEM 7.\nMANAGEMENT'S DISCUSSION AND ANALYSIS\nText."]])
    assert page[0] is not None and page[0].title == "MANAGEMENT'S DISCUSSION AND ANALYSIS"


def test_items_only_move_forward_within_a_part() -> None:
    pages: list[list[str | Table]] = [
        ["Item 7. Management's Discussion", "see Part I,\nItem 1A. Risk Factors in our report"],
        ["Item 8. Financial Statements"],
    ]
    assert _items(pages) == [["Item 7", "Item 7"], ["Item 8"]]


def test_ten_q_items_are_named_with_their_part() -> None:
    pages: list[list[str | Table]] = [
        ["PART I — FINANCIAL INFORMATION\nItem 1. Financial Statements"],
        ["Item 2. Management's Discussion and Analysis"],
        ["PART II — OTHER INFORMATION", "Item 1. Legal Proceedings"],
    ]
    assert _items(pages, "10q") == [
        ["Part I, Item 1"],
        ["Part I, Item 2"],
        ["Part II", "Part II, Item 1"],
    ]


def test_ten_q_text_before_the_first_item_is_in_the_part() -> None:
    pages: list[list[str | Table]] = [["PART I — FINANCIAL INFORMATION", "Balance sheets"]]
    assert _items(pages, "10q") == [["Part I", "Part I"]]
    assert _items(pages, "10k") == [[None, None]]


def test_eight_k_items() -> None:
    pages: list[list[str | Table]] = [
        ["Item 2.02 Results of Operations and Financial Condition", "Text."],
        ["Item 9.01 Financial Statements and Exhibits"],
    ]
    assert _items(pages, "8k") == [["Item 2.02", "Item 2.02"], ["Item 9.01"]]
