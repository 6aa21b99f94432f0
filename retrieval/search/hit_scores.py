"""First-stage scores of index hits, completed as the reranker saw them in training.

The reranker's features want a candidate's dense (cosine) and BM25 scores even for a list
it missed, and its page's BM25 score and rank. An index hit knows only the scores of the
lists it made; these functions fill in the rest:

- cosine from the passage vector, embedded from the text the index embedded (its header
  line and text; the embedder's disk cache holds every indexed one);
- BM25 as ``sum(idf * weight)``: the document weights come from the passage's term counts
  (:meth:`~filingqa.retrieval.index.signals.PassageSignals.term_counts`), and each query term's
  IDF is solved from the listed hits, whose scores are exactly that sum;
- a page's BM25 over its candidates' terms taken together, ranked among the pages.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np
from pydantic import BaseModel, ConfigDict

from filingqa.retrieval.index.embedder import Embedder
from filingqa.retrieval.index.lexical import BM25Encoder, saturated_tf

PAGE_PASSAGES = 4
"""Passages per PDF page on average, rounded from the FinanceBench index's passage and page
counts: a page's BM25 length."""

PageKey = tuple[str, int]
TermCounts = tuple[dict[int, int], int]


class SparseScores(BaseModel):
    """BM25 score per hit and the IDF solved per query term id."""

    model_config = ConfigDict(frozen=True)

    scores: list[float]
    idf: dict[int, float]


def query_terms(lexical: BM25Encoder, query: str) -> list[int]:
    """The term ids of ``query`` (as the index's sparse query has them)."""
    return list(lexical.encode_query(query).indices)


def bm25(
    lexical: BM25Encoder, counts: TermCounts, idf: dict[int, float], avg_len: float | None = None
) -> float:
    """``sum(idf * saturated tf)`` over the query terms in ``idf``."""
    tf, length = counts
    average = avg_len or lexical.avg_len
    return sum(
        weight * saturated_tf(tf[t], length, k1=lexical.k1, b=lexical.b, avg_len=average)
        for t, weight in idf.items()
        if t in tf
    )


def dense_scores(
    embedder: Embedder, query: str, known: Sequence[float | None], missing: Sequence[str]
) -> list[float]:
    """Each passage's cosine with ``query``: ``known`` where given, else computed from the
    next of ``missing``, the texts the index embedded for the passages without one (header
    line included), in order."""
    scores = list(known)
    unknown = [i for i, score in enumerate(scores) if score is None]
    if unknown:
        vector = embedder.embed_query(query)
        vectors = embedder.embed_passages(list(missing))
        norms = np.linalg.norm(vectors, axis=1) * np.linalg.norm(vector)
        cosines = vectors @ vector / np.maximum(norms, 1e-12)
        for i, cosine in zip(unknown, cosines, strict=True):
            scores[i] = float(cosine)
    return [float(score) for score in scores if score is not None]


def sparse_scores(
    lexical: BM25Encoder, query: str, counts: Sequence[TermCounts], known: Sequence[float | None]
) -> SparseScores:
    """Each passage's BM25 score (its term ``counts`` given): ``known`` where given, else
    from the solved IDF."""
    terms = query_terms(lexical, query)
    listed = [i for i, score in enumerate(known) if score is not None]
    idf = solve_idf(
        lexical, terms, [counts[i] for i in listed], [float(known[i] or 0.0) for i in listed]
    )
    scores = [
        float(score) if score is not None else bm25(lexical, counts[i], idf)
        for i, score in enumerate(known)
    ]
    return SparseScores(scores=scores, idf=idf)


def solve_idf(
    lexical: BM25Encoder, terms: list[int], counts: Sequence[TermCounts], scores: Sequence[float]
) -> dict[int, float]:
    """Least-squares IDF per query term from ``score = sum(idf * weight)`` of listed hits;
    a term none of them has gets the largest IDF solved (it is rarer than those)."""
    present = [t for t in terms if any(t in tf for tf, _ in counts)]
    if not present:
        return {}
    matrix = np.asarray(
        [
            [
                saturated_tf(tf[t], n, k1=lexical.k1, b=lexical.b, avg_len=lexical.avg_len)
                if t in tf
                else 0.0
                for t in present
            ]
            for tf, n in counts
        ],
        dtype=np.float64,
    )
    solved, *_ = np.linalg.lstsq(matrix, np.asarray(scores, dtype=np.float64), rcond=None)
    idf = {t: max(float(v), 0.0) for t, v in zip(present, solved, strict=True)}
    rarest = max(idf.values())
    return idf | {t: rarest for t in terms if t not in idf}


def page_scores(
    lexical: BM25Encoder,
    keys: Sequence[PageKey],
    counts: Sequence[TermCounts],
    idf: dict[int, float],
) -> dict[PageKey, tuple[int, float]]:
    """``page -> (rank, BM25 score)`` of the passages' pages (score > 0 only): passage ``i``
    is on page ``keys[i]`` with term ``counts[i]``; each page's passages are taken as one
    text of about :data:`PAGE_PASSAGES` passages' average length."""
    pages: dict[PageKey, tuple[Counter[int], int]] = {}
    for key, (tf, length) in zip(keys, counts, strict=True):
        total, size = pages.get(key, (Counter(), 0))
        total.update(tf)
        pages[key] = (total, size + length)
    average = lexical.avg_len * PAGE_PASSAGES
    scores = {key: bm25(lexical, (dict(tf), n), idf, average) for key, (tf, n) in pages.items()}
    ranked = sorted((key for key, score in scores.items() if score > 0), key=lambda k: -scores[k])
    return {key: (rank, scores[key]) for rank, key in enumerate(ranked, start=1)}
