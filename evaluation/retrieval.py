"""``filingqa eval --mode retrieval``: search quality of each pipeline stage on a split, no LM.

Every setting runs the product's :class:`~filingqa.retrieval.search.FilingSearch` over the
split's whole corpus indexed together (built once under ``FILINGQA_HOME/indexes``, reused
after), each adding one stage to the previous: ``bm25``, ``dense``, ``hybrid``,
``hybrid+filters`` (company/period scope from the question), ``+hierarchical`` (top
documents searched again), ``+expansion`` (the question's core plus the line items and
statements it implies), ``+exhaustive`` (a small filtered scope ranked whole), ``+pages``
(pages ranked by their passages; the best passage of each top page first), ``+reranker``
(the trained LightGBM reranker: the product's default settings).

Gold, per dataset (a *target* is found when a top-k passage satisfies it):

- ``financebench``: the gold evidence pages of the dev questions whose PDFs are all present;
  metric page Hit@1/5/10 (any gold page among the top k).
- ``finqa:dev``: the contexts of ``finqa:dev848``; gold supporting facts (table rows and
  sentences) from ``finqa:dev_sample200`` ``gold_inds``, else a single-question ConvFinQA
  dev conversation's first turn, matched onto dev848 by content; questions with neither are
  skipped. A fact is found when a top-k passage of its document holds all its terms, so
  a table passage holding the gold row counts (the product's granularity: tables are one
  passage, or row groups with the header repeated). Metric: mean Recall@5/10.
- ``tatqa:dev``: the relevant table (when the answer comes from it) and paragraphs; a
  table is found by any passage of it. Metric: mean Recall@5/10.
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from filingqa.datasets.finqa import finqa_number
from filingqa.datasets.records import QARecord
from filingqa.datasets.registry import load_dataset
from filingqa.retrieval.documents import Passage, PassageKind
from filingqa.retrieval.lexical import tokenize
from filingqa.retrieval.search import SearchSettings

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
"""The :class:`~filingqa.retrieval.search.SearchSettings` changes of each setting (from the
defaults, which are ``+reranker``)."""

Metric = Literal["hit", "recall"]
DATASETS: dict[str, tuple[str, Metric, tuple[int, ...]]] = {
    "financebench": ("financebench", "hit", (1, 5, 10)),
    "finqa:dev": ("finqa:dev848", "recall", (5, 10)),
    "tatqa:dev": ("tatqa:dev", "recall", (5, 10)),
}
"""``dataset -> (corpus spec, metric, cut-offs)``."""

SCALE_PASSAGES = 100_000
SCALE_QUERIES = 200
REPO = Path(__file__).resolve().parents[1]
INDEX_SCALE_SCRIPT = REPO / "benchmarks" / "index_scale.py"
INDEX_SCALE_RESULTS = REPO / "results" / "index_scale.json"
PIPELINE_SCALE_RESULTS = REPO / "results" / "retrieval_scale.json"


# --- targets and metrics ------------------------------------------------------------------


class Target(BaseModel):
    """One gold item of a question: a page, a passage unit, or a fact (its terms).

    A passage satisfies it when it is on ``doc_id`` and, as set: of ``kind``; on ``page``;
    its own id or parent id is ``unit``; it holds every term of ``terms``.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    doc_id: str
    page: int | None = None
    unit: str | None = None
    terms: frozenset[str] = frozenset()
    kind: PassageKind | None = Field(default=None, description="a table row or a sentence")

    def found_in(self, passage: Passage) -> bool:
        """Whether ``passage`` satisfies this target."""
        if passage.doc_id != self.doc_id or self.kind not in (None, passage.kind):
            return False
        if self.page is not None and passage.page != self.page:
            return False
        if self.unit is not None and self.unit not in (passage.id, passage.parent_id):
            return False
        return self.terms <= frozenset(tokenize(passage.text)) if self.terms else True


