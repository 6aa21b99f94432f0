"""Open-corpus settings: which index a dataset searches, the two search handles over it,
and what a question's searches returned (as (doc, page) pairs checked against the gold).

The full handle is the search pipeline as built (filters, hierarchical, rerank) and serves
the program; the plain handle is hybrid search alone (the naive-RAG baseline's top k).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from filingqa.datasets.registry import parse_spec
from filingqa.records import Passage, QARecord
from filingqa.records.search_handle import (
    Holdings,
    SearchHandle,
    holdings_of,
    statement_records_of,
)
from filingqa.records.statements import StatementRecord
from filingqa.retrieval.index.embedder import Embedder
from filingqa.retrieval.index.locations import IndexMissingError, index_built

Context = Literal["gold", "retrieved"]
PageRef = tuple[str, int]

OPEN_CORPUS_DATASETS = frozenset({"financebench"})
NAIVE_SETTINGS = {"filters": False, "hierarchical": False, "rerank": False}
NAIVE_K = 8


@dataclass(frozen=True)
class OpenCorpus:
    """An indexed corpus: the full search pipeline, plain hybrid search, and naive RAG's k."""

    search: SearchHandle
    plain: SearchHandle
    k: int = NAIVE_K


class RecordingSearch:
    """A search handle that keeps every passage it returned (make one per question)."""

    def __init__(self, inner: SearchHandle) -> None:
        self.inner = inner
        self.found: list[Passage] = []

    def search(
        self, query: str, *, k: int, company: str | None = None, period: str | None = None
    ) -> list[Passage]:
        found = self.inner.search(query, k=k, company=company, period=period)
        self.found.extend(found)
        return found

    def covers(self, company: str) -> bool:
        """Whether the corpus holds filings of ``company`` (True if the handle can't say)."""
        covers = getattr(self.inner, "covers", None)
        return not callable(covers) or bool(covers(company))

    def holdings(self) -> Holdings | None:
        """What the corpus holds (None if the handle can't say)."""
        return holdings_of(self.inner)

    def statement_records(
        self, company: str, concepts: Iterable[str], periods: Iterable[str], *, prior: bool = False
    ) -> list[StatementRecord]:
        """The corpus's statement records ([] if the handle looks none up)."""
        found = statement_records_of(self.inner, company, concepts, periods, prior=prior)
        return found or []


def dataset_name(spec: str) -> str:
    """``financebench`` for ``financebench:dev``."""
    return parse_spec(spec)[0].name


def default_context(spec: str) -> Context:
    """Open-corpus datasets (FinanceBench) search their index; the others read gold context."""
    return "retrieved" if dataset_name(spec) in OPEN_CORPUS_DATASETS else "gold"


def index_spec(spec: str) -> str:
    """What ``filingqa index --dataset`` builds for ``spec``: FinanceBench is one corpus for
    every split (``financebench``); other datasets index a split's contexts (``finqa:dev``)."""
    name = dataset_name(spec)
    return name if name in OPEN_CORPUS_DATASETS else spec


def index_location(corpus: str, index: Path | None = None) -> Path:
    """``index``, else where ``filingqa index --dataset <corpus>`` puts its index."""
    from filingqa.evaluation.corpora import dataset_index_name
    from filingqa.retrieval.index.locations import default_index_dir

    return index or default_index_dir(dataset_index_name(corpus))


def require_index(corpus: str, index: Path | None = None) -> Path:
    """Where ``corpus``'s index is (``index`` or its default directory), if it is built.

    Raises:
        IndexMissingError: no index there; the one-line message names the command to run.
    """
    directory = index_location(corpus, index)
    if not index_built(directory):
        build = f"filingqa index --dataset {corpus}" + (f" --index {index}" if index else "")
        raise IndexMissingError(f"no index at {directory}: build it with `{build}`")
    return directory


@contextmanager
def open_corpus(
    spec: str,
    index: Path | None = None,
    embedder: Embedder | None = None,
    *,
    search: Mapping[str, object] | None = None,
) -> Iterator[OpenCorpus]:
    """The index of dataset ``spec`` as full and plain search, released on exit; queries
    embedded by ``embedder`` (default: the offline MiniLM); the full search changed by the
    ``SearchSettings`` changes ``search`` (the remote rerank stage, say).

    Raises:
        IndexMissingError: see :func:`require_index`.
    """
    from filingqa.retrieval.search.pipeline import FilingSearch

    opened = FilingSearch.open(require_index(index_spec(spec), index), embedder=embedder)
    try:
        full = opened.with_settings(**search) if search else opened
        yield OpenCorpus(search=full, plain=opened.with_settings(**NAIVE_SETTINGS))
    finally:
        opened.close()


def pages(passages: list[Passage]) -> list[PageRef]:
    """The distinct (doc, page) pairs of ``passages``, in first-seen order."""
    return list(dict.fromkeys((p.doc_id, p.page) for p in passages))


def gold_pages(record: QARecord) -> list[PageRef]:
    """The record's evidence pages as 1-based (doc, page) pairs (datasets count from 0)."""
    return list(
        dict.fromkeys((e.doc_name, e.page + 1) for e in record.evidence if e.page is not None)
    )


def gold_hit(record: QARecord, retrieved: list[PageRef]) -> bool | None:
    """Whether a gold evidence page is among ``retrieved``; None if the gold page is unknown."""
    gold = set(gold_pages(record))
    return bool(gold & set(retrieved)) if gold else None
