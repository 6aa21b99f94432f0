"""Held-out scores of the reranker: Recall@5/10 of fused and reranked order, by document folds."""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence

import numpy as np
from pydantic import BaseModel, ConfigDict

from filingqa.optimizers.reranker_fit import TrainParams, fit
from filingqa.optimizers.reranker_groups import Group
from filingqa.retrieval.search.rerank import Reranker

CUTOFFS = (5, 10)


def recall_at(ranked: Sequence[str], gold: Iterable[str], k: int) -> float:
    """The share of ``gold`` among the first ``k`` of ``ranked`` (0.0 without gold)."""
    gold = set(gold)
    return len(gold & set(ranked[:k])) / len(gold) if gold else 0.0


class FoldScores(BaseModel):
    """Mean Recall@5/@10 of held-out queries: fused order vs the reranker."""

    model_config = ConfigDict(extra="forbid")

    queries: int
    fused_recall_at_5: float
    fused_recall_at_10: float
    reranked_recall_at_5: float
    reranked_recall_at_10: float


def group_recalls(group: Group, reranker: Reranker) -> tuple[float, ...]:
    """Recall@5, @10 of ``group``'s fused order, then of ``reranker``'s order."""
    fused = [c.passage.id for c in group.candidates]
    reranked = [c.passage.id for c in reranker.rerank(group.question, group.candidates)]
    return tuple(recall_at(order, group.gold, k) for order in (fused, reranked) for k in CUTOFFS)


def document_folds(groups: Sequence[Group], folds: int, seed: int = 0) -> list[list[Group]]:
    """``groups`` split into ``folds`` parts, all questions on one document in one part."""
    documents = sorted({g.doc_id for g in groups})
    random.Random(seed).shuffle(documents)
    fold_of = {doc: i % folds for i, doc in enumerate(documents)}
    return [[g for g in groups if fold_of[g.doc_id] == i] for i in range(folds)]


def cross_validate(
    groups: Sequence[Group], params: TrainParams | None = None, folds: int = 5
) -> FoldScores:
    """Held-out scores over ``folds`` document folds (each query scored by the model that
    did not see its document)."""
    params = params or TrainParams()
    parts = document_folds(groups, folds, params.seed)
    rows: list[tuple[float, ...]] = []
    for i, test in enumerate(parts):
        train = [g for j, part in enumerate(parts) if j != i for g in part]
        if test and any(g.labels.any() for g in train):
            reranker = Reranker(fit(train, params))
            rows += [group_recalls(group, reranker) for group in test]
    means = np.mean(rows, axis=0) if rows else np.zeros(2 * len(CUTOFFS))
    names = [name for name in FoldScores.model_fields if name != "queries"]
    return FoldScores(queries=len(rows), **{n: float(v) for n, v in zip(names, means, strict=True)})
