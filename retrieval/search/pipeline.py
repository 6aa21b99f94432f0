"""The search pipeline the program calls: query → scoped hybrid search → documents → rerank.

1. Scope: the companies the query (or the ``company`` argument) names and the periods it
   (or ``period``) states are resolved through the :class:`MetadataStore` to filings; the
   search runs on those, widening to the companies' filings and then to everything when the
   narrower scope gives fewer than ``k`` passages.
2. Hybrid search (dense MiniLM + BM25, RRF) for ``candidates`` passages of
   :func:`~filingqa.retrieval.vocabulary.lexicon.search_text` (the question without answer-format
   instructions, plus the line items and statement headings it implies). A filtered scope
   of at most ``exhaustive`` passages (the few filings a question names) is ranked whole,
   so the answer page cannot fall outside the candidates; with ``pages`` each scope's hits
   come page by page, pages ranked by their best passages (:mod:`~filingqa.retrieval.search.pages`).
   Stages 2 and 3 rank index matches (ids, pages and scores); only the ``depth`` kept are
   read as passages, with the signals the index stored for them.
3. Hierarchical (HiREC-style): documents are ranked by the RRF mass of their passages, and
   the passages of the best ``documents`` filings are searched again and fused in.
4. Rerank: the first ``depth`` candidates get the features the reranker was trained with
   (dense and BM25 scores, also where it missed one list; its page's BM25 score and rank),
   then the LightGBM reranker orders them, drops near-duplicate boilerplate and promotes
   parents; with ``remote_rerank``, a remote rerank model then orders the first
   ``remote_depth`` (:mod:`~filingqa.retrieval.search.remote_rerank`); finally the best
   passage of each of the top ``spread`` pages comes first.

It also tells what the index holds (:meth:`FilingSearch.holdings`): each company's filings
with their form and period, for the program's holdings rule; and looks statement figures up
in the records the build stored (:meth:`FilingSearch.statement_records`).
"""

from __future__ import annotations

import warnings
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from filingqa.records.documents import Document, Passage
from filingqa.records.search_handle import HeldCompany, Holdings
from filingqa.records.statements import StatementRecord
from filingqa.retrieval.index.embedder import Embedder
from filingqa.retrieval.index.filters import SearchFilters
from filingqa.retrieval.index.fusion import reciprocal_rank_fusion, rrf_term
from filingqa.retrieval.index.locations import default_index_dir, state_dir_for
from filingqa.retrieval.index.passage_index import (
    Hit,
    Match,
    PassageIndex,
    SearchMode,
    stored_embedder,
)
from filingqa.retrieval.index.signals import passage_signals
from filingqa.retrieval.index.statement_store import StatementStore, record_periods
from filingqa.retrieval.ingest.metadata import DocumentRecord, parse_doc_name
from filingqa.retrieval.ingest.metadata_store import MetadataStore
from filingqa.retrieval.search.hit_scores import dense_scores, page_scores, sparse_scores
from filingqa.retrieval.search.pages import by_page, page_key, page_order, spread_pages
from filingqa.retrieval.search.remote_rerank import RemoteReranker
from filingqa.retrieval.search.rerank import Reranker, default_artifact_dir, shipped_artifact_dir
from filingqa.retrieval.search.rerank_features import Candidate
from filingqa.retrieval.vocabulary import lexicon

Mode = Literal["bm25", "dense", "hybrid"]
ReRankerChoice = Reranker | Path | None | Literal["default"]

_INDEX_MODES: dict[Mode, SearchMode] = {"bm25": "sparse", "dense": "dense", "hybrid": "hybrid"}
QUERY_THREADS = 1
"""ONNX threads of the embedder :meth:`FilingSearch.open` loads: one query embeds fastest on
one thread (``benchmarks/search_pipeline.py`` times it; docs/benchmarks.md)."""


