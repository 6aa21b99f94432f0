"""The learned reranker: LightGBM LambdaRank over retrieval and finance-aware features.

A :class:`Candidate` is a passage with what first-stage retrieval said about it (dense and
BM25 scores and ranks, fused rank) and its :mod:`~filingqa.retrieval.signals` (read from the
index, else computed from the text), so the reranker never depends on index internals.
:func:`features` turns (query, candidate) into the named :data:`FEATURE_NAMES`;
:class:`Reranker` scores them with a LightGBM model kept in LightGBM's text format next to
a JSON manifest of the feature names; without a model it keeps the fused order. After
scoring, near-duplicate boilerplate is dropped (:mod:`filingqa.retrieval.dedup`) and the
fragments of one parent that rank high are put together (:func:`promote_parents`).
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, InstanceOf

from filingqa.core.config import home_dir
from filingqa.records.documents import Document, Passage
from filingqa.retrieval import lexicon
from filingqa.retrieval.dedup import dedup
from filingqa.retrieval.fusion import DEFAULT_K as RRF_K
from filingqa.retrieval.lexical import tokenize
from filingqa.retrieval.metadata import normalise_company
from filingqa.retrieval.pages import page_key
from filingqa.retrieval.signals import PassageSignals, passage_signals

if TYPE_CHECKING:
    import lightgbm

MODEL_FILE = "model.txt"
FEATURES_FILE = "features.json"
TRAINING_FILE = "training.json"
FEATURE_VERSION = 3
PREDICT_THREADS = 1
"""One query's few hundred rows score fastest on one thread (no pool start-up or spinning)."""

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


def default_artifact_dir() -> Path:
    """Where a trained reranker goes unless told otherwise: ``<home>/artifacts/reranker``."""
    return home_dir() / "artifacts" / "reranker"


def shipped_artifact_dir() -> Path:
    """The reranker that ships with filingqa (``artifacts/reranker`` in the repository)."""
    return Path(str(resources.files("filingqa.artifacts") / "reranker"))


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
    """What :func:`from_hits` reads from a search hit (``filingqa.retrieval.index.Hit``)."""

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
    rrf: Counter[tuple[str, int]] = Counter()
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


def promote_parents(ranked: Sequence[Candidate], k: int) -> list[Candidate]:
    """Put together the fragments of a parent that has two or more of them in the top ``k``.

    At the first (best) position of such a group come the parent passage itself (when it
    is among ``ranked``: its ``id`` is the fragments' ``parent_id``), then the group's
    fragments in the top ``k`` in rank order; the other candidates follow in order.
    """
    top = list(ranked[:k])
    counts = Counter(c.passage.parent_id for c in top if c.passage.parent_id)
    groups = {parent for parent, n in counts.items() if n >= 2}
    if not groups:
        return list(ranked)
    parents = {c.passage.id: c for c in ranked if c.passage.id in groups}

    def group_of(candidate: Candidate) -> str | None:
        if candidate.passage.parent_id in groups:
            return candidate.passage.parent_id
        return candidate.passage.id if candidate.passage.id in groups else None

    out: list[Candidate] = []
    placed: set[str] = set()
    for candidate in top:
        group = group_of(candidate)
        if group is None:
            out.append(candidate)
        elif group not in placed:
            placed.add(group)
            if group in parents:
                out.append(parents[group])
            out += [c for c in top if c.passage.parent_id == group]
    taken = {c.passage.id for c in out}
    return out + [c for c in ranked[k:] if c.passage.id not in taken]


def _shingles(candidate: Candidate) -> frozenset[int]:
    return candidate.text_signals().shingles


class Reranker:
    """Scores candidates with a LightGBM LambdaRank model; untrained, keeps the fused order.

    ``dedup_threshold`` (Jaccard of word shingles, None: off) drops near-duplicates and
    ``promote_k`` (None: off) groups a parent's fragments within the top ``promote_k``.
    """

    def __init__(
        self,
        booster: lightgbm.Booster | None = None,
        *,
        dedup_threshold: float | None = 0.85,
        promote_k: int | None = 5,
    ) -> None:
        self.booster = booster
        self.dedup_threshold = dedup_threshold
        self.promote_k = promote_k

    @property
    def trained(self) -> bool:
        """Whether a model is loaded (else :meth:`rerank` keeps the fused order)."""
        return self.booster is not None

    @classmethod
    def load(cls, directory: Path, **options: Any) -> Reranker:
        """The reranker saved in ``directory`` (``model.txt`` + ``features.json``).

        Raises:
            ValueError: the model was trained on other features than this code computes.
        """
        import lightgbm

        manifest = json.loads((directory / FEATURES_FILE).read_text())
        if tuple(manifest["feature_names"]) != FEATURE_NAMES:
            raise ValueError(
                f"{directory}: model features {manifest['feature_names']} differ from "
                f"this code's {list(FEATURE_NAMES)}; retrain the reranker"
            )
        booster = lightgbm.Booster(model_file=str(directory / MODEL_FILE))
        return cls(booster, **options)

    def save(self, directory: Path) -> Path:
        """Write ``model.txt`` and ``features.json`` into ``directory``; return it.

        Raises:
            ValueError: there is no model to save.
        """
        if self.booster is None:
            raise ValueError("an untrained reranker has no model to save")
        directory.mkdir(parents=True, exist_ok=True)
        self.booster.save_model(str(directory / MODEL_FILE))
        manifest = {"version": FEATURE_VERSION, "feature_names": list(FEATURE_NAMES)}
        (directory / FEATURES_FILE).write_text(json.dumps(manifest, indent=2) + "\n")
        return directory

    def scores(self, query: str, candidates: Sequence[Candidate], info: QueryInfo) -> np.ndarray:
        """One model score per candidate (higher is better); minus fused rank if untrained."""
        if self.booster is None:
            ranks = [math.inf if c.fused_rank is None else c.fused_rank for c in candidates]
            return -np.asarray(ranks, dtype=np.float64)
        matrix = feature_matrix(query, candidates, info)
        return np.asarray(self.booster.predict(matrix, num_threads=PREDICT_THREADS))

    def rerank(
        self,
        query: str,
        candidates: Sequence[Candidate],
        *,
        companies: Sequence[str] | None = None,
        info: QueryInfo | None = None,
    ) -> list[Candidate]:
        """``candidates`` best first (untrained: by fused rank, missing ranks last, ties in
        input order), deduplicated and with parents promoted; ``info`` defaults to
        :func:`query_info` of ``companies``."""
        if not candidates:
            return []
        info = info or query_info(query, candidates, companies)
        order = np.argsort(-self.scores(query, candidates, info), kind="stable")
        ranked = [candidates[i] for i in order]
        if self.dedup_threshold is not None:
            ranked = dedup(ranked, _shingles, threshold=self.dedup_threshold)
        if self.promote_k is not None:
            ranked = promote_parents(ranked, self.promote_k)
        return ranked
