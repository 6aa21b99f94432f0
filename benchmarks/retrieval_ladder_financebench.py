"""Issue 49's retrieval ladder in one run: FinanceBench page Hit@1/5/10 of the served search
as each step is added, per committed slice and question type, every row on the same questions.

Rows, each the served search (``FilingSearch.ranked``) with one more step than the row
before, as far as this machine holds what the step needs:

1. ``bare passages`` (item 1 off: ``--bare-index``, an index cut by the legacy recipe);
2. ``window + header, fused order``: the FinanceBench index (``--index``) without the
   narrative topic words and without the reranker;
3. ``+ topic words`` (item 2);
4. ``+ shipped reranker`` (what is served today);
5. ``+ reranker trained on the served search`` (item 4: ``--served-reranker``, from
   ``benchmarks/reranker_served_financebench.py``);
6. ``+ tuned encoder`` (item 3: ``--tuned-index`` embedded by a compile's encoder, reranked
   by ``--tuned-reranker``, trained over that encoder's indexes);
7. ``+ remote rerank`` (item 5: ``--remote-rerank MODEL`` at ``--remote-rerank-api-base``).

A row whose input is not given is left out with a line saying so. Only the report slice is
held out: the tuning slice trains the served reranker and the encoder.

    FILINGQA_DATA_DIR=../shared/datasets .venv/bin/python \\
        benchmarks/retrieval_ladder_financebench.py --served-reranker DIR \\
        --tuned-index DIR --tuned-reranker DIR --json OUT
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from tqdm import tqdm

from filingqa.evaluation.retrieval.gold import EvalQuery, financebench_queries
from filingqa.evaluation.retrieval.page_ranks import (
    FINANCEBENCH_SLICES,
    financebench_groups,
    format_rates,
    gold_rank,
    hit_rates,
    paired_hits,
)
from filingqa.retrieval.index.locations import default_index_dir
from filingqa.retrieval.search.pipeline import FilingSearch, ReRankerChoice


def ranks_of(
    index: Path, reranker: ReRankerChoice, queries: list[EvalQuery], name: str, **settings: object
) -> dict[str, int | None]:
    """Each question's gold-page rank under the served search over ``index``."""
    search = FilingSearch.open(index, reranker=reranker).with_settings(**settings)
    try:
        return {q.id: gold_rank(search, q) for q in tqdm(queries, desc=name, unit="question")}
    finally:
        search.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index", type=Path, default=default_index_dir("financebench"))
    parser.add_argument("--bare-index", type=Path)
    parser.add_argument("--served-reranker", type=Path)
    parser.add_argument("--tuned-index", type=Path)
    parser.add_argument("--tuned-reranker", type=Path)
    parser.add_argument("--remote-rerank")
    parser.add_argument("--remote-rerank-api-base")
    parser.add_argument("--data-dir", type=Path)
    parser.add_argument("--json", type=Path, required=True)
    args = parser.parse_args()
    queries = financebench_queries(args.data_dir)
    groups = financebench_groups(queries, args.data_dir)
    trained = args.index if args.served_reranker else None
    tuned = args.tuned_index if args.tuned_reranker else None
    rows: list[tuple[str, Path | None, ReRankerChoice, dict[str, object], str]] = [
        ("bare passages", args.bare_index, "default", {}, "no --bare-index"),
        ("window + header, fused order", args.index, None, {"topics": False, "rerank": False}, ""),
        ("+ topic words", args.index, None, {"rerank": False}, ""),
        ("+ shipped reranker", args.index, "default", {}, ""),
        (
            "+ reranker trained on the served search",
            trained,
            args.served_reranker,
            {},
            "no --served-reranker",
        ),
        (
            "+ tuned encoder",
            tuned,
            args.tuned_reranker,
            {},
            "no --tuned-index and --tuned-reranker",
        ),
    ]
    if args.remote_rerank:
        _, index, reranker, _, _ = [row for row in rows if row[1] is not None][-1]
        remote = {
            "remote_rerank": args.remote_rerank,
            "remote_rerank_api_base": args.remote_rerank_api_base,
        }
        rows.append(("+ remote rerank", index, reranker, remote, ""))
    else:
        rows.append(
            ("+ remote rerank", None, None, {}, "no --remote-rerank (none runs offline here)")
        )
    results: dict[str, object] = {}
    previous: dict[str, int | None] | None = None
    for name, index, reranker, settings, missing in rows:
        if index is None:
            print(f"{name}: left out ({missing})")
            continue
        ranks = ranks_of(index, reranker, queries, name, **settings)
        table = hit_rates(ranks, groups)
        print(format_rates(name, table), flush=True)
        pairs = (
            {s: paired_hits(previous, ranks, groups[s]) for s in FINANCEBENCH_SLICES}
            if previous
            else {}
        )
        for slice_name, row in pairs.items():
            cells = "  ".join(
                f"{k} won {v['won']:.0f} lost {v['lost']:.0f} p {v['p']}" for k, v in row.items()
            )
            print(f"  vs the row before, {slice_name}: {cells}")
        results[name] = {"index": index.name, "ranks": ranks, "rates": table, "vs_before": pairs}
        previous = ranks
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps({"questions": len(queries), "rows": results}, indent=1) + "\n")
    print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
