"""FinanceBench page Hit@k with the embedder fine-tuned by company folds (issue 49, item 3).

The dev questions (PDFs present) are split into folds by company. For each fold the pinned
MiniLM weights are fine-tuned (:mod:`filingqa.optimizers.encoder_fine_tune`) on contrastive
examples from the served search's candidates, their negatives typed
(:mod:`filingqa.optimizers.encoder_examples`): the FinanceBench questions of the *other*
companies (tuning and report slices alike: this is cross-validation, nothing is shipped) and
a sample of the shipped reranker's training splits (FinQA/TAT-QA, searched as served). The
fold's questions are then scored on the candidates the served search handed its reranker
(first stage by the index's encoder, so the tuned encoder only reorders them: a floor on
what it adds, not its whole effect).

Rows, each page Hit@1/5/10 for all questions, per committed slice and per question type:
the fused order, the shipped reranker, the dense score alone (base, then the fold's tuned
encoder), the shipped reranker fed the tuned encoder's dense score, and a reranker trained
per fold (the other folds' groups and the FinQA/TAT-QA sample) on the base or the tuned
dense score.

    FILINGQA_DATA_DIR=../shared/datasets .venv/bin/python \\
        benchmarks/encoder_financebench_cv.py --index DIR --json OUT
"""

from __future__ import annotations

import argparse
import json
import pickle
import random
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

import numpy as np

from filingqa.evaluation.retrieval.gold import (
    EvalQuery,
    dataset_queries,
    financebench_queries,
)
from filingqa.evaluation.retrieval.page_ranks import (
    company_folds,
    financebench_groups,
    ordering_results,
    spread,
)
from filingqa.evaluation.retrieval.quality import ensure_index
from filingqa.models.embedding import is_tuned_encoder
from filingqa.models.registry import MINILM_L6_V2_WEIGHTS
from filingqa.models.store import ensure_embedding
from filingqa.optimizers.encoder_examples import (
    HARD_NEGATIVES,
    ContrastiveExample,
    examples_from_groups,
)
from filingqa.optimizers.encoder_fine_tune import EncoderSettings, fine_tune
from filingqa.optimizers.reranker_fit import fit
from filingqa.optimizers.reranker_groups import Group, search_groups
from filingqa.optimizers.train_reranker import DEFAULT_TRAIN_SPECS
from filingqa.retrieval.index.embedder import Embedder
from filingqa.retrieval.index.passage_index import stored_embedder
from filingqa.retrieval.search.pipeline import FilingSearch, SearchSettings, load_reranker
from filingqa.retrieval.search.rerank import Reranker
from filingqa.retrieval.search.rerank_features import Candidate, feature_matrix, query_info

T = TypeVar("T")
RESULTS = Path(__file__).resolve().parents[1] / "results" / "encoder_financebench_cv.json"
ROWS = (
    "fused order",
    "shipped reranker",
    "shipped reranker, base dense score for every candidate",
    "dense alone, base encoder",
    "dense alone, tuned encoder",
    "shipped reranker, tuned dense score",
    "reranker trained by fold, base dense score",
    "reranker trained by fold, tuned dense score",
)


def searched_groups(
    corpus: str | Path, questions: Sequence[EvalQuery], settings: SearchSettings
) -> tuple[list[Group], dict[str, str]]:
    """The served search's reranker groups of ``questions`` over the index at ``corpus`` (a
    folder) or of ``corpus`` (a dataset spec), and each candidate's text as embedded."""
    location = corpus if isinstance(corpus, Path) else Path(ensure_index(corpus).location)
    search = FilingSearch.open(location, reranker=None, settings=settings)
    try:
        groups = search_groups(questions, search)
        recipe = search.index.recipe
        texts = {
            c.passage.id: recipe.embedding_text(c.passage, c.document)
            if c.document is not None
            else c.passage.text
            for g in groups
            for c in g.candidates
        }
    finally:
        search.close()
    return groups, texts


def cached(path: Path | None, make: Callable[[], T]) -> T:
    """``make()``, kept in ``path`` (pickle) and read from it on later runs."""
    if path is not None and path.is_file():
        return pickle.loads(path.read_bytes())  # type: ignore[no-any-return]
    made = make()
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(pickle.dumps(made))
    return made


def with_dense(
    question: str, candidates: list[Candidate], embedder: Embedder, texts: dict[str, str]
) -> list[Candidate]:
    """``candidates`` with ``embedder``'s cosine of question and passage as their dense score
    and rank."""
    query = embedder.embed_query(question)
    vectors = embedder.embed_passages([texts[c.passage.id] for c in candidates])
    scores = vectors @ query
    ranks = np.argsort(np.argsort(-scores)) + 1
    return [
        c.model_copy(update={"dense_score": float(s), "dense_rank": int(r)})
        for c, s, r in zip(candidates, scores, ranks, strict=True)
    ]


def rescored(group: Group, embedder: Embedder, texts: dict[str, str]) -> Group:
    """``group`` with ``embedder``'s dense scores and the features they make."""
    candidates = with_dense(group.question, group.candidates, embedder, texts)
    features = feature_matrix(group.question, candidates, query_info(group.question, candidates))
    return Group(group.query_id, group.question, group.doc_id, candidates, features, group.labels)