class EvalQuery(BaseModel):
    """A question and its gold targets."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    question: str
    targets: tuple[Target, ...] = Field(min_length=1)


def found_targets(ranked: Sequence[Passage], targets: Iterable[Target], k: int) -> int:
    """How many ``targets`` some passage among the first ``k`` of ``ranked`` satisfies."""
    top = ranked[:k]
    return sum(any(t.found_in(p) for p in top) for t in targets)


def query_score(ranked: Sequence[Passage], query: EvalQuery, k: int, metric: Metric) -> float:
    """Hit@k (1.0 when any target is found) or Recall@k (the share found) of one query."""
    found = found_targets(ranked, query.targets, k)
    return float(found > 0) if metric == "hit" else found / len(query.targets)


def percentile(samples: Sequence[float], q: float) -> float:
    """The ``q``-quantile (0..1) of ``samples`` by the nearest rank; NaN when empty."""
    if not samples:
        return float("nan")
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


# --- gold per dataset ---------------------------------------------------------------------


def financebench_queries(data_dir: str | Path | None = None) -> list[EvalQuery]:
    """FinanceBench dev questions whose PDFs are all present, gold = evidence pages (1-based)."""
    queries = []
    for record in load_dataset("financebench:dev", data_dir):
        if record.meta.get("missing_pdfs"):
            continue
        targets = tuple(
            dict.fromkeys(Target(doc_id=e.doc_name, page=e.page + 1) for e in record.evidence)
        )
        if targets:
            queries.append(EvalQuery(id=record.id, question=record.question, targets=targets))
    return queries


def record_targets(record: QARecord) -> tuple[Target, ...]:
    """A FinQA / TAT-QA record's gold as targets on the passages its context is indexed as
    (:func:`~filingqa.retrieval.ingest.context_passages`): a gold table row is a terms
    target (the table passage or row group holding it), a gold paragraph its passage unit,
    and table evidence without rows (TAT-QA) the first table's unit."""
    from filingqa.retrieval.ingest import context_passages

    passages = context_passages(record)
    if not passages or record.context is None:
        return ()
    prefix = f"{passages[0].doc_id}:p{passages[0].page}"
    doc_id = passages[0].doc_id
    order = [p.id for p in record.context.paragraphs]
    rows = record.context.tables[0].rows if record.context.tables else []
    targets: list[Target] = []
    for evidence in record.evidence:
        for row in evidence.table_rows:
            if terms := frozenset(tokenize(" ".join(rows[row]))):
                targets.append(Target(doc_id=doc_id, terms=terms, kind="table"))
        ids = [t for t in evidence.text_ids if t in order]
        targets += [Target(doc_id=doc_id, unit=f"{prefix}:text{order.index(t) + 1}") for t in ids]
        if not evidence.table_rows and not evidence.text_ids and rows:
            targets.append(Target(doc_id=doc_id, unit=f"{prefix}:table1"))
    return tuple(dict.fromkeys(targets))


def dataset_queries(spec: str, data_dir: str | Path | None = None) -> list[EvalQuery]:
    """The questions of a FinQA (original format) or TAT-QA split with :func:`record_targets`."""
    queries = []
    for record in load_dataset(spec, data_dir):
        if targets := record_targets(record):
            queries.append(EvalQuery(id=record.id, question=record.question, targets=targets))
    return queries


def tatqa_queries(data_dir: str | Path | None = None) -> list[EvalQuery]:
    """TAT-QA dev questions, gold = their table (answers from it) and relevant paragraphs."""
    return dataset_queries("tatqa:dev", data_dir)


def _text_key(text: str) -> str:
    return " ".join(text.lower().split()).strip(" .")


RowKey = tuple[str, tuple[float | None, ...]]


def row_key(row: Sequence[str]) -> RowKey:
    """A table row compared by label and numeric values ("$ -633 ( 633 )" == "-633")."""
    return _text_key(row[0]) if row else "", tuple(finqa_number(c) for c in row[1:])


