"""Train the reranker on what the product's search returns: the one training path.

``filingqa compile`` (its reranker stage) and ``benchmarks/retrieval_train_reranker.py``
(which ships ``artifacts/reranker``) both call :func:`train_reranker`: each training split is
indexed and its questions searched (a committed tuning slice's, such as FinanceBench's,
over its dataset's corpus; :mod:`~filingqa.optimizers.reranker_groups`), LambdaRank is
cross-validated by document (:mod:`~filingqa.optimizers.reranker_cv`) and then fit on every
group (:mod:`~filingqa.optimizers.reranker_fit`). The artifact is ``model.txt`` + ``features.json``
+ ``training.json``: data file hashes, counts, search settings, parameters,
cross-validation, feature gains and the seconds each step took, from which
:func:`training_cost` estimates the next run.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from filingqa.datasets.registry import split_hashes
from filingqa.evaluation.corpora import dataset_index_name
from filingqa.optimizers.budget import StageCost
from filingqa.optimizers.reranker_cv import FoldScores, cross_validate
from filingqa.optimizers.reranker_fit import TrainParams, feature_gains, fit
from filingqa.optimizers.reranker_groups import (
    SplitRun,
    index_builds,
    training_corpus,
    training_groups,
)
from filingqa.retrieval.index.locations import default_index_dir, index_built
from filingqa.retrieval.search.pipeline import SearchSettings
from filingqa.retrieval.search.rerank import (
    TRAINING_FILE,
    Reranker,
    default_artifact_dir,
    shipped_artifact_dir,
)

DEFAULT_TRAIN_SPECS: tuple[str, ...] = ("finqa:train_sample100", "tatqa:dev")
DEFAULT_TRAIN_SLICES: tuple[str, ...] = ()
DEFAULT_EVAL_SPECS: tuple[str, ...] = ("finqa:dev848", "finqa:dev_sample200", "convfinqa:dev")
TRAINING_SEARCH = SearchSettings(expand=False, exhaustive=0, pages=False)
"""The search the shipped reranker was trained on: hybrid, filters and hierarchical, without
the later stages (query expansion, whole-filing scopes, page order)."""


class TrainingReport(BaseModel):
    """What :func:`train_reranker` did and what it cost."""

    model_config = ConfigDict(extra="forbid")

    train_specs: list[str]
    train_slices: list[str] = Field(default=[], description="committed tuning slices")
    embedder: str | None = Field(
        default=None, description="the model the training indexes were embedded by (None: MiniLM)"
    )
    eval_specs: list[str]
    data_files: dict[str, dict[str, str]]
    queries: int = Field(description="training questions read")
    groups: int = Field(description="questions with a gold passage among their candidates")
    candidates: int
    positives: int
    search: dict[str, Any] = Field(description="the SearchSettings the questions ran with")
    params: TrainParams
    cross_validation: FoldScores
    feature_gain: dict[str, float]
    splits: dict[str, SplitRun]
    fit_seconds: float = Field(description="cross-validation and the final fit")
    seconds: float


def train_reranker(
    train_specs: Sequence[str] = DEFAULT_TRAIN_SPECS,
    out_dir: Path | None = None,
    *,
    train_slices: Sequence[str] = DEFAULT_TRAIN_SLICES,
    eval_specs: Sequence[str] = DEFAULT_EVAL_SPECS,
    data_dir: Path | None = None,
    settings: SearchSettings = TRAINING_SEARCH,
    params: TrainParams | None = None,
    folds: int = 5,
    progress: bool = False,
    embedder: str | None = None,
) -> TrainingReport:
    """Train the reranker on the search candidates of ``train_specs`` and ``train_slices``
    and save it, with its :class:`TrainingReport`, under ``out_dir`` (default:
    :func:`default_artifact_dir`).

    Each split is indexed on its own, a slice's questions over its dataset's corpus (built
    under ``FILINGQA_HOME/indexes`` when missing, else reused; embedded by ``embedder``,
    default the offline MiniLM), and searched with ``settings``.

    Raises:
        DataLeakError: a training document or question is in one of ``eval_specs`` or in a
            report slice.
    """
    started = time.perf_counter()
    params = params or TrainParams()
    out_dir = out_dir or default_artifact_dir()
    groups, splits = training_groups(
        train_specs,
        eval_specs,
        settings,
        data_dir,
        progress,
        train_slices=train_slices,
        embedder=embedder,
    )
    fitting = time.perf_counter()
    scores = cross_validate(groups, params, folds)
    booster = fit(groups, params)
    Reranker(booster).save(out_dir)
    finished = time.perf_counter()
    report = TrainingReport(
        train_specs=list(train_specs),
        train_slices=list(train_slices),
        embedder=embedder,
        eval_specs=list(eval_specs),
        data_files=split_hashes(
            [*train_specs, *map(slice_dataset, train_slices), *eval_specs], data_dir
        ),
        queries=sum(run.questions for run in splits.values()),
        groups=len(groups),
        candidates=sum(len(g.candidates) for g in groups),
        positives=int(sum(g.labels.sum() for g in groups)),
        search=settings.model_dump(),
        params=params,
        cross_validation=scores,
        feature_gain=feature_gains(booster),
        splits=splits,
        fit_seconds=round(finished - fitting, 1),
        seconds=round(finished - started, 1),
    )
    (out_dir / TRAINING_FILE).write_text(report.model_dump_json(indent=2) + "\n")
    return report


def read_report(directory: Path) -> TrainingReport:
    """The :class:`TrainingReport` saved with the reranker in ``directory``."""
    return TrainingReport.model_validate(json.loads((directory / TRAINING_FILE).read_text()))


def slice_dataset(name: str) -> str:
    """The dataset split a committed slice draws from (``financebench:dev``)."""
    from filingqa.evaluation.slices.committed import available_slices

    return available_slices()[name].dataset


def index_ready(spec: str, embedder: str | None = None) -> bool:
    """Whether the index :func:`train_reranker` searches for ``spec`` (a split or a slice),
    embedded by ``embedder``, is built."""
    return index_built(default_index_dir(dataset_index_name(training_corpus(spec), embedder)))


def training_cost(report: TrainingReport, built: Callable[[str], bool] = index_ready) -> StageCost:
    """What training on ``report``'s splits again costs, from what that training measured:
    each split's questions at its seconds per question, the fitting, and the first build of
    each index not ``built`` yet."""
    runs = report.splits
    searching = sum(run.search_seconds for run in runs.values())
    building, indexes = index_builds(runs, built)
    per_question = searching / max(report.queries, 1)
    basis = (
        f"{report.queries:,} questions × {per_question:.3f} s searched, "
        f"{report.fit_seconds:.0f} s fitting, {indexes}"
    )
    seconds = report.queries * per_question + report.fit_seconds + building
    return StageCost(minutes=round(seconds / 60, 1), basis=basis)


def expected_cost(directory: Path | None = None, *, new_encoder: bool = False) -> StageCost:
    """:func:`training_cost` of the reranker in ``directory`` (default: the shipped one, which
    :func:`train_reranker` with its defaults reproduces); with ``new_encoder`` (a compile
    that fine-tunes one first), every training index is built anew, embedded by it."""
    report = read_report(directory or shipped_artifact_dir())
    return training_cost(report, (lambda _: False) if new_encoder else index_ready)