def by_dense(candidates: list[Candidate]) -> list[Candidate]:
    """``candidates`` by dense score, best first."""
    return sorted(candidates, key=lambda c: -(c.dense_score or 0.0))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path)
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--index", type=Path, help="FinanceBench index (default: build/reuse)")
    parser.add_argument("--base-questions", type=int, default=300, help="FinQA/TAT-QA sample")
    parser.add_argument(
        "--base-examples", type=int, help="train on a sample of this many FinQA/TAT-QA examples"
    )
    parser.add_argument("--hard-negatives", type=int, default=HARD_NEGATIVES)
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--learning-rate", type=float, default=2e-5)
    parser.add_argument("--groups-cache", type=Path, help="keep the searched groups here")
    parser.add_argument("--encoders", type=Path, help="keep each fold's encoder here")
    parser.add_argument(
        "--gather-only", action="store_true", help="search and cache the groups, then stop"
    )
    parser.add_argument(
        "--reuse-encoders", action="store_true", help="keep each fold's encoder from --encoders"
    )
    parser.add_argument(
        "--dense-only",
        action="store_true",
        help="score each fold's questions only (no reranker trained by fold): far fewer "
        "candidates embedded by each fold's encoder",
    )
    parser.add_argument("--json", type=Path, default=RESULTS)
    args = parser.parse_args()
    started = time.perf_counter()
    settings = SearchSettings()
    queries = financebench_queries(args.data_dir)
    location = args.index or Path(ensure_index("financebench", args.data_dir).location)

    def gather() -> tuple[list[Group], dict[str, str], list[Group], dict[str, str]]:
        groups, texts = searched_groups(location, queries, settings)
        rng = random.Random(0)
        base_groups, base_texts = [], {}
        for spec in DEFAULT_TRAIN_SPECS:
            questions = dataset_queries(spec, args.data_dir)
            sample = rng.sample(questions, min(len(questions), args.base_questions // 2))
            found, found_texts = searched_groups(spec, sample, settings)
            base_groups += found
            base_texts |= found_texts
        return groups, texts, base_groups, base_texts

    groups, texts, base_groups, base_texts = cached(args.groups_cache, gather)
    print(f"{len(groups)} FinanceBench groups, {len(base_groups)} FinQA/TAT-QA groups", flush=True)
    if args.gather_only:
        return
    negatives = args.hard_negatives
    base_examples = examples_from_groups(
        base_groups, lambda c: base_texts[c.passage.id], hard_negatives=negatives
    )
    if args.base_examples is not None and args.base_examples < len(base_examples):
        base_examples = random.Random(0).sample(base_examples, args.base_examples)
    all_texts = texts | base_texts
    fold_of = company_folds(queries, args.folds)
    base = Embedder.load(stored_embedder(location))
    shipped = load_reranker("default")
    weights = ensure_embedding(MINILM_L6_V2_WEIGHTS)
    encoders = args.encoders or Path(tempfile.mkdtemp(prefix="filingqa-encoders-"))
    tune = EncoderSettings(
        epochs=args.epochs, batch_size=args.batch_size, learning_rate=args.learning_rate
    )
    rows = ROWS[:-2] if args.dense_only else ROWS
    scored_groups = groups if args.dense_only else [*groups, *base_groups]
    by_base = {g.query_id: rescored(g, base, all_texts) for g in scored_groups}
    orders: dict[str, dict[str, list[Candidate]]] = {name: {} for name in rows}
    trainings = []
    for fold in range(args.folds):
        test = [g for g in groups if fold_of[g.query_id] == fold]
        train = [g for g in groups if fold_of[g.query_id] != fold]
        folder = encoders / f"fold{fold}"
        if args.reuse_encoders and is_tuned_encoder(folder):
            trainings.append({"fold": fold, "questions": len(test), "reused": str(folder)})
        else:
            examples: list[ContrastiveExample] = [
                *examples_from_groups(
                    train, lambda c: texts[c.passage.id], hard_negatives=negatives
                ),
                *base_examples,
            ]
            report = fine_tune(examples, weights, folder, tune, progress=True)
            kinds = Counter(kind for example in examples for kind in example.kinds)
            trainings.append(
                {
                    "fold": fold,
                    "questions": len(test),
                    "negative_kinds": dict(kinds),
                    **report.model_dump(),
                }
            )
            print(f"fold {fold}: {report}", flush=True)
        tuned = Embedder.load(str(folder))
        to_tune = test if args.dense_only else scored_groups
        by_tuned = {g.query_id: rescored(g, tuned, all_texts) for g in to_tune}
        learned = {
            name: Reranker(fit([scored[g.query_id] for g in [*train, *base_groups]]))
            for name, scored in (("base", by_base), ("tuned", by_tuned))
            if not args.dense_only
        }
        for group in test:
            question, candidates = group.question, group.candidates
            base_scored = by_base[group.query_id].candidates
            tuned_scored = by_tuned[group.query_id].candidates
            ordered = [
                candidates,
                shipped.rerank(question, candidates),
                shipped.rerank(question, base_scored),
                by_dense(base_scored),
                by_dense(tuned_scored),
                shipped.rerank(question, tuned_scored),
                *(
                    learned[name].rerank(question, base_scored if name == "base" else tuned_scored)
                    for name in learned
                ),
            ]
            for name, order in zip(rows, ordered, strict=True):
                orders[name][group.query_id] = spread(order, settings)
    results = ordering_results(orders, queries, financebench_groups(queries, args.data_dir))
    summary = {
        "benchmark": "FinanceBench dev page Hit@k, encoder fine-tuned by company folds",
        "index": location.name,
        "questions": len(queries),
        "with_a_gold_candidate": len(groups),
        "base_questions": args.base_questions,
        "base_groups": len(base_groups),
        "base_examples": len(base_examples),
        "hard_negatives": negatives,
        "dense_only": args.dense_only,
        "settings": tune.model_dump(),
        "folds": trainings,
        "seconds": round(time.perf_counter() - started, 1),
        "results": results,
    }
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(summary, indent=1) + "\n")
    print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
