"""``filingqa eval --mode retrieval``: search quality of each pipeline stage on a split, no LM.

Every setting runs the product's :class:`~filingqa.retrieval.search.pipeline.FilingSearch` over the
split's whole corpus indexed together (built once under ``FILINGQA_HOME/indexes``, reused
after), each adding one stage to the previous: ``bm25``, ``dense``, ``hybrid``,
``hybrid+filters`` (company/period scope from the question), ``+hierarchical`` (top
documents searched again), ``+expansion`` (the question's core plus the line items and
statements it implies), ``+exhaustive`` (a small filtered scope ranked whole), ``+pages``
(pages ranked by their passages; the best passage of each top page first), ``+reranker``
(the reranker search loads by default: the product's default settings).

What each dataset's questions must find, and the metric, are in
:mod:`~filingqa.evaluation.retrieval.gold`; latency at scale in
:mod:`~filingqa.evaluation.retrieval.scale_latency`.
"""

from __future__ import annotations

import json
import statistics
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from filingqa.evaluation.retrieval.gold import (
    EvalQuery,
    Metric,
    gold_queries,
    query_score,
    retrieval_benchmark,
)
from filingqa.evaluation.retrieval.scale_latency import ScaleLatency, scale_latency
from filingqa.records.documents import Passage
from filingqa.retrieval.search.pipeline import SearchSettings, default_reranker_dir, load_reranker
from filingqa.retrieval.search.rerank import (
    MODEL_FILE,
    TRAINING_FILE,
    Reranker,
    default_artifact_dir,
)

SETTINGS: tuple[str, ...] = (
    "bm25",
    "dense",
    "hybrid",
    "hybrid+filters",
    "+hierarchical",
    "+expansion",
    "+exhaustive",
    "+pages",
    "+reranker",
)
_PLAIN: dict[str, object] = {"expand": False, "exhaustive": 0, "pages": False, "spread": 0}
_FIRST: dict[str, object] = {"filters": False, "hierarchical": False, "rerank": False}
SETTING_OPTIONS: dict[str, dict[str, object]] = {
    "bm25": {"mode": "bm25", **_FIRST, **_PLAIN},
    "dense": {"mode": "dense", **_FIRST, **_PLAIN},
    "hybrid": {"mode": "hybrid", **_FIRST, **_PLAIN},
    "hybrid+filters": {"mode": "hybrid", **_FIRST, "filters": True, **_PLAIN},
    "+hierarchical": {"mode": "hybrid", **_FIRST, "filters": True, "hierarchical": True, **_PLAIN},
    "+expansion": {**_FIRST, "filters": True, "hierarchical": True, **_PLAIN, "expand": True},
    "+exhaustive": {
        **_FIRST,
        "filters": True,
        "hierarchical": True,
        **_PLAIN,
        "expand": True,
        "exhaustive": SearchSettings().exhaustive,
    },
    "+pages": {"rerank": False},
    "+reranker": {},
}
"""The :class:`~filingqa.retrieval.search.pipeline.SearchSettings` changes of each setting (from the
defaults, which are ``+reranker``)."""
RERANKED = "+reranker"


# --- results ------------------------------------------------------------------------------


class SettingResult(BaseModel):
    """One setting's scores (metric name -> mean over questions) and query latency."""

    model_config = ConfigDict(extra="forbid")

    setting: str
    scores: dict[str, float]
    p50_ms: float
    p95_ms: float
    cpu_p50_ms: float = Field(description="CPU time (all threads): wall time on an idle machine")


class IndexStats(BaseModel):
    """The index the settings searched: size, and what building it cost."""

    model_config = ConfigDict(extra="forbid")

    location: str
    corpus: str
    files: int
    passages: int
    build_seconds: float = Field(description="this run's build (near 0 when reused)")
    first_build_seconds: float | None = Field(description="the build that wrote the index")
    reused: bool
    disk_mb: float | None


class RerankerUsed(BaseModel):
    """The reranker the ``+reranker`` setting ran: where it was read from, whether a trained
    model was found there, and the main facts of its training report."""

    model_config = ConfigDict(extra="forbid")

    directory: str
    trained: bool
    training: dict[str, object] | None = None


class RetrievalResults(BaseModel):
    """What :func:`run_retrieval_evaluation` measured."""

    model_config = ConfigDict(extra="forbid")

    dataset: str
    questions_from: str = Field(description="the split the questions come from")
    metric: Metric
    ks: list[int]
    queries: int
    targets: int
    index: IndexStats
    settings: list[SettingResult]
    scale: list[ScaleLatency]
    reranker: RerankerUsed | None = Field(description="None: no setting reranked")
    seconds: float


# --- running ------------------------------------------------------------------------------