class Fact(BaseModel):
    """A gold supporting fact located in a record's context: table row or paragraph index."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    row: int | None = None
    paragraph: int | None = None


def _facts_from_original(original: QARecord, target: QARecord) -> set[Fact]:
    """``finqa:dev_sample200`` gold facts located in the dev848 record ``target``."""
    rows = target.context.tables[0].rows if target.context.tables else []
    row_at = {row_key(row): i for i, row in reversed(list(enumerate(rows)))}
    sentence_at = {_text_key(p.text): i for i, p in enumerate(target.context.paragraphs)}
    table = original.context.tables[0].rows
    paragraphs = {p.id: p.text for p in original.context.paragraphs}
    found: set[Fact] = set()
    for evidence in original.evidence:
        keys = (row_key(table[i]) for i in evidence.table_rows)
        found |= {Fact(row=row_at[k]) for k in keys if k in row_at}
        texts = (_text_key(paragraphs[t]) for t in evidence.text_ids if t in paragraphs)
        found |= {Fact(paragraph=sentence_at[t]) for t in texts if t in sentence_at}
    return found


def _facts_from_conversation(turn: QARecord, target: QARecord) -> set[Fact]:
    """A ConvFinQA first turn's gold (table rows but the header, gold sentences) in dev848."""
    rows = target.context.tables[0].rows if target.context.tables else []
    row_at = {row_key(row): i for i, row in reversed(list(enumerate(rows)))}
    sentence_at = {_text_key(p.text): i for i, p in enumerate(target.context.paragraphs)}
    table = turn.context.tables[0].rows if turn.context and turn.context.tables else []
    found: set[Fact] = set()
    for evidence in turn.evidence:
        keys = (row_key(table[i]) for i in evidence.table_rows if i > 0)
        found |= {Fact(row=row_at[k]) for k in keys if k in row_at}
        if not evidence.table_rows:
            flat = _text_key(evidence.text)
            held = (i for t, i in sentence_at.items() if len(t) > 20 and t in flat)
            found |= {Fact(paragraph=i) for i in held}
    return found


def finqa_dev_facts(
    records: Sequence[QARecord], data_dir: str | Path | None = None
) -> dict[str, set[Fact]]:
    """Gold facts per ``finqa:dev848`` question id, where a dev copy with facts has them
    (``finqa:dev_sample200`` first, else a single-question ConvFinQA dev first turn)."""
    by_id = {r.id: r for r in records if r.context is not None}
    gold: dict[str, set[Fact]] = {}
    for turn in load_dataset("convfinqa:dev", data_dir):
        meta = turn.meta
        first = meta["kind"] == "Single" and meta["turn"] == 0 and meta["finqa_id"] in by_id
        if first and (found := _facts_from_conversation(turn, by_id[meta["finqa_id"]])):
            gold[meta["finqa_id"]] = found
    for original in load_dataset("finqa:dev_sample200", data_dir):
        if original.id in by_id and (found := _facts_from_original(original, by_id[original.id])):
            gold[original.id] = found
    return gold


def fact_text(record: QARecord, fact: Fact) -> str:
    """The words of a fact: the row's cells, or the paragraph."""
    if fact.row is not None:
        return " ".join(record.context.tables[0].rows[fact.row])
    return record.context.paragraphs[fact.paragraph].text


def finqa_queries(data_dir: str | Path | None = None) -> list[EvalQuery]:
    """FinQA dev848 questions with gold facts, each fact a terms target on its document."""
    records = load_dataset("finqa:dev848", data_dir)
    gold = finqa_dev_facts(records, data_dir)
    queries = []
    for record in records:
        if record.id not in gold:
            continue
        doc_id = record.documents[0]
        facts = sorted(gold[record.id], key=str)
        targets = tuple(
            dict.fromkeys(
                Target(doc_id=doc_id, terms=terms, kind="table" if f.row is not None else "text")
                for f in facts
                if (terms := frozenset(tokenize(fact_text(record, f))))
            )
        )
        if targets:
            queries.append(EvalQuery(id=record.id, question=record.question, targets=targets))
    return queries


GOLD: dict[str, Callable[[str | Path | None], list[EvalQuery]]] = {
    "financebench": financebench_queries,
    "finqa:dev": finqa_queries,
    "tatqa:dev": tatqa_queries,
}


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


