"""What the reranker reads of a (query, candidate) pair: the named features.

A :class:`Candidate` is a passage with what first-stage retrieval said about it (dense and
BM25 scores and ranks, fused rank) and its index-time signals (read from the index, else
computed from the text), so the reranker never depends on index internals.
:func:`features` turns (query, candidate) into the named :data:`FEATURE_NAMES`: scores and
ranks, period, company and metric matches, the passage's page among the candidates, and the
query's own shape."""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Protocol

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, InstanceOf

from filingqa.records.documents import Document, Passage
from filingqa.retrieval.index.fusion import DEFAULT_K as RRF_K
from filingqa.retrieval.index.lexical import tokenize
from filingqa.retrieval.index.signals import PassageSignals, passage_signals
from filingqa.retrieval.search.pages import page_key
from filingqa.retrieval.vocabulary import lexicon
from filingqa.retrieval.vocabulary.companies import normalise_company

FEATURE_VERSION = 3
FEATURE_NAMES: tuple[str, ...] = (
    "dense_score",
    "dense_gap",
    "dense_rank",
    "sparse_score",
    "sparse_rel",
    "sparse_rank",
    "fused_rank",
    "in_both",
    "period_match",
    "period_conflict",
    "doc_year_distance",
    "quarter_match",
    "company_match",
    "metric_overlap",
    "passage_metrics",
    "token_overlap",
    "number_overlap",
    "granularity_match",
    "is_table",
    "item_prior",
    "page_candidates",
    "page_rrf",
    "page_rank",
    "page_share",
    "page_search_rank",
    "page_search_rel",
    "log_length",
    "number_density",
    "query_years",
    "query_metrics",
)


ITEM_PRIOR: dict[str, float] = {"7": 1.0, "8": 1.0, "6": 0.7, "7a": 0.5, "5": 0.3, "1": 0.2}
"""How likely a 10-K/10-Q Item is to hold financial figures (MD&A and statements first)."""


_NAN = float("nan")
_ITEM = re.compile(r"(?:item\s*)?(\d+[a-z]?)\b", re.IGNORECASE)
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_YEAR = re.compile(r"(?:19|20)\d\d")


class Candidate(BaseModel):
    """A passage as first-stage retrieval returned it; ranks are 1-based, None if absent.

    ``page_score``/``page_rank`` come from a page-level search (whole pages as documents),
    when the retriever ran one; candidates it added from top pages have no fused rank.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    passage: Passage
    document: Document | None = None
    dense_score: float | None = None
    dense_rank: int | None = None
    sparse_score: float | None = None
    sparse_rank: int | None = None
    fused_rank: int | None = None
    page_score: float | None = Field(default=None, description="its page's page-level score")
    page_rank: int | None = Field(default=None, description="its page's page-level rank")
    signals: InstanceOf[PassageSignals] | None = Field(
        default=None, description="the passage's signals as indexed (None: from its text)"
    )

    def text_signals(self) -> PassageSignals:
        """The passage's signals: as indexed, else computed from its text."""
        return self.signals or passage_signals(self.passage.text)


class HitLike(Protocol):
    """What :func:`from_hits` reads from a search hit (an index ``Hit``)."""

    passage: Passage
    dense_rank: int | None
    sparse_rank: int | None


def from_hits(
    hits: Sequence[HitLike], documents: Mapping[str, Document] | None = None
) -> list[Candidate]:
    """Candidates from index hits, best first (fused rank = position; per-list scores are
    taken when a hit carries ``dense_score``/``sparse_score``)."""
    documents = documents or {}
    return [
        Candidate(
            passage=hit.passage,
            document=documents.get(hit.passage.doc_id),
            dense_score=getattr(hit, "dense_score", None),
            dense_rank=hit.dense_rank,
            sparse_score=getattr(hit, "sparse_score", None),
            sparse_rank=hit.sparse_rank,
            fused_rank=rank,
        )
        for rank, hit in enumerate(hits, start=1)
    ]


