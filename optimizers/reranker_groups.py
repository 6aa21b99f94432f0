"""Reranker training groups: what the search pipeline hands its reranker, labelled by gold.

A training split is indexed as ``filingqa index --dataset`` indexes it (built once under
``FILINGQA_HOME/indexes``, reused after) and each of its questions is searched by the
product's :class:`~filingqa.retrieval.search.pipeline.FilingSearch`. The candidates the pipeline
hands its reranker, kept by :class:`CandidateRecorder` with the query analysis they are
scored under, form one LambdaRank group; those satisfying one of the question's gold
targets (a gold fact, paragraph or table) are its positives. A committed *tuning* slice
trains too (FinanceBench's: its questions searched over every filing, as served).

Data hygiene: :func:`check_hygiene` refuses training questions whose documents appear in an
evaluated split (FinQA dev and ConvFinQA dev share report pages) or in a report slice.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from filingqa.datasets.registry import load_dataset
from filingqa.records.qa_record import QARecord
from filingqa.retrieval.search.rerank import Reranker
from filingqa.retrieval.search.rerank_features import Candidate, QueryInfo, feature_matrix

if TYPE_CHECKING:
    from filingqa.evaluation.retrieval.gold import EvalQuery
    from filingqa.retrieval.search.pipeline import FilingSearch, SearchSettings


SAMPLE_SEED = 0
"""The seed a split's questions are sampled with, so a rerun searches the same ones."""


class DataLeakError(ValueError):
    """Training material overlaps a split that is evaluated."""


def check_hygiene(train: Sequence[QARecord], evaluated: Sequence[QARecord]) -> None:
    """Refuse training records that share a question id or a document with evaluated ones.

    Raises:
        DataLeakError: some overlap, with counts and examples.
    """
    shared_docs = {d for r in train for d in r.documents} & {
        d for r in evaluated for d in r.documents
    }
    shared_ids = {r.id for r in train} & {r.id for r in evaluated}
    if shared_docs or shared_ids:
        examples = ", ".join(sorted(shared_docs | shared_ids)[:5])
        raise DataLeakError(
            f"training data overlaps evaluated splits: {len(shared_docs)} documents, "
            f"{len(shared_ids)} question ids (e.g. {examples})"
        )


@dataclass(frozen=True)
class Group:
    """One LambdaRank group: a question's candidates, their features and 0/1 labels;
    ``doc_id`` (its first gold document) is the cross-validation unit."""

    query_id: str
    question: str
    doc_id: str
    candidates: list[Candidate]
    features: np.ndarray
    labels: np.ndarray

    @property
    def gold(self) -> frozenset[str]:
        """The ids of the positive candidates."""
        labelled = zip(self.candidates, self.labels, strict=True)
        return frozenset(c.passage.id for c, label in labelled if label)


class CandidateRecorder(Reranker):
    """An untrained reranker that keeps what the search pipeline hands it: the candidates
    (in fused order, which it returns) and the query analysis they are scored under."""

    def __init__(self) -> None:
        super().__init__(dedup_threshold=None, promote_k=None)
        self.candidates: list[Candidate] = []
        self.info: QueryInfo | None = None

    def scores(self, query: str, candidates: Sequence[Candidate], info: QueryInfo) -> np.ndarray:
        """Record ``candidates`` and ``info``; score them by fused rank."""
        self.candidates, self.info = list(candidates), info
        return super().scores(query, candidates, info)


def search_groups(queries: Sequence[EvalQuery], search: FilingSearch) -> list[Group]:
    """One group per query from the candidates ``search`` (its reranker stage on) reranks,
    labelled 1 where a candidate satisfies one of the query's targets; queries without a
    positive candidate are left out."""
    from filingqa.retrieval.search.pipeline import FilingSearch

    recorder = CandidateRecorder()
    settings = search.settings.model_copy(update={"rerank": True})
    pipeline = FilingSearch(search.index, search.metadata, recorder, settings)
    groups = []
    for query in queries:
        pipeline.ranked(query.question, k=1)
        candidates = recorder.candidates
        labels = np.asarray(
            [float(any(t.found_in(c.passage) for t in query.targets)) for c in candidates]
        )
        if labels.any():
            matrix = feature_matrix(query.question, candidates, recorder.info)
            doc_id = query.targets[0].doc_id
            groups.append(Group(query.id, query.question, doc_id, candidates, matrix, labels))
    return groups


class SplitRun(BaseModel):
    """What one training split gave and cost: questions, groups, seconds per step."""

    model_config = ConfigDict(extra="forbid")

    questions: int
    groups: int
    index_seconds: float = Field(description="building or checking the index, this run")
    first_build_seconds: float | None = Field(description="the build that wrote the index")
    search_seconds: float = Field(description="searching every question, features included")


def index_builds(runs: dict[str, SplitRun], built: Callable[[str], bool]) -> tuple[float, str]:
    """The seconds the first builds of the indexes of ``runs`` not ``built`` yet took, and a
    few words saying how many there are."""
    unbuilt = [spec for spec in runs if not built(spec)]
    seconds = sum(runs[spec].first_build_seconds or 0.0 for spec in unbuilt)
    return seconds, f"{len(unbuilt)} index(es) to build" if unbuilt else "indexes built"


