"""FinanceBench page Hit@k with a reranker that also learns from FinanceBench, by company folds.

The shipped reranker never sees FinanceBench. This asks what FinanceBench questions would
add, honestly: the dev questions (PDFs present) are split into folds by company; each
fold is reranked by a model trained on the shipped training data (finqa:train_sample100 +
tatqa:dev, product-search candidates) plus the FinanceBench questions of the *other*
companies, so no score comes from a model that saw the question's company. Candidates are
the product pipeline's over the open corpus (all FinanceBench PDFs indexed together, the
``filingqa eval --mode retrieval --dataset financebench`` index), hybrid + filters +
hierarchical. Rows: the fused order, the shipped reranker, and the cross-validated one.
A question none of whose candidates is on a gold page counts as a miss everywhere.

Run it from the repo root (the FinanceBench index built, the shared data beside the repo):
``FILINGQA_DATA_DIR=../shared/datasets .venv/bin/python benchmarks/retrieval_financebench_cv.py``.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
from collections.abc import Sequence
from pathlib import Path

from filingqa.evaluation.retrieval.gold import EvalQuery, financebench_queries, query_score
from filingqa.evaluation.retrieval.quality import ensure_index
from filingqa.optimizers.reranker_fit import TrainParams, fit
from filingqa.optimizers.reranker_groups import Group, search_groups, training_groups
from filingqa.optimizers.train_reranker import (
    DEFAULT_EVAL_SPECS,
    DEFAULT_TRAIN_SPECS,
    TRAINING_SEARCH,
)
from filingqa.retrieval.ingest.filings import document_from_name
from filingqa.retrieval.search.pages import page_key, spread_pages
from filingqa.retrieval.search.pipeline import FilingSearch, SearchSettings, load_reranker
from filingqa.retrieval.search.rerank import Reranker
from filingqa.retrieval.search.rerank_features import Candidate

RESULTS = Path(__file__).resolve().parents[1] / "results" / "retrieval_financebench_cv.json"
KS = (1, 5, 10)


def company(query: EvalQuery) -> str:
    """The company a question is about (its first gold document's)."""
    doc_id = query.targets[0].doc_id
    return document_from_name(doc_id).company or doc_id


def company_folds(queries: Sequence[EvalQuery], folds: int, seed: int = 0) -> dict[str, int]:
    """``question id -> fold``, all questions about one company in one fold."""
    names = sorted({company(q) for q in queries})
    random.Random(seed).shuffle(names)
    fold_of = {name: i % folds for i, name in enumerate(names)}
    return {q.id: fold_of[company(q)] for q in queries}


def hits(order: dict[str, list], queries: Sequence[EvalQuery]) -> dict[str, float]:
    """Mean page Hit@k over all ``queries`` (a question without a ranking is a miss)."""
    return {
        f"hit@{k}": round(
            statistics.fmean(
                query_score([c.passage for c in order.get(q.id, [])], q, k, "hit") for q in queries
            ),
            4,
        )
        for k in KS
    }


def spread(order: Sequence[Candidate], settings: SearchSettings) -> list[Candidate]:
    """``order`` with the pipeline's last step: the best passages of the top pages first."""
    if not settings.spread:
        return list(order)
    return spread_pages(order, lambda c: page_key(c.passage), 3 * settings.spread, settings.spread)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path)
    parser.add_argument("--folds", type=int, default=5)
    args = parser.parse_args()
    params = TrainParams()
    queries = financebench_queries(args.data_dir)
    base, _ = training_groups(
        DEFAULT_TRAIN_SPECS, DEFAULT_EVAL_SPECS, TRAINING_SEARCH, args.data_dir
    )
    location = Path(ensure_index("financebench", args.data_dir).location)
    settings = SearchSettings()
    search = FilingSearch.open(location, reranker=None, settings=settings)
    try:
        groups: list[Group] = search_groups(queries, search)
    finally:
        search.close()
    by_id = {q.id: q for q in queries}
    fold_of = company_folds(queries, args.folds, params.seed)
    shipped = load_reranker("default")
    fused, reranked, crossed = {}, {}, {}
    for fold in range(args.folds):
        test = [g for g in groups if fold_of[g.query_id] == fold]
        train = base + [g for g in groups if fold_of[g.query_id] != fold]
        model = Reranker(fit(train, params))
        for group in test:
            question = group.question
            fused[group.query_id] = spread(group.candidates, settings)
            reranked[group.query_id] = spread(shipped.rerank(question, group.candidates), settings)
            crossed[group.query_id] = spread(model.rerank(question, group.candidates), settings)
    summary = {
        "benchmark": "FinanceBench dev page Hit@k, reranker cross-validated by company folds",
        "questions": len(queries),
        "with_a_gold_candidate": len(groups),
        "companies": len({company(q) for q in queries}),
        "folds": args.folds,
        "results": {
            "+hierarchical (fused order)": hits(fused, queries),
            "+reranker (shipped, no FinanceBench)": hits(reranked, queries),
            "+reranker (+ FinanceBench other-company folds)": hits(crossed, queries),
        },
        "gold_pages_per_question": round(statistics.fmean(len(q.targets) for q in queries), 2),
        "queries_missing_from_candidates": sorted(set(by_id) - {g.query_id for g in groups}),
    }
    for name, row in summary["results"].items():
        print(f"{name:<48}" + "".join(f"{m} {100 * v:5.1f}%  " for m, v in row.items()))
    RESULTS.write_text(json.dumps(summary, indent=2) + "\n")
    print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()