class QueryInfo(BaseModel):
    """What a query asks about: metrics, years, quarters, granularity, companies."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    text: str
    tokens: frozenset[str]
    numbers: frozenset[str]
    metrics: frozenset[str]
    years: frozenset[int]
    quarters: frozenset[tuple[int, int]]
    granularity: lexicon.Granularity | None = None
    companies: tuple[str, ...] = ()


class PageStats(BaseModel):
    """How strongly first-stage retrieval points at one page: its candidates and their RRF."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    candidates: int
    rrf: float = Field(description="sum of 1 / (60 + fused rank) over the page's candidates")
    rank: int = Field(description="1-based rank of the page by rrf among the list's pages")


class ListStats(BaseModel):
    """Per-list maxima and per-page aggregates, for the list-relative features."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    max_dense: float | None = None
    max_sparse: float | None = None
    max_page: float | None = None
    pages: dict[tuple[str, int], PageStats] = Field(
        default_factory=dict, description="by page, best (highest rrf) first"
    )


def analyse_query(query: str, companies: Sequence[str] = ()) -> QueryInfo:
    """Parse ``query``; ``companies`` are the names/tickers it is known to be about."""
    terms = tokenize(query)
    return QueryInfo(
        text=query,
        tokens=frozenset(t for t in terms if not _NUMBER.fullmatch(t)),
        numbers=frozenset(t for t in terms if _NUMBER.fullmatch(t) and not _YEAR.fullmatch(t)),
        metrics=lexicon.metric_terms(query),
        years=lexicon.years(query),
        quarters=lexicon.quarters(query),
        granularity=lexicon.granularity(query),
        companies=tuple(companies),
    )


def query_companies(query: str, documents: Iterable[Document | None]) -> tuple[str, ...]:
    """The company names and tickers of ``documents`` that ``query`` mentions."""
    names: dict[str, None] = {}
    for doc in documents:
        own = [n for n in (doc.company, doc.ticker) if n] if doc else []
        if own and lexicon.mentions_company(query, own):
            names |= dict.fromkeys(own)
    return tuple(names)


def list_stats(candidates: Sequence[Candidate]) -> ListStats:
    """The best dense and sparse scores among ``candidates`` and each page's aggregate."""
    dense = [c.dense_score for c in candidates if c.dense_score is not None]
    sparse = [c.sparse_score for c in candidates if c.sparse_score is not None]
    page_scores = [c.page_score for c in candidates if c.page_score is not None]
    counts: Counter[tuple[str, int]] = Counter()
    rrf: defaultdict[tuple[str, int], float] = defaultdict(float)
    for c in candidates:
        if c.fused_rank is not None:
            counts[page_key(c.passage)] += 1
            rrf[page_key(c.passage)] += 1.0 / (RRF_K + c.fused_rank)
    order = sorted(rrf, key=lambda key: (-rrf[key], key))
    pages = {
        key: PageStats(candidates=counts[key], rrf=rrf[key], rank=rank)
        for rank, key in enumerate(order, start=1)
    }
    return ListStats(
        max_dense=max(dense, default=None),
        max_sparse=max(sparse, default=None),
        max_page=max(page_scores, default=None),
        pages=pages,
    )


def _num(value: float | None) -> float:
    return _NAN if value is None else float(value)


def item_prior(item: str | None) -> float:
    """:data:`ITEM_PRIOR` of a passage's Item ("Item 7", "7A"); NaN when unknown."""
    match = _ITEM.search(item or "")
    return ITEM_PRIOR.get(match[1].lower(), 0.0) if match else _NAN


def _company_match(info: QueryInfo, candidate: Candidate) -> float:
    if not info.companies:
        return _NAN
    doc = candidate.document
    own = {normalise_company(n) for n in (doc.company, doc.ticker) if n} if doc else set()
    if own & {normalise_company(n) for n in info.companies}:
        return 1.0
    return 1.0 if lexicon.mentions_company(candidate.passage.text, info.companies) else 0.0