def split_groups(
    spec: str,
    evaluated: Sequence[QARecord],
    settings: SearchSettings,
    data_dir: Path | None = None,
    progress: bool = False,
    *,
    sample: int | None = None,
    embedder: str | None = None,
) -> tuple[list[Group], SplitRun]:
    """:func:`search_groups` of the questions of ``spec`` (``sample``: that many of them,
    drawn with a fixed seed) over its own index embedded by ``embedder`` (default: the
    offline MiniLM; built when missing, else reused), and what that cost.

    Raises:
        DataLeakError: a document or question of ``spec`` is in ``evaluated``.
    """
    from filingqa.evaluation.retrieval.gold import dataset_queries

    check_hygiene(load_dataset(spec, data_dir), evaluated)
    queries = dataset_queries(spec, data_dir)
    if sample is not None and sample < len(queries):
        queries = random.Random(SAMPLE_SEED).sample(queries, sample)
    return _searched(spec, queries, settings, data_dir, progress, embedder)


def slice_groups(
    name: str,
    evaluated: Sequence[QARecord],
    settings: SearchSettings,
    data_dir: Path | None = None,
    progress: bool = False,
    embedder: str | None = None,
) -> tuple[list[Group], SplitRun]:
    """:func:`search_groups` of the questions of the committed tuning slice ``name`` (say
    ``financebench-dev-tuning``) over its dataset's index embedded by ``embedder``
    (FinanceBench: every filing, as served), and what that cost.

    Raises:
        ValueError: no committed slice is called ``name``.
        DataLeakError: ``name`` is a report slice, or one of its documents or questions is
            in ``evaluated`` or in a report slice of its dataset.
    """
    from filingqa.evaluation.retrieval.gold import gold_queries, retrieval_benchmark
    from filingqa.evaluation.slices.committed import available_slices, select_slice

    slices = available_slices()
    chosen = slices.get(name)
    if chosen is None:
        raise ValueError(f"unknown slice {name!r}; slices: {', '.join(slices) or 'none'}")
    if chosen.slice != "tuning":
        raise DataLeakError(f"{name} is a report slice: a reranker never trains on one")
    records = load_dataset(chosen.dataset, data_dir)
    reported = [s for s in slices.values() if s.dataset == chosen.dataset and s.slice == "report"]
    held_out = [r for s in reported for r in select_slice(records, s)]
    check_hygiene(select_slice(records, chosen), [*evaluated, *held_out])
    benchmark = retrieval_benchmark(chosen.dataset)
    ids = set(chosen.ids)
    queries = [q for q in gold_queries(benchmark, data_dir) if q.id in ids]
    return _searched(benchmark.corpus, queries, settings, data_dir, progress, embedder)


def training_corpus(name: str) -> str:
    """The corpus a training split (``tatqa:dev``) or tuning slice (``financebench-dev-tuning``)
    is searched over: the split's own contexts, or the slice's dataset's benchmark corpus."""
    from filingqa.evaluation.retrieval.gold import retrieval_benchmark
    from filingqa.evaluation.slices.committed import available_slices

    chosen = available_slices().get(name)
    return name if chosen is None else retrieval_benchmark(chosen.dataset).corpus


def _searched(
    corpus: str,
    queries: Sequence[EvalQuery],
    settings: SearchSettings,
    data_dir: Path | None,
    progress: bool,
    embedder: str | None = None,
) -> tuple[list[Group], SplitRun]:
    """:func:`search_groups` of ``queries`` over the index of ``corpus`` embedded by
    ``embedder`` (built when missing, else reused), and what that cost."""
    from filingqa.evaluation.retrieval.quality import ensure_index
    from filingqa.retrieval.search.pipeline import FilingSearch

    started = time.perf_counter()
    index = ensure_index(corpus, data_dir, progress, embedder=embedder)
    indexed = time.perf_counter()
    search = FilingSearch.open(Path(index.location), reranker=None, settings=settings)
    try:
        groups = search_groups(queries, search)
    finally:
        search.close()
    run = SplitRun(
        questions=len(queries),
        groups=len(groups),
        index_seconds=round(indexed - started, 1),
        first_build_seconds=index.first_build_seconds,
        search_seconds=round(time.perf_counter() - indexed, 1),
    )
    return groups, run


def training_groups(
    train_specs: Sequence[str],
    eval_specs: Sequence[str],
    settings: SearchSettings,
    data_dir: Path | None = None,
    progress: bool = False,
    *,
    train_slices: Sequence[str] = (),
    split_sample: int | None = None,
    embedder: str | None = None,
) -> tuple[list[Group], dict[str, SplitRun]]:
    """:func:`split_groups` of every split of ``train_specs`` (``split_sample``: that many
    questions of each) and :func:`slice_groups` of every slice of ``train_slices``, each
    over indexes embedded by ``embedder`` and checked against the questions of
    ``eval_specs``, and what each cost.

    Raises:
        DataLeakError: a training document or question is in one of ``eval_specs`` (or, for
            a slice, in its dataset's report slice).
    """
    evaluated = [r for spec in eval_specs for r in load_dataset(spec, data_dir)]
    groups: list[Group] = []
    runs: dict[str, SplitRun] = {}
    for spec in train_specs:
        found, runs[spec] = split_groups(
            spec, evaluated, settings, data_dir, progress, sample=split_sample, embedder=embedder
        )
        groups += found
    for name in train_slices:
        found, runs[name] = slice_groups(name, evaluated, settings, data_dir, progress, embedder)
        groups += found
    return groups, runs
