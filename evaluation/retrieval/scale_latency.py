"""Search latency at scale: the index over a large synthetic corpus, and what the retrieval
evaluation reports of it.

:func:`scale_run` builds a :class:`~filingqa.retrieval.index.passage_index.PassageIndex`
of N passages of :mod:`~.synthetic_filings` on one embedded engine and times its build,
reopen, idempotent rerun and searches (hybrid with and without payload filters, dense and
sparse alone; on ``edge`` also hybrid with the real MiniLM embedding each query).
:func:`scale_latency` reads what ``benchmarks/index_scale.py scale`` and
``benchmarks/retrieval_scale.py`` saved under ``results/``, running :func:`scale_run` at
:data:`SCALE_PASSAGES` when the first is absent.
"""

from __future__ import annotations

import itertools
import json
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field
from tqdm import tqdm

from filingqa.evaluation.retrieval import synthetic_filings as synthetic
from filingqa.retrieval.index.filters import SearchFilters
from filingqa.retrieval.index.passage_index import Engine, PassageIndex

SEARCH_K = 10
SCALE_PASSAGES = 100_000
SCALE_QUERIES = 200
REPO = Path(__file__).resolve().parents[1]
INDEX_SCALE_RESULTS = REPO / "results" / "index_scale.json"
PIPELINE_SCALE_RESULTS = REPO / "results" / "retrieval_scale.json"
T = TypeVar("T")


# --- measuring ----------------------------------------------------------------------------


def percentiles(samples_ms: list[float]) -> dict[str, float]:
    """p50 (the median) and p95 (nearest rank) of millisecond samples, rounded."""
    ordered = sorted(samples_ms)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {"p50": round(statistics.median(ordered), 2), "p95": round(p95, 2)}


def timed(fn: Callable[[T], object], items: Iterable[T]) -> list[float]:
    """Milliseconds per call of ``fn`` on each item."""
    out = []
    for item in items:
        start = time.perf_counter()
        fn(item)
        out.append((time.perf_counter() - start) * 1000)
    return out


def disk_mb(path: Path) -> float:
    """Allocated size (qdrant-edge preallocates sparse 32 MiB files; they count as used)."""
    files = (p for p in path.rglob("*") if p.is_file())
    return round(sum(f.stat().st_blocks * 512 for f in files) / 2**20, 1)


def scale_run(engine: Engine, n: int, workdir: Path, n_queries: int) -> dict[str, Any]:
    """Build an index of ``n`` synthetic passages on ``engine`` under ``workdir`` and time
    its build and searches (milliseconds p50/p95 per search case); the index is removed."""
    docs = synthetic.documents()
    location = workdir / f"{engine}-{n}"
    shutil.rmtree(location, ignore_errors=True)
    index = PassageIndex.open(location, synthetic.random_embedder(), engine=engine)
    start = time.perf_counter()
    added = index.add(synthetic.passages(n, docs), docs, batch_size=512, progress=True)
    build_s = time.perf_counter() - start
    assert index.count() == n
    index.close()
    start = time.perf_counter()
    index = PassageIndex.open(location, synthetic.random_embedder(), engine=engine)
    open_s = time.perf_counter() - start
    row: dict[str, Any] = {
        "engine": engine,
        "n": n,
        "build_s": round(build_s, 1),
        "hnsw_build_s": round(added.commit_seconds, 1),
        "reopen_s": round(open_s, 2),
        "disk_mb": disk_mb(location),
    }
    start = time.perf_counter()
    index.add(synthetic.passages(n, docs), docs, batch_size=512, progress=False)
    row["rerun_unchanged_s"] = round(time.perf_counter() - start, 1)
    start = time.perf_counter()
    index.add(itertools.islice(synthetic.passages(n + 100, docs), n, None), docs, progress=False)
    row["add_100_more_s"] = round(time.perf_counter() - start, 2)
    row |= _search_latency(index, engine, synthetic.queries(n_queries))
    index.close()
    shutil.rmtree(location, ignore_errors=True)
    return row


def _search_latency(
    index: PassageIndex, engine: Engine, qs: list[tuple[str, SearchFilters]]
) -> dict[str, Any]:
    """p50/p95 of each search case over ``qs`` (after a warm-up)."""
    broad = SearchFilters(doc_type=["10k"], kind=["table"])
    cases: dict[str, Callable[[tuple[str, SearchFilters]], object]] = {
        "hybrid": lambda q: index.search(q[0], SEARCH_K),
        "hybrid_company_year": lambda q: index.search(q[0], SEARCH_K, filters=q[1]),
        "hybrid_10k_tables": lambda q: index.search(q[0], SEARCH_K, filters=broad),
        "dense": lambda q: index.search(q[0], SEARCH_K, mode="dense"),
        "sparse": lambda q: index.search(q[0], SEARCH_K, mode="sparse"),
    }
    row: dict[str, Any] = {}
    for name, case in cases.items():
        timed(case, qs[: max(1, len(qs) // 20)])  # warm-up
        row[name] = percentiles(timed(case, tqdm(qs, desc=f"{engine} {name}", leave=False)))
    if engine == "edge":  # end to end: the real MiniLM embeds each query (no cache)
        index.embedder = synthetic.minilm_queries()
        case = cases["hybrid_company_year"]
        timed(case, qs[:10])
        row["hybrid_company_year_minilm_query"] = percentiles(timed(case, qs))
    return row


# --- reporting ----------------------------------------------------------------------------


class ScaleLatency(BaseModel):
    """Query latency measured at :data:`SCALE_PASSAGES` synthetic passages."""

    model_config = ConfigDict(extra="forbid")

    what: str = Field(description="what was timed: the index's hybrid search, or a setting")
    passages: int
    p50_ms: float
    p95_ms: float
    cpu_p50_ms: float | None = None
    source: str


def scale_latency(workdir: Path | None = None) -> list[ScaleLatency]:
    """Latency at :data:`SCALE_PASSAGES` passages: the index's hybrid search (saved, else
    measured now under ``workdir``) and each pipeline setting (when saved)."""
    out = [_index_scale(workdir)]
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


def _index_scale(workdir: Path | None) -> ScaleLatency:
    if INDEX_SCALE_RESULTS.is_file():
        for row in json.loads(INDEX_SCALE_RESULTS.read_text()).get("scale", []):
            if row.get("engine") == "edge" and row.get("n") == SCALE_PASSAGES:
                return _index_row(row, str(INDEX_SCALE_RESULTS.relative_to(REPO)))
    with tempfile.TemporaryDirectory(dir=workdir) as tmp:
        row = scale_run("edge", SCALE_PASSAGES, Path(tmp), SCALE_QUERIES)
    return _index_row(row, f"{__name__}.scale_run (this run)")


def _index_row(row: dict[str, Any], source: str) -> ScaleLatency:
    hybrid = row["hybrid"]
    return ScaleLatency(
        what="index hybrid search",
        passages=row["n"],
        p50_ms=hybrid["p50"],
        p95_ms=hybrid["p95"],
        source=source,
    )