class ScaleLatency(BaseModel):
    """Query latency measured at :data:`SCALE_PASSAGES` synthetic passages."""

    model_config = ConfigDict(extra="forbid")

    what: str = Field(description="what was timed: the index's hybrid search, or a setting")
    passages: int
    p50_ms: float
    p95_ms: float
    cpu_p50_ms: float | None = None
    source: str


class RetrievalResults(BaseModel):
    """What :func:`run_retrieval_evaluation` measured."""

    model_config = ConfigDict(extra="forbid")

    dataset: str
    metric: Metric
    ks: list[int]
    queries: int
    targets: int
    index: IndexStats
    settings: list[SettingResult]
    scale: list[ScaleLatency]
    reranker: dict[str, object] | None = Field(description="the reranker's training report")
    seconds: float


# --- running ------------------------------------------------------------------------------


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
    corpus: str, data_dir: str | Path | None = None, progress: bool = True
) -> IndexStats:
    """Build (or complete) the index of ``corpus`` under its default directory."""
    from filingqa.retrieval.corpus import build_index, dataset_index_name, default_index_dir

    location = default_index_dir(dataset_index_name(corpus))
    report = build_index(
        location, dataset=corpus, data_dir=Path(data_dir) if data_dir else None, progress=progress
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
    label = "hit" if metric == "hit" else "recall"
    return SettingResult(
        setting=name,
        scores={f"{label}@{k}": round(statistics.fmean(v), 4) for k, v in scores.items() if v},
        p50_ms=round(percentile(times, 0.5), 1),
        p95_ms=round(percentile(times, 0.95), 1),
        cpu_p50_ms=round(percentile(cpu, 0.5), 1),
    )


def scale_latency(workdir: Path | None = None) -> list[ScaleLatency]:
    """Latency at 100k passages: the index's hybrid search (``results/index_scale.json``,
    written by ``benchmarks/index_scale.py scale``; run now when absent) and each pipeline
    setting (``results/retrieval_scale.json`` from ``benchmarks/retrieval_scale.py``, when
    present). Empty when neither benchmark is in this checkout."""
    out = [row for row in [_index_scale(workdir)] if row is not None]
    if PIPELINE_SCALE_RESULTS.is_file():
        measured = json.loads(PIPELINE_SCALE_RESULTS.read_text())
        source = str(PIPELINE_SCALE_RESULTS.relative_to(REPO))
        out += [
            ScaleLatency(
                what=f"pipeline {name}",
                passages=measured["passages"],
                p50_ms=row["p50"],
                p95_ms=row["p95"],
                cpu_p50_ms=row.get("cpu_p50"),
                source=source,
            )
            for name, row in measured["settings"].items()
        ]
    return out


def _index_scale(workdir: Path | None) -> ScaleLatency | None:
    if INDEX_SCALE_RESULTS.is_file():
        for row in json.loads(INDEX_SCALE_RESULTS.read_text()).get("scale", []):
            if row.get("engine") == "edge" and row.get("n") == SCALE_PASSAGES:
                source = str(INDEX_SCALE_RESULTS.relative_to(REPO))
                return _index_row(row, source)
    if not INDEX_SCALE_SCRIPT.is_file():
        return None
    import importlib.util
    import tempfile

    spec = importlib.util.spec_from_file_location("index_scale", INDEX_SCALE_SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with tempfile.TemporaryDirectory(dir=workdir) as tmp:
        row = module.scale_run("edge", SCALE_PASSAGES, Path(tmp), SCALE_QUERIES)
    return _index_row(row, "benchmarks/index_scale.py scale_run (this run)")


def _index_row(row: dict[str, Any], source: str) -> ScaleLatency:
    hybrid = row["hybrid"]
    return ScaleLatency(
        what="index hybrid search",
        passages=row["n"],
        p50_ms=hybrid["p50"],
        p95_ms=hybrid["p95"],
        source=source,
    )


def reranker_dir(corpus: str) -> Path:
    """The trained reranker to score on ``corpus``: the default artifact, unless it was
    trained on that very split; then its held-out sibling ``reranker-without-<corpus>``
    (trained without it), so no score comes from a model that saw its questions."""
    from filingqa.retrieval.corpus import dataset_index_name
    from filingqa.retrieval.rerank import default_artifact_dir

    default = default_artifact_dir()
    report = training_report(default)
    if report is not None and corpus in report.get("train_specs", []):
        return default.with_name(f"{default.name}-without-{dataset_index_name(corpus)}")
    return default


def training_report(directory: Path) -> dict[str, object] | None:
    """The main facts of the training report saved with a reranker (None if there is none)."""
    from filingqa.retrieval.rerank import TRAINING_FILE

    path = directory / TRAINING_FILE
    if not path.is_file():
        return None
    report = json.loads(path.read_text())
    keep = ("out_dir", "source", "train_specs", "eval_specs", "groups", "cross_validation")
    return {key: report[key] for key in keep if key in report}


def run_retrieval_evaluation(
    dataset: str,
    *,
    settings: list[str] | None = None,
    limit: int | None = None,
    data_dir: str | Path | None = None,
    json_out: Path | None = None,
    progress: bool = True,
) -> RetrievalResults:
    """Score each retrieval setting on ``dataset`` (``financebench``, ``finqa:dev`` or
    ``tatqa:dev``) over its whole corpus; write the results to ``json_out`` if given.

    Raises:
        ValueError: an unknown dataset or setting.
    """
    from filingqa.retrieval.search import FilingSearch

    if dataset not in DATASETS:
        raise ValueError(f"no retrieval benchmark for {dataset!r}; available: {list(DATASETS)}")
    names = check_settings(settings)
    started = time.perf_counter()
    corpus, metric, ks = DATASETS[dataset]
    queries = GOLD[dataset](data_dir)
    queries = queries[:limit] if limit else queries
    stats = ensure_index(corpus, data_dir, progress)
    model = reranker_dir(corpus)
    base = FilingSearch.open(Path(stats.location), reranker=model, settings=SearchSettings())
    try:
        results = []
        for name in names:
            search = base.with_settings(**SETTING_OPTIONS[name])

            def run(question: str, k: int, search: FilingSearch = search) -> list[Passage]:
                return [r.passage for r in search.ranked(question, k=k)]

            results.append(evaluate_setting(run, queries, metric, ks, name, progress))
    finally:
        base.close()
    out = RetrievalResults(
        dataset=dataset,
        metric=metric,
        ks=list(ks),
        queries=len(queries),
        targets=sum(len(q.targets) for q in queries),
        index=stats,
        settings=results,
        scale=scale_latency(),
        reranker=training_report(model) if "+reranker" in names else None,
        seconds=round(time.perf_counter() - started, 1),
    )
    if json_out is not None:
        json_out.parent.mkdir(parents=True, exist_ok=True)
        json_out.write_text(json.dumps(out.model_dump(mode="json"), indent=2) + "\n")
    return out


def format_retrieval_table(results: RetrievalResults) -> str:
    """The settings as a table (scores in percent, latency in ms), then index and scale."""
    metrics = list(results.settings[0].scores) if results.settings else []
    header = f"{'setting':<16}" + "".join(f"{m:>11}" for m in metrics)
    lines = [
        f"{results.dataset}: {results.queries} questions, {results.targets} gold targets, "
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
        trained = ", ".join(str(s) for s in results.reranker.get("train_specs", []))
        lines.append(f"reranker: {results.reranker.get('out_dir')} (trained on {trained})")
    for scale in results.scale:
        lines.append(
            f"{scale.what} at {scale.passages:,} passages: p50 {scale.p50_ms:.1f} ms, "
            f"p95 {scale.p95_ms:.1f} ms"
            + ("" if scale.cpu_p50_ms is None else f", cpu p50 {scale.cpu_p50_ms:.1f} ms")
            + f" ({scale.source})"
        )
    return "\n".join(lines)
