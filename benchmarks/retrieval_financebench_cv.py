"""FinanceBench page Hit@k with a reranker that also learns from FinanceBench, by company folds.

The shipped reranker never sees FinanceBench. This asks what FinanceBench questions would
add, honestly: the dev questions (PDFs present) are split into folds by company; each
fold is reranked by a model trained on the shipped training data (finqa:train_sample100 +
tatqa:dev, product-search candidates) plus the FinanceBench questions of the *other*
companies, so no score comes from a model that saw the question's company. Candidates are
the served search's over the open corpus (all FinanceBench PDFs indexed together, the
``filingqa eval --mode retrieval --dataset financebench`` index, or ``--index``); the
FinQA/TAT-QA groups are gathered with the shipped reranker's training search or, with
``--training-search served``, the served one. Rows: the fused order, the shipped reranker,
and the cross-validated one, each as page Hit@1/5/10 for all questions, per committed slice
and per question type. A question none of whose candidates is on a gold page counts as a
miss everywhere.

Run it from the repo root (the shared data beside the repo):

    FILINGQA_DATA_DIR=../shared/datasets .venv/bin/python \\
        benchmarks/retrieval_financebench_cv.py --index DIR --json OUT
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from filingqa.evaluation.retrieval.gold import financebench_queries
from filingqa.evaluation.retrieval.page_ranks import (
    company,
    company_folds,
    financebench_groups,
    ordering_results,
    spread,
)
from filingqa.evaluation.retrieval.quality import ensure_index
from filingqa.optimizers.reranker_fit import TrainParams, fit
from filingqa.optimizers.reranker_groups import Group, search_groups, training_groups
from filingqa.optimizers.train_reranker import (
    DEFAULT_EVAL_SPECS,
    DEFAULT_TRAIN_SPECS,
    TRAINING_SEARCH,
)
from filingqa.retrieval.search.pipeline import FilingSearch, SearchSettings, load_reranker
from filingqa.retrieval.search.rerank import Reranker
from filingqa.retrieval.search.rerank_features import Candidate

RESULTS = Path(__file__).resolve().parents[1] / "results" / "retrieval_financebench_cv.json"
ROWS = (
    "fused order",
    "shipped reranker",
    "reranker + FinanceBench other-company folds",
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path)
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--index", type=Path, help="FinanceBench index (default: build/reuse)")
    parser.add_argument(
        "--training-search",
        choices=("shipped", "served"),
        default="shipped",
        help="the search the FinQA/TAT-QA groups are gathered with: the shipped reranker's, "
        "or the one served",
    )
    parser.add_argument("--json", type=Path, default=RESULTS)
    args = parser.parse_args()
    params = TrainParams()
    queries = financebench_queries(args.data_dir)
    settings = SearchSettings()
    training = TRAINING_SEARCH if args.training_search == "shipped" else settings
    base, _ = training_groups(DEFAULT_TRAIN_SPECS, DEFAULT_EVAL_SPECS, training, args.data_dir)
    location = args.index or Path(ensure_index("financebench", args.data_dir).location)
    search = FilingSearch.open(location, reranker=None, settings=settings)
    try:
        groups: list[Group] = search_groups(queries, search)
    finally:
        search.close()
    by_id = {q.id: q for q in queries}
    fold_of = company_folds(queries, args.folds, params.seed)
    shipped = load_reranker("default")
    orders: dict[str, dict[str, list[Candidate]]] = {name: {} for name in ROWS}
    for fold in range(args.folds):
        test = [g for g in groups if fold_of[g.query_id] == fold]
        train = base + [g for g in groups if fold_of[g.query_id] != fold]
        model = Reranker(fit(train, params))
        for group in test:
            question, candidates = group.question, group.candidates
            orders[ROWS[0]][group.query_id] = spread(candidates, settings)
            orders[ROWS[1]][group.query_id] = spread(shipped.rerank(question, candidates), settings)
            orders[ROWS[2]][group.query_id] = spread(model.rerank(question, candidates), settings)
    results = ordering_results(orders, queries, financebench_groups(queries, args.data_dir))
    summary = {
        "benchmark": "FinanceBench dev page Hit@k, reranker cross-validated by company folds",
        "index": location.name,
        "training_search": args.training_search,
        "questions": len(queries),
        "with_a_gold_candidate": len(groups),
        "companies": len({company(q) for q in queries}),
        "folds": args.folds,
        "results": results,
        "queries_missing_from_candidates": sorted(set(by_id) - {g.query_id for g in groups}),
    }
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(summary, indent=1) + "\n")
    print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