class SearchSettings(BaseModel):
    """How :class:`FilingSearch` ranks: each stage can be switched off for ablations."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    mode: Mode = "hybrid"
    filters: bool = Field(default=True, description="company/period filters from the question")
    hierarchical: bool = Field(default=True, description="top documents first, then passages")
    rerank: bool = Field(default=True, description="LightGBM reranker, dedup, parent promotion")
    candidates: int = Field(default=50, ge=1, description="passages per first-stage search")
    exhaustive: int = Field(
        default=3000,
        ge=0,
        description="a filtered scope of at most this many passages is ranked whole; 0: off",
    )
    expand: bool = Field(
        default=True, description="search the question's core and its metrics' line items"
    )
    topics: bool = Field(
        default=True,
        description="with expand, also the words of the pages answering its narrative topics",
    )
    pages: bool = Field(default=True, description="rank pages, then passages page by page")
    depth: int = Field(default=100, ge=1, description="candidates kept for the reranker")
    spread: int = Field(
        default=10, ge=0, description="the top pages whose best passages come first; 0: off"
    )
    documents: int = Field(default=5, ge=1, description="documents searched again")
    remote_rerank: str | None = Field(
        default=None,
        description="a litellm rerank model ordering the first remote_depth candidates after "
        "the reranker (e.g. cohere/rerank-v3.5, hosted_vllm/<name>); None: off",
    )
    remote_rerank_api_base: str | None = Field(
        default=None,
        description="its API base (None: $FILINGQA_RERANK_API_BASE, else the provider's)",
    )
    remote_depth: int = Field(default=30, ge=1, description="candidates the remote model orders")

    def remote_reranker(self) -> RemoteReranker | None:
        """The remote rerank stage these settings name, None when off."""
        if self.remote_rerank is None:
            return None
        return RemoteReranker(self.remote_rerank, self.remote_rerank_api_base)


class RankedPassage(BaseModel):
    """A passage as the pipeline ranked it; ``why`` says which stages put it there.

    ``score`` is its first-stage (RRF) score; the list it comes in is in the final order.
    Ranks and scores are from the search that found it (None: it was not in that list;
    a computed score may stand in for a list it missed).
    """

    model_config = ConfigDict(extra="forbid")

    passage: Passage
    document: Document | None = None
    score: float
    dense_rank: int | None = None
    sparse_rank: int | None = None
    dense_score: float | None = None
    sparse_score: float | None = None
    why: list[str] = Field(default_factory=list)


@dataclass(frozen=True)
class _Scope:
    """One search scope: the filter (None: everything) and how it reads."""

    filters: SearchFilters | None
    label: str


class FilingSearch:
    """Ranked passages from a :class:`PassageIndex`; a ``SearchHandle`` for the program."""

    def __init__(
        self,
        index: PassageIndex,
        metadata: MetadataStore | None,
        reranker: Reranker | None,
        settings: SearchSettings | None = None,
        statements: StatementStore | None = None,
    ) -> None:
        self.index = index
        self.metadata = metadata
        self.reranker = reranker
        self.settings = settings or SearchSettings()
        self.statements = statements
        self._holdings: Holdings | None = None

    @classmethod
    def open(
        cls,
        index: str | Path | None = None,
        *,
        metadata: MetadataStore | None = None,
        reranker: ReRankerChoice = "default",
        settings: SearchSettings | None = None,
        embedder: Embedder | None = None,
    ) -> FilingSearch:
        """Open the index at ``index`` (default: :func:`default_index_dir`) for searching.

        ``metadata`` defaults to the store saved next to the index by ``filingqa index``;
        ``reranker`` to the trained one (``filingqa.optimizers.train_reranker``). Missing
        either, search works without it and warns once. ``embedder`` defaults to the model the
        index was built with (the offline MiniLM for a new one) on :data:`QUERY_THREADS`
        threads. The statement records stored beside the
        index are read on the first :meth:`statement_records` call.
        """
        location = index if index is not None else default_index_dir()
        if embedder is None:
            embedder = Embedder.load(stored_embedder(location), threads=QUERY_THREADS)
        opened = PassageIndex.open(location, embedder)
        if metadata is None:
            metadata = _saved_metadata(location)
        statements = StatementStore.found(state_dir_for(location))
        chosen = load_reranker(reranker)
        warn_if_learned_elsewhere(chosen, opened)
        return cls(opened, metadata, chosen, settings, statements)

    def with_settings(self, **changes: object) -> FilingSearch:
        """The same index, metadata and reranker with other settings (for ablations).

        The index is shared: close it once, through any of them.
        """
        settings = SearchSettings.model_validate(self.settings.model_dump() | changes)
        return FilingSearch(self.index, self.metadata, self.reranker, settings, self.statements)

    def with_reranker(self, reranker: Reranker | None) -> FilingSearch:
        """The same index, metadata and settings, reranked by ``reranker``."""
        warn_if_learned_elsewhere(reranker, self.index)
        return FilingSearch(self.index, self.metadata, reranker, self.settings, self.statements)

    def close(self) -> None:
        """Release the index."""
        self.index.close()

    def reload(self, metadata: MetadataStore | None, statements: StatementStore | None) -> None:
        """Take the document metadata and statement records as a build left them (what it
        holds and its records are read again on next use)."""
        self.metadata, self.statements, self._holdings = metadata, statements, None

    def holdings(self) -> Holdings | None:
        """The companies whose filings the index holds, each filing with its form and period
        (``SearchHandle``'s holdings); None without document metadata. Read once."""
        if self.metadata is None:
            return None
        if self._holdings is None:
            self._holdings = _holdings(self.metadata, self.index)
        return self._holdings

    def statement_records(
        self,
        company: str,
        concepts: Iterable[str],
        periods: Iterable[str],
        *,
        prior: bool = False,
    ) -> list[StatementRecord]:
        """The stored statement records of ``company`` for ``concepts`` in the periods
        ``periods`` name ("FY2019", "fiscal 2019", "Q2 FY2024"), and with ``prior`` each
        period's prior year too, from every filing reporting it: per concept and period, the
        filing's own figures first, then comparative columns (``SearchHandle``'s
        statement records; [] when the index has none stored)."""
        if self.statements is None:
            return []
        name = (self.metadata.company(company) if self.metadata else None) or company
        labels = record_periods(self.metadata, name, periods, prior)
        book = self.statements.book()
        return [
            r
            for c in dict.fromkeys(concepts)
            for label in labels
            for r in book.find(name, c, label)
        ]

    def search(
        self, query: str, *, k: int = 8, company: str | None = None, period: str | None = None
    ) -> list[Passage]:
        """The ``k`` best passages for ``query`` (``SearchHandle``)."""
        return [r.passage for r in self.ranked(query, k=k, company=company, period=period)]

    def ranked(
        self,
        query: str,
        *,
        k: int = 8,
        company: str | None = None,
        period: str | None = None,
        doc_ids: Sequence[str] | None = None,
    ) -> list[RankedPassage]:
        """The ``k`` best passages with their scores and the reasons for their rank.

        ``doc_ids`` restricts the search to those filings (no widening).
        """
        if k < 1:
            raise ValueError(f"k must be >= 1, got {k}")
        if doc_ids is not None and not doc_ids:
            return []
        companies = self._companies(query, company)
        scopes = self._scopes(query, companies, period, doc_ids)
        text = lexicon.search_text(query, self.settings.topics) if self.settings.expand else query
        found = self._first_stage(text, scopes, k)
        if self.settings.hierarchical and found:
            found = self._hierarchical(text, found)
        found = found[: max(k, self.settings.depth)]
        hits = self.index.read([f.match for f in found])
        found = [f for f in found if f.match.point in hits]
        candidates = self._candidates(text, found, [hits[f.match.point] for f in found])
        order = self._order(query, candidates, companies)
        order = self._remote_order(query, order)
        if self.settings.spread:
            spread = self.settings.spread
            order = spread_pages(order, lambda c: page_key(c.passage), 3 * spread, spread)
        by_id = {hits[f.match.point].passage.id: f for f in found}
        return [_ranked(c, by_id[c.passage.id], rank) for rank, c in enumerate(order[:k], 1)]

    # --- scope ----------------------------------------------------------------------------

    def _companies(self, query: str, company: str | None) -> list[str]:
        """The stored companies the question is about (the argument first, else the query)."""
        if self.metadata is None or not self.settings.filters:
            return []
        if company:
            named = self.metadata.company(company)
            return [named] if named else []
        return self.metadata.companies_in(query)

    def _scopes(
        self,
        query: str,
        companies: list[str],
        period: str | None,
        doc_ids: Sequence[str] | None,
    ) -> list[_Scope]:
        """From narrowest to widest: filings of the period, of the companies, everything."""
        if doc_ids is not None:
            return [_Scope(SearchFilters(doc_ids=list(doc_ids)), f"{len(doc_ids)} given filings")]
        scopes: list[_Scope] = []
        if companies and self.metadata is not None:
            names = ", ".join(companies)
            in_period = _period_doc_ids(self.metadata, companies, period or query)
            if in_period:
                label = f"{names}, period filings {', '.join(in_period)}"
                scopes.append(_Scope(SearchFilters(doc_ids=in_period), label))
            all_docs = [d.doc_id for c in companies for d in self.metadata.documents(c)]
            if all_docs and set(all_docs) != set(in_period):
                scopes.append(_Scope(SearchFilters(doc_ids=all_docs), f"{names}, all filings"))
        scopes.append(_Scope(None, "all filings"))
        return scopes

    def _first_stage(self, query: str, scopes: list[_Scope], k: int) -> list[_Found]:
        """Hits of the narrowest scope, topped up from wider ones while fewer than ``k``.

        A filtered scope small enough (``exhaustive``) is ranked whole: the question names
        the filing, so every one of its passages is a candidate for the reranker. With
        ``pages``, each scope's hits come page by page, best page first.
        """
        found: list[_Found] = []
        for scope in scopes:
            have = {item.match.point for item in found}
            matches = self._search(query, scope.filters, self._depth(scope.filters))
            if self.settings.pages:
                matches = by_page(matches, page_order(matches))
            found += [_Found(m, scope.label) for m in matches if m.point not in have]
            if len(found) >= k:
                break
        return found

    def _depth(self, filters: SearchFilters | None) -> int:
        """How many passages to take from a scope: all of a small filtered one."""
        wanted = self.settings.candidates
        if filters is None or not self.settings.exhaustive:
            return wanted
        size = self.index.count(filters)
        return max(wanted, size) if size <= self.settings.exhaustive else wanted

    def _search(
        self, query: str, filters: SearchFilters | None, k: int | None = None
    ) -> list[Match]:
        mode = _INDEX_MODES[self.settings.mode]
        depth = k or self.settings.candidates
        return self.index.match(query, depth, filters=filters, mode=mode)

    # --- hierarchical ---------------------------------------------------------------------

    def _hierarchical(self, query: str, found: list[_Found]) -> list[_Found]:
        """Search again within the top documents (by RRF mass of their hits) and fuse."""
        mass: defaultdict[str, float] = defaultdict(float)
        for rank, item in enumerate(found, start=1):
            mass[item.match.doc_id] += rrf_term(rank)
        if len(mass) <= self.settings.documents:
            return found
        top = sorted(mass, key=lambda doc: (-mass[doc], doc))[: self.settings.documents]
        again = self._search(query, SearchFilters(doc_ids=top))
        first = {item.match.point: item for item in found}
        second = {match.point: match for match in again}
        fused = reciprocal_rank_fusion([list(first), list(second)])
        doc_rank = {doc: rank for rank, doc in enumerate(top, start=1)}
        out = []
        for fused_item in fused:
            if fused_item.key in first:
                out.append(first[fused_item.key])
            else:
                out.append(_Found(second[fused_item.key], "within the top documents"))
            doc = out[-1].match.doc_id
            if doc in doc_rank:
                out[-1] = replace(out[-1], document_rank=doc_rank[doc])
        return out

    # --- features and order ---------------------------------------------------------------

    def _candidates(self, query: str, found: list[_Found], hits: list[Hit]) -> list[Candidate]:
        """Reranker candidates in fused order, with dense, BM25 and page scores filled in."""
        passages = [hit.passage for hit in hits]
        signals = [hit.signals or passage_signals(hit.passage.text) for hit in hits]
        counts = [s.term_counts() for s in signals]
        keys = [page_key(passage) for passage in passages]
        store = self.metadata
        documents = [store.document(p.doc_id) if store else None for p in passages]
        lexical = self.index.lexical
        known = [f.match.dense_score for f in found]
        missing = [i for i, score in enumerate(known) if score is None]
        embedded = self.index.embedded_texts(
            [passages[i] for i in missing], [documents[i] for i in missing]
        )
        dense = dense_scores(self.index.embedder, query, known, embedded)
        sparse = sparse_scores(lexical, query, counts, [f.match.sparse_score for f in found])
        pages = page_scores(lexical, keys, counts, sparse.idf)
        candidates = []
        for i, passage in enumerate(passages):
            page_rank, page_score = pages.get(keys[i], (None, None))
            candidates.append(
                Candidate(
                    passage=passage,
                    document=documents[i],
                    dense_score=dense[i],
                    dense_rank=found[i].match.dense_rank,
                    sparse_score=sparse.scores[i],
                    sparse_rank=found[i].match.sparse_rank,
                    fused_rank=i + 1,
                    page_score=page_score,
                    page_rank=page_rank,
                    signals=signals[i],
                )
            )
        return candidates

    def _order(
        self, query: str, candidates: list[Candidate], companies: list[str]
    ) -> list[Candidate]:
        if not self.settings.rerank or self.reranker is None:
            return candidates
        names = _company_names(self.metadata, companies) if companies else None
        return self.reranker.rerank(query, candidates, companies=names)

    def _remote_order(self, query: str, order: list[Candidate]) -> list[Candidate]:
        """The first ``remote_depth`` candidates in the remote model's order, then the rest.

        Raises:
            RerankEndpointError: the rerank endpoint fails (no order is made up).
        """
        remote = self.settings.remote_reranker()
        if remote is None:
            return order
        depth = self.settings.remote_depth
        head = remote.order(query, order[:depth], lambda c: c.passage.text)
        return head + order[depth:]


@dataclass(frozen=True)
class _Found:
    match: Match
    scope: str
    document_rank: int | None = None


def _ranked(candidate: Candidate, found: _Found, rank: int) -> RankedPassage:
    hit = found.match
    why = [f"scope: {found.scope}"]
    if found.document_rank is not None:
        why.append(f"document #{found.document_rank} of the top documents")
    lists = [
        f"{name} #{r}" for name, r in (("dense", hit.dense_rank), ("bm25", hit.sparse_rank)) if r
    ]
    why.append("found by " + (", ".join(lists) or "no list"))
    if candidate.fused_rank != rank:
        why.append(f"reranked from #{candidate.fused_rank} to #{rank}")
    return RankedPassage(
        passage=candidate.passage,
        document=candidate.document,
        score=hit.score,
        dense_rank=hit.dense_rank,
        sparse_rank=hit.sparse_rank,
        dense_score=candidate.dense_score,
        sparse_score=candidate.sparse_score,
        why=why,
    )


def _period_doc_ids(store: MetadataStore, companies: list[str], period_text: str) -> list[str]:
    """Filings of ``companies`` for the periods ``period_text`` names, best fit first."""
    found: dict[str, None] = {}
    for company in companies:
        for resolution in store.resolve(company, period_text):
            found |= dict.fromkeys(resolution.doc_ids)
    return list(found)


def _company_names(store: MetadataStore | None, companies: list[str]) -> list[str]:
    """The companies and their tickers, as the reranker's company feature matches them."""
    names: dict[str, None] = dict.fromkeys(companies)
    for company in companies:
        for doc in store.documents(company) if store else []:
            if doc.ticker:
                names[doc.ticker] = None
    return list(names)


def _holdings(store: MetadataStore, index: PassageIndex) -> Holdings:
    """The store's companies with the filings of theirs that have passages in ``index``."""
    by_company: dict[str, list[DocumentRecord]] = defaultdict(list)
    for record in store.records():
        doc = record.document
        if doc.company and index.count(SearchFilters(doc_ids=[doc.doc_id])):
            by_company[doc.company].append(record)
    calendars = {cal.company: cal for cal in store.calendars()}
    held = []
    for company, records in by_company.items():
        cal = calendars.get(company)
        held.append(
            HeldCompany(
                name=company,
                aliases=_aliases(company, records),
                year_end_month=cal.fiscal_year_end_month if cal else 12,
                year_end_day=cal.fiscal_year_end_day if cal else 31,
                naming=cal.naming if cal else "end_year",
                documents=[r.document for r in records],
            )
        )
    return Holdings(companies=held)


def _aliases(company: str, records: list[DocumentRecord]) -> list[str]:
    """The other names a company's filings give it: tickers, registrants, doc-name keys."""
    names: dict[str, None] = {}
    for record in records:
        parsed = parse_doc_name(record.document.doc_id)
        key = parsed.company_key if parsed else None
        for name in (record.document.ticker, record.registrant, key):
            if name and name != company:
                names[name] = None
    return list(names)


# --- loading ------------------------------------------------------------------------------


def saved_metadata(location: str | Path) -> MetadataStore | None:
    """The document metadata ``filingqa index`` saved beside the index at ``location``
    (None: none saved)."""
    state = state_dir_for(location)
    if state is None or not (state / MetadataStore.FILENAME).is_file():
        return None
    return MetadataStore.load(state)


def _saved_metadata(location: str | Path) -> MetadataStore | None:
    metadata = saved_metadata(location)
    if metadata is None:
        warnings.warn(
            f"no document metadata next to index {location}: company/period filters are off "
            "(index with `filingqa index` to save it)",
            stacklevel=3,
        )
    return metadata


def default_reranker_dir() -> Path:
    """Where the default reranker is read from: the user's own training under
    ``FILINGQA_HOME`` when there is one, else the one filingqa ships."""
    trained = default_artifact_dir()
    return trained if trained.is_dir() else shipped_artifact_dir()


def warn_if_learned_elsewhere(reranker: Reranker | None, index: PassageIndex) -> None:
    """Warn when ``reranker`` learned the cosines of another encoder than ``index``'s: its
    dense-score features then mean something else (it still ranks, usually worse)."""
    learned = reranker.embedder if reranker is not None and reranker.trained else None
    if learned is not None and learned != index.embedder.name:
        warnings.warn(
            f"the reranker learned the cosines of {learned}, and this index is embedded by "
            f"{index.embedder.name}: embed the index with that encoder (`filingqa index "
            "--program <artifact>`) for the ranking it was trained for",
            stacklevel=3,
        )


def load_reranker(choice: ReRankerChoice = "default") -> Reranker | None:
    """The reranker to use: given, loaded from a directory, or the default
    (:func:`default_reranker_dir`).

    A missing or outdated artifact gives the untrained reranker (fused order, dedup and
    parent promotion) and a warning.
    """
    if choice is None or isinstance(choice, Reranker):
        return choice
    directory = default_reranker_dir() if choice == "default" else Path(choice)
    try:
        return Reranker.load(directory)
    except (FileNotFoundError, ValueError) as problem:
        reason = "not found" if isinstance(problem, FileNotFoundError) else str(problem)
        warnings.warn(
            f"no trained reranker at {directory} ({reason}): keeping the fused order",
            stacklevel=3,
        )
        return Reranker()
