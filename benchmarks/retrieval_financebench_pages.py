"""FinanceBench page Hit@1/5/10 of the served search, per slice and question type, settings
side by side on one index and the same questions.

Every dev question whose PDFs are present is searched as the product searches
(``FilingSearch.ranked``, the shipped reranker) under each setting: ``served`` (the
defaults), ``no-topics`` (without the narrative topic words in the expansion) and
``no-rerank``. The index is opened as it is (never rebuilt), so an index cut by an older
recipe can be compared with a re-cut one, run by run. Prints Hit@k for all, per committed
slice (``financebench-dev-tuning`` first) and per question type; writes ranks by question
id (no dataset text).

    FILINGQA_DATA_DIR=../shared/datasets .venv/bin/python \\
        benchmarks/retrieval_financebench_pages.py --index DIR --json OUT
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from tqdm import tqdm

from filingqa.evaluation.retrieval.gold import financebench_queries
from filingqa.evaluation.retrieval.page_ranks import (
    financebench_groups,
    format_rates,
    gold_rank,
    hit_rates,
)
from filingqa.evaluation.retrieval.quality import reranker_dir
from filingqa.retrieval.index.locations import default_index_dir
from filingqa.retrieval.search.pipeline import FilingSearch

SETTINGS: dict[str, dict[str, object]] = {
    "served": {},
    "no-topics": {"topics": False},
    "no-rerank": {"rerank": False},
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index", type=Path, default=default_index_dir("financebench"))
    parser.add_argument("--data-dir", type=Path)
    parser.add_argument("--settings", default=",".join(SETTINGS))
    parser.add_argument("--json", type=Path, help="also write ranks and rates here")
    args = parser.parse_args()
    queries = financebench_queries(args.data_dir)
    groups = financebench_groups(queries, args.data_dir)
    base = FilingSearch.open(args.index, reranker=reranker_dir("financebench"))
    out: dict[str, object] = {"index": args.index.name, "settings": {}}
    try:
        for setting in args.settings.split(","):
            search = base.with_settings(**SETTINGS[setting])
            ranks = {
                q.id: gold_rank(search, q) for q in tqdm(queries, desc=setting, unit="question")
            }
            table = hit_rates(ranks, groups)
            print(format_rates(setting, table), flush=True)
            out["settings"][setting] = {"ranks": ranks, "rates": table}  # type: ignore[index]
    finally:
        base.close()
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
