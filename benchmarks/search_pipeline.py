"""Search pipeline latency on a built index: FinanceBench dev questions through FilingSearch.

    .venv/bin/python benchmarks/search_pipeline.py [--index DIR] [--data-dir D] [--limit N]

Opens the index ``filingqa index --dataset financebench`` built (with its metadata and the
trained reranker) and runs each dev question through ``FilingSearch.ranked(k=8)``. Query
vectors are embedded first, so the timings are of the pipeline without the query
embedding, whose cost is timed apart on an uncached embedder (on the threads search gives
it). The full pipeline is timed on its first pass over the questions (pages of the index
points cold) and again (warm); then each stage switched off (warm). Reports p50/p95 wall
and CPU milliseconds and, for the first questions, the top-3 (doc, page) with the gold
evidence pages (1-based). Writes ``results/search_pipeline.json``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path
from typing import Any

from filingqa.datasets import load_dataset
from filingqa.retrieval.index.embedder import Embedder
from filingqa.retrieval.index.locations import default_index_dir
from filingqa.retrieval.search.pipeline import QUERY_THREADS, FilingSearch

RESULTS = Path(__file__).resolve().parents[1] / "results" / "search_pipeline.json"
SETTINGS: dict[str, dict[str, Any]] = {
    "full, warm": {},
    "no filters": {"filters": False},
    "no hierarchy": {"hierarchical": False},
    "no reranker": {"rerank": False},
    "plain hybrid": {"filters": False, "hierarchical": False, "rerank": False},
}


def _percentiles(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {"p50": round(statistics.median(ordered), 1), "p95": round(p95, 1)}


def _timed(search: FilingSearch, questions: list[str]) -> dict[str, dict[str, float]]:
    wall, cpu = [], []
    for question in questions:
        started, started_cpu = time.perf_counter(), time.process_time()
        search.ranked(question, k=8)
        wall.append((time.perf_counter() - started) * 1000)
        cpu.append((time.process_time() - started_cpu) * 1000)
    return {"wall_ms": _percentiles(wall), "cpu_ms": _percentiles(cpu)}


def _embedding_ms(questions: list[str]) -> dict[str, float]:
    embedder = Embedder.load(cache=False, threads=QUERY_THREADS)
    embedder.embed_query("warm up")
    times = []
    for question in questions:
        started = time.perf_counter()
        embedder.embed_query(question)
        times.append((time.perf_counter() - started) * 1000)
    return _percentiles(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index", type=Path, default=default_index_dir("financebench"))
    parser.add_argument("--data-dir", help="evaluation data dir (default: $FILINGQA_DATA_DIR)")
    parser.add_argument("--limit", type=int, default=100, help="questions (default 100)")
    parser.add_argument("--samples", type=int, default=5, help="questions shown with top-3")
    args = parser.parse_args()
    records = load_dataset("financebench:dev", args.data_dir, limit=args.limit)
    questions = [record.question for record in records]
    search = FilingSearch.open(args.index)
    try:
        count = search.index.count()
        for question in questions:
            search.index.embedder.embed_query(question)
        timings = {"full, first pass": _timed(search, questions)}
        samples = []
        for record in records[: args.samples]:
            started = time.perf_counter()
            ranked = search.ranked(record.question, k=3)
            samples.append(
                {
                    "question": record.question,
                    "gold": sorted({(e.doc_name, (e.page or 0) + 1) for e in record.evidence}),
                    "top3": [(r.passage.doc_id, r.passage.page) for r in ranked],
                    "ms": round((time.perf_counter() - started) * 1000, 1),
                }
            )
        timings |= {
            name: _timed(search.with_settings(**changes), questions)
            for name, changes in SETTINGS.items()
        }
    finally:
        search.close()
    result = {
        "index": str(args.index),
        "passages": count,
        "questions": len(questions),
        "query_embedding_ms": _embedding_ms(questions),
        "pipeline_without_query_embedding": timings,
        "samples": samples,
    }
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
