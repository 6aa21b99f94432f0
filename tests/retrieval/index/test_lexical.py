"""The finance-aware tokenizer and BM25 sparse vectors."""

from __future__ import annotations

import math

import bm25s
import numpy as np
import pytest

from filingqa.retrieval.index.lexical import BM25Encoder, saturated_tf, term_id, to_sparse, tokenize


@pytest.mark.parametrize(
    ("text", "terms"),
    [
        ("Net revenue was $1,234.50 million", ["net", "revenu", "1234.5", "million"]),
        ("12.0% and 3.10", ["12", "3.1"]),
        (
            "Annual report on Form 10-K; see the 10-Q",
            ["annual", "report", "form", "10k", "see", "10q"],
        ),
        ("R&D and S&P 500", ["r&d", "s&p", "500"]),
        ("FY2023 vs Q3 2022", ["fy2023", "2023", "vs", "q3", "2022"]),
        ("Item 7A. Company's risks", ["item", "7a", "compani", "risk"]),
        ("(412.6) 2021,2022", ["412.6", "2021", "2022"]),
        ("The revenues of the company", ["revenu", "compani"]),
        (
            "Revenue rose above 5 percent, per share down",
            ["revenu", "rose", "abov", "5", "percent", "per", "share", "down"],
        ),
    ],
)
def test_tokenize_keeps_finance_terms(text: str, terms: list[str]) -> None:
    assert tokenize(text) == terms


def test_tokenize_folds_unicode_and_drops_single_letters() -> None:
    assert tokenize("Ｒｅｖｅｎｕｅ a b c 7") == ["revenu", "7"]


def test_term_ids_are_stable_unsigned_32_bit() -> None:
    assert term_id("revenu") == term_id("revenu") != term_id("revenue")
    assert 0 <= term_id("2023") < 2**32
    assert term_id("10k") == 4_087_544_911  # pinned: a change would silently break old indexes


def test_to_sparse_sorts_ids_and_sums_collisions() -> None:
    vector = to_sparse({"b": 1.0, "a": 2.0})
    assert list(vector.indices) == sorted(vector.indices)
    assert dict(zip(vector.indices, vector.values, strict=True)) == {
        term_id("a"): 2.0,
        term_id("b"): 1.0,
    }


def test_document_weights_are_saturated_and_length_normalised() -> None:
    encoder = BM25Encoder(k1=1.2, b=0.75, avg_len=4)
    doc = encoder.encode_document("revenue revenue margin cash")  # 4 terms, tf(revenu)=2
    weights = dict(zip(doc.indices, doc.values, strict=True))
    assert weights[term_id("revenu")] == pytest.approx(2 * 2.2 / (2 + 1.2))
    assert weights[term_id("margin")] == pytest.approx(2.2 / (1 + 1.2))
    longer = encoder.encode_document("margin " + "cash " * 7)
    assert dict(zip(longer.indices, longer.values, strict=True))[term_id("margin")] < 1.0
    assert saturated_tf(100, 4, k1=1.2, b=0.75, avg_len=4) < 2.2  # bounded by k1 + 1


def test_query_weights_each_distinct_term_once() -> None:
    query = BM25Encoder().encode_query("revenue revenues of the 2023 revenue")
    assert sorted(query.indices) == sorted({term_id("revenu"), term_id("2023")})
    assert set(query.values) == {1.0}
    assert BM25Encoder().encode_query("of the and").indices == ()


def test_sparse_dot_with_idf_reproduces_bm25s_ranking() -> None:
    corpus = [
        "Net revenue grew to 4,186.3 million in fiscal 2024",
        "Operating income was 671.1 million; operating margin improved",
        "Capital expenditures rose as we expanded the Tucson plant",
        "Revenue from services was flat; services margin fell",
        "Dividends paid were 101.2 million and share repurchases 168.4 million",
    ]
    query = "services revenue margin"
    tokens = [tokenize(text) for text in corpus]
    encoder = BM25Encoder(k1=1.2, b=0.75, avg_len=sum(map(len, tokens)) / len(tokens))
    n = len(corpus)
    doc_freq: dict[int, int] = {}
    docs = [encoder.encode_document(text) for text in corpus]
    for doc in docs:
        for index in doc.indices:
            doc_freq[index] = doc_freq.get(index, 0) + 1
    q = encoder.encode_query(query)
    ours = [
        sum(
            qv
            * dict(zip(d.indices, d.values, strict=True)).get(qi, 0.0)
            * math.log(1 + (n - doc_freq.get(qi, 0) + 0.5) / (doc_freq.get(qi, 0) + 0.5))
            for qi, qv in zip(q.indices, q.values, strict=True)
        )
        for d in docs
    ]
    reference = bm25s.BM25(k1=1.2, b=0.75, method="lucene")
    reference.index(tokens, show_progress=False)
    theirs = reference.get_scores(tokenize(query))
    # lucene BM25 omits the constant (k1 + 1) factor of the document weight
    assert np.allclose(np.array(ours) / 2.2, theirs, rtol=1e-4)
