"""FinanceBench page Hit@k of a reranker trained on what is served, over an index embedded by
a given encoder, scored on the questions it never trained on.

Trains a reranker as ``filingqa compile`` would over ``--embedder``'s indexes
(:func:`~filingqa.optimizers.train_reranker.train_reranker`: FinQA train_sample100 and TAT-QA
dev, plus the FinanceBench tuning slice, each searched as served: query expansion,
whole-filing scopes, pages) into ``--out``, then orders the served search's candidates of
every FinanceBench dev question (PDFs present) over that encoder's FinanceBench index three
ways: the fused order, the shipped reranker and the new one. Prints page Hit@1/5/10 per
committed slice and question type, and the new reranker's wins and losses against the
shipped one per slice (one-sided sign test); ``--against RANKS.json`` (the ``--json`` of
``retrieval_financebench_pages.py``, say over the base-encoder index) pairs it with that
run's served ranks too. Only the report slice's figures are held out: the tuning slice
trained the reranker (and, for a compile's encoder, the encoder).

    FILINGQA_DATA_DIR=../shared/datasets .venv/bin/python \\
        benchmarks/reranker_served_financebench.py --embedder NAME --out DIR --json OUT
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from filingqa.evaluation.corpora import dataset_index_name
from filingqa.evaluation.retrieval.gold import financebench_queries
from filingqa.evaluation.retrieval.page_ranks import (
    FINANCEBENCH_SLICES,
    financebench_groups,
    ordering_results,
    paired_hits,
    spread,
)
from filingqa.optimizers.reranker_groups import search_groups
from filingqa.optimizers.train_reranker import DEFAULT_TRAIN_SPECS, train_reranker
from filingqa.retrieval.index.locations import default_index_dir
from filingqa.retrieval.search.pipeline import FilingSearch, SearchSettings, load_reranker
from filingqa.retrieval.search.rerank import Reranker
from filingqa.retrieval.search.rerank_features import Candidate

TUNING_SLICE = FINANCEBENCH_SLICES[0]
ROWS = ("fused order", "shipped reranker", "reranker trained on the served search")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--embedder", help="the encoder of every index (default: MiniLM)")
    parser.add_argument("--out", type=Path, required=True, help="where the reranker goes")
    parser.add_argument("--reuse", action="store_true", help="score the reranker in --out")
    parser.add_argument("--against", type=Path, help="another run's served ranks to pair with")
    parser.add_argument("--data-dir", type=Path)
    parser.add_argument("--json", type=Path, required=True)
    args = parser.parse_args()
    settings = SearchSettings()
    if not args.reuse:
        report = train_reranker(
            DEFAULT_TRAIN_SPECS,
            args.out,
            train_slices=(TUNING_SLICE,),
            data_dir=args.data_dir,
            settings=settings,
            progress=True,
            embedder=args.embedder,
        )
        print(f"trained on {report.groups} groups; cross-validation {report.cross_validation}")
        print("feature gain:", json.dumps(report.feature_gain))
    trained = Reranker.load(args.out)
    queries = financebench_queries(args.data_dir)
    location = default_index_dir(dataset_index_name("financebench", args.embedder))
    search = FilingSearch.open(location, reranker=None, settings=settings)
    try:
        groups = search_groups(queries, search)
    finally:
        search.close()
    shipped = load_reranker("default")
    orders: dict[str, dict[str, list[Candidate]]] = {name: {} for name in ROWS}
    for group in groups:
        question, candidates = group.question, group.candidates
        orders[ROWS[0]][group.query_id] = spread(candidates, settings)
        orders[ROWS[1]][group.query_id] = spread(shipped.rerank(question, candidates), settings)
        orders[ROWS[2]][group.query_id] = spread(trained.rerank(question, candidates), settings)
    by_group = financebench_groups(queries, args.data_dir)
    results = ordering_results(orders, queries, by_group)
    new_ranks = results[ROWS[2]]["ranks"]
    baselines = {"shipped reranker": results[ROWS[1]]["ranks"]}
    if args.against:
        baselines[f"served, {args.against.name}"] = json.loads(args.against.read_text())[
            "settings"
        ]["served"]["ranks"]
    pairs = {
        name: {s: paired_hits(ranks, new_ranks, by_group[s]) for s in FINANCEBENCH_SLICES}
        for name, ranks in baselines.items()
    }
    for name, table in pairs.items():
        for slice_name, row in table.items():
            cells = "  ".join(
                f"{k} won {v['won']:.0f} lost {v['lost']:.0f} p {v['p']}" for k, v in row.items()
            )
            print(f"new vs {name}, {slice_name}: {cells}")
    summary = {
        "benchmark": "FinanceBench dev page Hit@k, a reranker trained on the served search",
        "embedder": args.embedder,
        "index": location.name,
        "questions": len(queries),
        "with_a_gold_candidate": len(groups),
        "results": results,
        "paired": pairs,
    }
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(summary, indent=1) + "\n")
    print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
