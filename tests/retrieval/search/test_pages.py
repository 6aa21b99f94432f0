"""Pages as the unit of evidence: page ranking, page-by-page order, spreading over pages."""

from __future__ import annotations

from filingqa.records.documents import Passage
from filingqa.retrieval.index.passage_index import Match
from filingqa.retrieval.search.pages import by_page, page_key, page_order, round_robin, spread_pages


def hit(page: int, n: int, dense: float, sparse: float | None, doc: str = "ACME_2024_10K"):
    return Match(f"{doc}:p{page}:text{n}", doc, page, 0.0, dense_score=dense, sparse_score=sparse)


def test_a_page_is_as_good_as_its_best_passage_in_each_list() -> None:
    hits = [
        hit(1, 1, dense=0.9, sparse=1.0),  # the best cosine, a weak BM25 match
        hit(2, 1, dense=0.5, sparse=8.0),  # the best BM25 match
        hit(2, 2, dense=0.8, sparse=None),  # page 2 also holds the second best cosine
        hit(3, 1, dense=0.7, sparse=2.0),
        hit(4, 1, dense=0.1, sparse=None),  # matched no query term
    ]
    assert page_order(hits) == [
        ("ACME_2024_10K", 2),
        ("ACME_2024_10K", 1),
        ("ACME_2024_10K", 3),
        ("ACME_2024_10K", 4),
    ]


def test_by_page_keeps_each_pages_own_order_and_puts_unlisted_pages_last() -> None:
    hits = [hit(1, 1, 0.9, 1.0), hit(2, 1, 0.5, 8.0), hit(1, 2, 0.2, None), hit(9, 1, 0.1, 0.1)]
    pages = [("ACME_2024_10K", 2), ("ACME_2024_10K", 1)]
    ordered = by_page(hits, pages)
    assert [h.point.split(":", 1)[1] for h in ordered] == [
        "p2:text1",
        "p1:text1",
        "p1:text2",
        "p9:text1",
    ]


def test_round_robin_takes_the_best_of_each_top_group_first() -> None:
    ranked = ["a1", "a2", "a3", "b1", "c1", "b2", "d1"]
    # a, b and c round-robin, then d (not among the top three)
    assert round_robin(ranked, lambda item: item[0], 3) == [
        "a1",
        "b1",
        "c1",
        "a2",
        "b2",
        "a3",
        "d1",
    ]
    assert round_robin([], str, 2) == []


def test_spread_pages_spreads_within_each_filing_and_keeps_its_slots() -> None:
    def page(item: str) -> tuple[str, int]:
        return item[0], int(item[1])

    ranked = ["A1a", "A1b", "B1a", "A2a", "B1b", "A3a", "A1c"]
    spread = spread_pages(ranked, page, window=6, pages=3)
    # A holds slots 1, 2, 4, 6 and fills them A1a, A2a, A3a, A1b; one-page B keeps its order
    assert spread == ["A1a", "A2a", "B1a", "A3a", "B1b", "A1b", "A1c"]
    assert spread_pages(ranked, page, window=0, pages=3) == ranked
    one_page = ["X1a", "X1b", "Y1a"]
    assert spread_pages(one_page, page, window=3, pages=3) == one_page


def test_page_key_is_document_and_page_of_a_passage_or_a_match() -> None:
    passage = Passage(
        id="ACME_2024_10K:p7:text1", doc_id="ACME_2024_10K", page=7, kind="text", text="x"
    )
    assert page_key(passage) == page_key(hit(7, 1, 0.0, None)) == ("ACME_2024_10K", 7)