def _period_features(
    info: QueryInfo, candidate: Candidate, signals: PassageSignals
) -> tuple[float, float, float, float]:
    if not info.years:
        return _NAN, _NAN, _NAN, _NAN
    found = signals.years
    match = len(info.years & found) / len(info.years)
    conflict = float(bool(found) and not info.years & found)
    doc = candidate.document
    fiscal_year = doc.fiscal_year if doc else None
    distance = _NAN if fiscal_year is None else float(min(abs(fiscal_year - y) for y in info.years))
    quarter = _NAN
    if info.quarters:
        named = signals.quarters
        if doc and doc.fiscal_year and doc.fiscal_quarter:
            named |= {(doc.fiscal_year, doc.fiscal_quarter)}
        quarter = float(bool(info.quarters & named))
    return match, conflict, distance, quarter


def _granularity_match(info: QueryInfo, own: lexicon.Granularity | None) -> float:
    if info.granularity is None or own is None:
        return 0.0
    return 1.0 if own == info.granularity else -1.0


def _page_features(candidate: Candidate, stats: ListStats) -> tuple[float, ...]:
    page = stats.pages.get(page_key(candidate.passage))
    if page is None:
        return 0.0, 0.0, _NAN, 0.0
    best = stats.pages[next(iter(stats.pages))].rrf  # pages are kept best first
    return float(page.candidates), page.rrf * RRF_K, float(page.rank), page.rrf / best


def features(
    query: str, info: QueryInfo, candidate: Candidate, stats: ListStats | None = None
) -> list[float]:
    """The :data:`FEATURE_NAMES` values of one candidate (NaN: not applicable or unknown)."""
    passage = candidate.passage
    signals = candidate.text_signals()
    numbers = signals.numbers()
    length = signals.length
    stats = stats or ListStats()
    dense_gap = (
        stats.max_dense - candidate.dense_score
        if stats.max_dense is not None and candidate.dense_score is not None
        else _NAN
    )
    sparse_rel = (
        candidate.sparse_score / stats.max_sparse
        if stats.max_sparse and candidate.sparse_score is not None
        else _NAN
    )
    period_match, period_conflict, year_distance, quarter_match = _period_features(
        info, candidate, signals
    )
    return [
        _num(candidate.dense_score),
        dense_gap,
        _num(candidate.dense_rank),
        _num(candidate.sparse_score),
        sparse_rel,
        _num(candidate.sparse_rank),
        _num(candidate.fused_rank),
        float(candidate.dense_rank is not None and candidate.sparse_rank is not None),
        period_match,
        period_conflict,
        year_distance,
        quarter_match,
        _company_match(info, candidate),
        len(info.metrics & signals.metrics) / len(info.metrics) if info.metrics else _NAN,
        float(len(signals.metrics)),
        len(info.tokens & signals.words()) / len(info.tokens) if info.tokens else _NAN,
        len(info.numbers & numbers.keys()) / len(info.numbers) if info.numbers else _NAN,
        _granularity_match(info, signals.granularity),
        float(passage.kind == "table"),
        item_prior(passage.item),
        *_page_features(candidate, stats),
        _num(candidate.page_rank),
        candidate.page_score / stats.max_page if stats.max_page and candidate.page_score else 0.0,
        math.log1p(len(passage.text)),
        sum(numbers.values()) / length if length else 0.0,
        float(len(info.years)),
        float(len(info.metrics)),
    ]


def feature_matrix(
    query: str, candidates: Sequence[Candidate], info: QueryInfo | None = None
) -> np.ndarray:
    """``(len(candidates), len(FEATURE_NAMES))`` float64 features of one candidate list
    (``info`` defaults to :func:`query_info`)."""
    info = info or query_info(query, candidates)
    stats = list_stats(candidates)
    rows = [features(query, info, c, stats) for c in candidates]
    return np.asarray(rows, dtype=np.float64).reshape(len(candidates), len(FEATURE_NAMES))


def candidate_documents(candidates: Sequence[Candidate]) -> list[Document]:
    """The distinct documents of ``candidates``."""
    distinct = {c.document.doc_id: c.document for c in candidates if c.document}
    return list(distinct.values())


def query_info(
    query: str, candidates: Sequence[Candidate], companies: Sequence[str] | None = None
) -> QueryInfo:
    """``query`` analysed for ranking ``candidates``: about ``companies``, by default those
    of the candidates' documents it mentions (:func:`query_companies`)."""
    if companies is None:
        companies = query_companies(query, candidate_documents(candidates))
    return analyse_query(query, companies)
