"""Search-pipeline latency at 100k passages: each retrieval setting, reranker included.

The index is the corpus of :mod:`filingqa.evaluation.retrieval.synthetic_filings` (60
companies x 10 years of 10-K and 10-Q table and MD&A passages, random 384-d passage
vectors), built once under ``FILINGQA_HOME/indexes/scale-<n>`` and reused; queries are its
questions, embedded by the real MiniLM (uncached, so its cost is in the timing). Each
setting runs :class:`~filingqa.retrieval.search.pipeline.FilingSearch` as ``filingqa eval
--mode retrieval`` does (no metadata store: the synthetic filings have none, so
``hybrid+filters`` equals ``hybrid``); the reranker is the default artifact. Wall time is at
the mercy of other load on the machine; CPU time (``cpu_p50``, all threads of this process)
is what a query costs. Results go to ``results/retrieval_scale.json``, which the retrieval
evaluation reports.

From the repo root, with the shared data beside it:

    FILINGQA_DATA_DIR=../shared/datasets nice -n 19 \\
        .venv/bin/python benchmarks/retrieval_scale.py [--n 100000]
"""

from __future__ import annotations

import argparse
import json
import os
import time
from datetime import UTC, datetime
from pathlib import Path

from filingqa.evaluation.retrieval import synthetic_filings as synthetic
from filingqa.evaluation.retrieval.quality import SETTING_OPTIONS, SETTINGS, percentile
from filingqa.retrieval.index.embedder import Embedder
from filingqa.retrieval.index.locations import default_index_dir
from filingqa.retrieval.index.passage_index import PassageIndex
from filingqa.retrieval.search.pipeline import FilingSearch, SearchSettings, load_reranker

RESULTS = Path(__file__).resolve().parents[1] / "results" / "retrieval_scale.json"
WARMUP = 10


def open_index(n: int, embedder: Embedder) -> tuple[PassageIndex, float | None]:
    """The synthetic index of ``n`` passages (built when missing) and its build seconds."""
    index = PassageIndex.open(default_index_dir(f"scale-{n}"), embedder)
    if index.count() >= n:
        return index, None
    started = time.perf_counter()
    docs = synthetic.documents()
    index.add(synthetic.passages(n, docs), docs, batch_size=512, progress=True)
    return index, round(time.perf_counter() - started, 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args()
    index, build_s = open_index(args.n, synthetic.minilm_queries())
    questions = [text for text, _ in synthetic.queries(args.queries + WARMUP)]
    base = FilingSearch(index, None, load_reranker("default"), SearchSettings())
    rows = {}
    try:
        for name in SETTINGS:
            search = base.with_settings(**SETTING_OPTIONS[name])
            times, cpu = [], []
            for i, question in enumerate(questions):
                started, cpu_started = time.perf_counter(), time.process_time()
                search.ranked(question, k=10)
                if i >= WARMUP:
                    times.append(1000 * (time.perf_counter() - started))
                    cpu.append(1000 * (time.process_time() - cpu_started))
            rows[name] = {f"p{q}": round(percentile(times, q / 100), 1) for q in (50, 95)}
            rows[name]["cpu_p50"] = round(percentile(cpu, 0.5), 1)
            print(name, rows[name])
    finally:
        index.close()
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(
        json.dumps(
            {
                "benchmark": "search pipeline latency per setting (ms), synthetic passages",
                "passages": args.n,
                "queries": args.queries,
                "build_s": build_s,
                "load_avg_1m": round(os.getloadavg()[0], 2),
                "settings": rows,
                "updated": datetime.now(UTC).isoformat(),
            },
            indent=2,
        )
        + "\n"
    )
    print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()
