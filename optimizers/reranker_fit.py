"""Fitting the reranker: LightGBM LambdaRank over the features of training groups."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from filingqa.optimizers.reranker_groups import Group
from filingqa.retrieval.search.rerank_features import FEATURE_NAMES

if TYPE_CHECKING:
    import lightgbm

LAMBDARANK: dict[str, Any] = {
    "objective": "lambdarank",
    "metric": "ndcg",
    "ndcg_eval_at": [5, 10],
    "deterministic": True,
    "force_row_wise": True,
    "verbosity": -1,
}
"""The LightGBM settings :class:`TrainParams` does not vary."""


class TrainParams(BaseModel):
    """LightGBM LambdaRank settings (deterministic for a given seed and thread count)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    num_boost_round: int = Field(default=300, description="trees")
    learning_rate: float = 0.03
    num_leaves: int = Field(default=7, description="leaves per tree")
    min_data_in_leaf: int = Field(default=50, description="candidates a leaf holds at least")
    feature_fraction: float = Field(default=0.9, description="share of features per tree")
    lambdarank_truncation_level: int = Field(
        default=20, description="ranks whose swaps the gradient counts"
    )
    seed: int = 0
    num_threads: int = 1

    def lightgbm(self) -> dict[str, Any]:
        """The parameter dict for ``lightgbm.train``."""
        return LAMBDARANK | self.model_dump(exclude={"num_boost_round"})


def fit(groups: Sequence[Group], params: TrainParams | None = None) -> lightgbm.Booster:
    """A LambdaRank booster trained on ``groups``.

    Raises:
        ValueError: no group has a positive label.
    """
    import lightgbm

    params = params or TrainParams()
    if not any(g.labels.any() for g in groups):
        raise ValueError("no training group has a gold candidate")
    data = lightgbm.Dataset(
        np.vstack([g.features for g in groups]),
        label=np.concatenate([g.labels for g in groups]),
        group=[len(g.candidates) for g in groups],
        feature_name=list(FEATURE_NAMES),
        params={"verbosity": -1},
    )
    return lightgbm.train(params.lightgbm(), data, num_boost_round=params.num_boost_round)


def feature_gains(booster: lightgbm.Booster) -> dict[str, float]:
    """Each feature's total split gain in ``booster``, rounded to 3 decimals."""
    gains = booster.feature_importance(importance_type="gain")
    return {n: round(float(v), 3) for n, v in zip(FEATURE_NAMES, gains, strict=True)}