def percentile(samples: Sequence[float], q: float) -> float:
    """The ``q``-quantile (0..1) of ``samples`` by the nearest rank; NaN when empty."""
    if not samples:
        return float("nan")
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def check_settings(settings: Sequence[str] | None) -> list[str]:
    """``settings`` in :data:`SETTINGS` order (all when None).

    Raises:
        ValueError: an unknown setting.
    """
    if settings is None:
        return list(SETTINGS)
    unknown = [s for s in settings if s not in SETTINGS]
    if unknown:
        raise ValueError(f"unknown retrieval setting(s) {unknown}; available: {list(SETTINGS)}")
    return [s for s in SETTINGS if s in settings]


def ensure_index(
    corpus: str,
    data_dir: str | Path | None = None,
    progress: bool = True,
    *,
    location: Path | None = None,
    embedder: str | None = None,
) -> IndexStats:
    """Build (or complete) the index of ``corpus`` at ``location`` (default: the corpus's
    default directory for ``embedder``), embedded by ``embedder`` (default: the offline
    MiniLM, or the model an existing index was built with)."""
    from filingqa.evaluation.corpora import dataset_corpus, dataset_index_name
    from filingqa.retrieval.index.build import build_index
    from filingqa.retrieval.index.embedder import Embedder
    from filingqa.retrieval.index.locations import default_index_dir
    from filingqa.retrieval.index.passage_index import stored_embedder

    model = Embedder.load(embedder) if embedder else None
    location = location or default_index_dir(
        dataset_index_name(corpus, model.name if model else None)
    )
    report = build_index(
        location,
        corpus=dataset_corpus(corpus, data_dir),
        progress=progress,
        embedder=model or Embedder.load(stored_embedder(location)),
    )
    record = location.parent / f"{location.name}.build.json"
    if report.written and not report.resumed:
        record.write_text(json.dumps({"seconds": report.seconds, "passages": report.passages}))
    first = json.loads(record.read_text())["seconds"] if record.is_file() else None
    return IndexStats(
        location=str(location),
        corpus=corpus,
        files=report.files,
        passages=report.passages,
        build_seconds=report.seconds,
        first_build_seconds=first,
        reused=report.written == 0,
        disk_mb=None if report.disk_bytes is None else round(report.disk_bytes / 1e6, 1),
    )


def evaluate_setting(
    search: Callable[[str, int], list[Passage]],
    queries: Sequence[EvalQuery],
    metric: Metric,
    ks: Sequence[int],
    name: str = "",
    progress: bool = False,
) -> SettingResult:
    """Run ``search(question, k)`` on every query and score it at each of ``ks``."""
    from tqdm import tqdm

    depth = max(ks)
    scores: dict[int, list[float]] = {k: [] for k in ks}
    times: list[float] = []
    cpu: list[float] = []
    for query in tqdm(queries, desc=name, unit="q", disable=not progress):
        started, cpu_started = time.perf_counter(), time.process_time()
        ranked = search(query.question, depth)
        times.append(1000 * (time.perf_counter() - started))
        cpu.append(1000 * (time.process_time() - cpu_started))
        for k in ks:
            scores[k].append(query_score(ranked, query, k, metric))
    return SettingResult(
        setting=name,
        scores={f"{metric}@{k}": round(statistics.fmean(v), 4) for k, v in scores.items() if v},
        p50_ms=round(percentile(times, 0.5), 1),
        p95_ms=round(percentile(times, 0.95), 1),
        cpu_p50_ms=round(percentile(cpu, 0.5), 1),
    )


# --- the reranker -------------------------------------------------------------------------


def reranker_dir(questions: str) -> Path:
    """The reranker to score on the questions of ``questions`` (a split spec): the one search
    loads by default (:func:`~filingqa.retrieval.search.pipeline.default_reranker_dir`), unless it
    was trained on that very split; then its held-out sibling ``<name>-without-<split>``
    (trained without it) where one was trained, next to it or under ``FILINGQA_HOME``, so no
    score comes from a model that saw its questions. Without a sibling it stays, with a
    warning that its scores are optimistic."""
    from filingqa.evaluation.corpora import dataset_index_name

    default = default_reranker_dir()
    report = training_report(default)
    if report is None or questions not in _train_specs(report):
        return default
    name = f"{default.name}-without-{dataset_index_name(questions)}"
    siblings = (default.with_name(name), default_artifact_dir().with_name(name))
    held_out = next((d for d in siblings if (d / MODEL_FILE).is_file()), None)
    if held_out is not None:
        return held_out
    warnings.warn(
        f"the reranker at {default} was trained on {questions} and no held-out {name} was "
        "trained: its +reranker scores are optimistic",
        stacklevel=2,
    )
    return default


def training_report(directory: Path) -> dict[str, object] | None:
    """The main facts of the training report saved with a reranker (None if there is none)."""
    path = directory / TRAINING_FILE
    if not path.is_file():
        return None
    report = json.loads(path.read_text())
    keep = ("out_dir", "source", "train_specs", "eval_specs", "groups", "cross_validation")
    return {key: report[key] for key in keep if key in report}


def _train_specs(report: dict[str, object] | None) -> list[object]:
    specs = (report or {}).get("train_specs") or []
    assert isinstance(specs, list), "a training report lists its train_specs"
    return specs


