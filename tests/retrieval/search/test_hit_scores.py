"""Completing hits' first-stage scores: solved IDF, computed BM25 and cosine, page ranks."""

from __future__ import annotations

import numpy as np
import pytest

from filingqa.records.documents import Passage
from filingqa.retrieval.index.lexical import BM25Encoder, term_id
from filingqa.retrieval.index.signals import passage_signals
from filingqa.retrieval.search.hit_scores import (
    bm25,
    dense_scores,
    page_scores,
    query_terms,
    solve_idf,
    sparse_scores,
)
from filingqa.retrieval.search.pages import page_key

from ..filings import fake_embedder

LEXICAL = BM25Encoder()
TEXTS = [
    "Total revenue grew to 1,250 million on strong demand",
    "Net income rose while revenue was flat",
    "Operating cash flow and capital expenditure",
    "Revenue recognition policy for service contracts and revenue deferrals",
]


def passage(n: int, text: str, page: int = 1, doc: str = "D") -> Passage:
    return Passage(id=f"{doc}:p{page}:text{n}", doc_id=doc, page=page, kind="text", text=text)


def term_counts(text: str) -> tuple[dict[int, int], int]:
    return passage_signals(text).term_counts()


def true_idf(query: str) -> dict[int, float]:
    return {t: 1.0 + i for i, t in enumerate(query_terms(LEXICAL, query))}


def test_idf_solved_from_listed_scores_reproduces_missing_scores() -> None:
    query = "revenue and cash"
    idf = true_idf(query)
    passages = [passage(n, text) for n, text in enumerate(TEXTS)]
    truth = [bm25(LEXICAL, term_counts(p.text), idf) for p in passages]
    known = [truth[0], None, truth[2], None]  # two missed the sparse list
    scores = sparse_scores(LEXICAL, query, [term_counts(p.text) for p in passages], known)
    assert scores.scores == pytest.approx(truth)
    assert scores.idf == pytest.approx(idf)


def test_a_term_no_listed_hit_has_gets_the_largest_idf() -> None:
    terms = [term_id("revenu"), term_id("zebra")]
    idf = solve_idf(LEXICAL, terms, [term_counts("revenue")], [2.0])
    assert idf[term_id("zebra")] == idf[term_id("revenu")] > 0
    assert solve_idf(LEXICAL, terms, [], []) == {}


def test_page_scores_rank_pages_by_their_passages_together() -> None:
    query = "revenue"
    idf = true_idf(query)
    passages = [
        passage(1, TEXTS[0], page=3),
        passage(2, TEXTS[3], page=3),
        passage(3, TEXTS[1], page=5),
        passage(4, TEXTS[2], page=7),
    ]
    keys = [page_key(p) for p in passages]
    ranked = page_scores(LEXICAL, keys, [term_counts(p.text) for p in passages], idf)
    assert [key for key, _ in sorted(ranked.items(), key=lambda kv: kv[1][0])] == [
        ("D", 3),
        ("D", 5),
    ]  # page 7 has no query term: no score, no rank
    assert ranked[("D", 3)][1] > ranked[("D", 5)][1] > 0


def test_dense_scores_fill_in_the_cosine_of_what_was_embedded() -> None:
    embedder = fake_embedder()
    embedded = [f"Acme · 10-K · FY2023\n{text}" for text in TEXTS[:2]]
    query = embedder.embed_query("revenue")
    vector = embedder.embed_passages([embedded[1]])[0]
    cosine = float(vector @ query / np.linalg.norm(vector) / np.linalg.norm(query))
    assert dense_scores(embedder, "revenue", [0.5, None], embedded[1:]) == pytest.approx(
        [0.5, cosine]
    )