def _reranker(questions: str, names: list[str]) -> tuple[Reranker | None, RerankerUsed | None]:
    """The reranker the ``+reranker`` setting runs (none when it is not asked for)."""
    if RERANKED not in names:
        return None, None
    directory = reranker_dir(questions)
    reranker = load_reranker(directory)
    used = RerankerUsed(
        directory=str(directory),
        trained=reranker is not None and reranker.trained,
        training=training_report(directory),
    )
    return reranker, used


def run_retrieval_evaluation(
    dataset: str,
    *,
    settings: list[str] | None = None,
    limit: int | None = None,
    data_dir: str | Path | None = None,
    index: Path | None = None,
    json_out: Path | None = None,
    progress: bool = True,
    search_settings: Mapping[str, object] | None = None,
) -> RetrievalResults:
    """Score each retrieval setting on ``dataset`` (``financebench:<split>``,
    ``finqa:<split>`` or ``tatqa:<split>``) over its whole corpus, indexed at ``index``
    (default: the corpus's default directory); write the results to ``json_out`` if given.
    ``search_settings`` changes every setting's ``SearchSettings`` (the remote rerank stage, say).

    Raises:
        ValueError: an unknown dataset or setting, or a split without gold.
    """
    from filingqa.retrieval.search.pipeline import FilingSearch

    benchmark = retrieval_benchmark(dataset)
    names = check_settings(settings)
    started = time.perf_counter()
    queries = gold_queries(benchmark, data_dir)
    queries = queries[:limit] if limit else queries
    stats = ensure_index(benchmark.corpus, data_dir, progress, location=index)
    reranker, reranker_used = _reranker(benchmark.questions, names)
    base = FilingSearch.open(
        Path(stats.location),
        reranker=reranker,
        settings=SearchSettings.model_validate(dict(search_settings or {})),
    )
    try:
        results = []
        for name in names:
            search = base.with_settings(**SETTING_OPTIONS[name])

            def run(question: str, k: int, search: FilingSearch = search) -> list[Passage]:
                return [r.passage for r in search.ranked(question, k=k)]

            results.append(
                evaluate_setting(run, queries, benchmark.metric, benchmark.ks, name, progress)
            )
    finally:
        base.close()
    out = RetrievalResults(
        dataset=benchmark.dataset,
        questions_from=benchmark.questions,
        metric=benchmark.metric,
        ks=list(benchmark.ks),
        queries=len(queries),
        targets=sum(len(q.targets) for q in queries),
        index=stats,
        settings=results,
        scale=scale_latency(),
        reranker=reranker_used,
        seconds=round(time.perf_counter() - started, 1),
    )
    if json_out is not None:
        json_out.parent.mkdir(parents=True, exist_ok=True)
        json_out.write_text(json.dumps(out.model_dump(mode="json"), indent=2) + "\n")
    return out


# --- the table ----------------------------------------------------------------------------


def format_retrieval_table(results: RetrievalResults) -> str:
    """The settings as a table (scores in percent, latency in ms), then index, reranker and
    scale."""
    metrics = list(results.settings[0].scores) if results.settings else []
    header = f"{'setting':<16}" + "".join(f"{m:>11}" for m in metrics)
    lines = [
        f"{results.dataset} ({results.questions_from}): {results.queries} questions, "
        f"{results.targets} gold targets, "
        f"{results.index.passages} passages in {results.index.files} documents",
        header + f"{'p50 ms':>9}{'p95 ms':>9}{'cpu p50':>9}",
    ]
    for row in results.settings:
        cells = "".join(f"{100 * row.scores[m]:>10.1f}%" for m in metrics)
        times = f"{row.p50_ms:>9.1f}{row.p95_ms:>9.1f}{row.cpu_p50_ms:>9.1f}"
        lines.append(f"{row.setting:<16}{cells}{times}")
    index = results.index
    first = "-" if index.first_build_seconds is None else f"{index.first_build_seconds:.0f} s"
    disk = "-" if index.disk_mb is None else f"{index.disk_mb:.1f} MB"
    lines.append(
        f"index: {index.location} (built in {first}; this run {index.build_seconds:.1f} s"
        f"{', reused' if index.reused else ''}), disk {disk}"
    )
    if results.reranker is not None:
        lines.append(_reranker_line(results.reranker))
    for scale in results.scale:
        lines.append(
            f"{scale.what} at {scale.passages:,} passages: p50 {scale.p50_ms:.1f} ms, "
            f"p95 {scale.p95_ms:.1f} ms"
            + ("" if scale.cpu_p50_ms is None else f", cpu p50 {scale.cpu_p50_ms:.1f} ms")
            + f" ({scale.source})"
        )
    return "\n".join(lines)


def _reranker_line(used: RerankerUsed) -> str:
    if not used.trained:
        return f"reranker: no trained model at {used.directory}: +reranker kept the fused order"
    specs = _train_specs(used.training)
    trained_on = ", ".join(str(s) for s in specs) or "an unrecorded split"
    return f"reranker: {used.directory} (trained on {trained_on})"
