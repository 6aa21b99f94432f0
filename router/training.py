"""Train the LightGBM router: does the full verify-refine loop beat a single pass?

Each labelled question (:class:`RouterLabel`, made by the compile: the question answered once
in a single pass and once with the full loop) says whether the full loop scored higher. The
decision threshold is chosen on the cross-validated probabilities: the one that saves
the most LM calls while routed accuracy stays within ``max_accuracy_loss`` of sending every
question through the full loop (always feasible: threshold 0 routes them all there).
The report gives cross-validated accuracy and what routing saves: accuracy and LM calls
per question when every question takes the full loop, none does, or the router decides.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from pydantic import BaseModel, ConfigDict

from filingqa.router.features import FEATURE_NAMES, extract
from filingqa.router.lightgbm_router import LightGBMRouter

if TYPE_CHECKING:
    import lightgbm

TRAINING_FILE = "training.json"


class RouterLabel(BaseModel):
    """One calibration question: both runs' scores and LM calls, and the label."""

    model_config = ConfigDict(extra="forbid")

    id: str
    question: str
    single_score: float
    full_score: float
    single_calls: int
    full_calls: int

    @property
    def full_loop_helps(self) -> bool:
        """The label: the full loop scored higher than the single pass."""
        return self.full_score > self.single_score


class RouterParams(BaseModel):
    """LightGBM settings for a few dozen labelled questions (deterministic), and how much
    accuracy the threshold may give up for fewer LM calls."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    num_boost_round: int = 40
    learning_rate: float = 0.1
    num_leaves: int = 4
    min_data_in_leaf: int = 3
    max_accuracy_loss: float = 0.02
    seed: int = 0

    def lightgbm(self) -> dict[str, Any]:
        """The parameter dict for ``lightgbm.train``."""
        return {
            "objective": "binary",
            "learning_rate": self.learning_rate,
            "num_leaves": self.num_leaves,
            "min_data_in_leaf": self.min_data_in_leaf,
            "min_data_in_bin": 1,
            "seed": self.seed,
            "deterministic": True,
            "force_row_wise": True,
            "num_threads": 1,
            "verbosity": -1,
        }


class Policy(BaseModel):
    """Mean score and LM calls per question under one routing policy."""

    accuracy: float
    lm_calls: float


class RouterReport(BaseModel):
    """What :func:`train_router` measured (saved as ``training.json``)."""

    model_config = ConfigDict(extra="forbid")

    questions: int
    positives: int
    folds: int
    cv_accuracy: float
    majority_accuracy: float
    always_single: Policy
    always_full: Policy
    routed: Policy
    routed_full_loop: list[bool] = []
    """Each labelled question's cross-validated decision (in label order): the full loop?"""
    call_savings: float
    threshold: float
    params: RouterParams
    feature_gain: dict[str, float]


def fit(features: np.ndarray, labels: np.ndarray, params: RouterParams) -> lightgbm.Booster:
    """A binary LightGBM classifier of ``labels`` (1: the full loop helps)."""
    import lightgbm

    settings = params.lightgbm()
    data = lightgbm.Dataset(
        features, label=labels, feature_name=list(FEATURE_NAMES), params=settings
    )
    return lightgbm.train(settings, data, num_boost_round=params.num_boost_round)


def fold_of(n: int, folds: int, seed: int) -> list[int]:
    """A seeded assignment of ``n`` items to ``folds`` folds of near-equal size."""
    order = list(range(n))
    random.Random(seed).shuffle(order)
    assignment = [0] * n
    for position, index in enumerate(order):
        assignment[index] = position % folds
    return assignment


def cross_predict(
    features: np.ndarray, labels: np.ndarray, params: RouterParams, folds: int
) -> np.ndarray:
    """Each question's probability that the full loop helps, by a model that did not see it
    (0 when a fold leaves nothing to train on)."""
    assignment = np.asarray(fold_of(len(labels), folds, params.seed))
    chances = np.zeros(len(labels))
    for fold in range(folds):
        held = assignment == fold
        if held.any() and (~held).any():
            chances[held] = fit(features[~held], labels[~held], params).predict(features[held])
    return chances


def choose_threshold(
    labels: Sequence[RouterLabel], chances: np.ndarray, max_accuracy_loss: float
) -> float:
    """The threshold on ``chances`` with the fewest LM calls whose routed accuracy is within
    ``max_accuracy_loss`` of the full loop's (ties: the more accurate, then the nearer 0.5).
    Candidates: 0.5, each probability, and just above the highest (every question single)."""
    floor = score_policy(labels, [True] * len(labels)).accuracy - max_accuracy_loss - 1e-9
    candidates = {0.5, *map(float, chances), float(chances.max(initial=0.0)) + 1e-6}

    def cost(threshold: float) -> tuple[float, float, float]:
        policy = score_policy(labels, (chances >= threshold).tolist())
        return policy.lm_calls, -policy.accuracy, abs(threshold - 0.5)

    allowed = [
        t for t in candidates if score_policy(labels, (chances >= t).tolist()).accuracy >= floor
    ]
    return min(allowed, key=cost)


def score_policy(labels: Sequence[RouterLabel], full: Sequence[bool]) -> Policy:
    """Accuracy and LM calls when the questions with ``full`` take the full loop."""
    scores = [x.full_score if f else x.single_score for x, f in zip(labels, full, strict=True)]
    calls = [x.full_calls if f else x.single_calls for x, f in zip(labels, full, strict=True)]
    return Policy(accuracy=float(np.mean(scores)), lm_calls=float(np.mean(calls)))


def train_router(
    labels: Sequence[RouterLabel],
    out_dir: Path,
    params: RouterParams | None = None,
    folds: int = 5,
) -> RouterReport:
    """Cross-validate, fit on every label, save the router in ``out_dir``; report.

    Raises:
        ValueError: fewer labelled questions than folds.
    """
    params = params or RouterParams()
    if len(labels) < max(folds, 2):
        raise ValueError(f"router training needs at least {max(folds, 2)} labelled questions")
    features = np.asarray([extract(x.question).vector() for x in labels])
    target = np.asarray([float(x.full_loop_helps) for x in labels])
    chances = cross_predict(features, target, params, folds)
    threshold = choose_threshold(labels, chances, params.max_accuracy_loss)
    decisions = chances >= threshold
    booster = fit(features, target, params)
    LightGBMRouter(booster, threshold).save(out_dir)
    always_full = score_policy(labels, [True] * len(labels))
    routed = score_policy(labels, decisions.tolist())
    gains = booster.feature_importance(importance_type="gain")
    positives = int(target.sum())
    report = RouterReport(
        questions=len(labels),
        positives=positives,
        folds=folds,
        cv_accuracy=float(np.mean(decisions == target.astype(bool))),
        majority_accuracy=max(positives, len(labels) - positives) / len(labels),
        always_single=score_policy(labels, [False] * len(labels)),
        always_full=always_full,
        routed=routed,
        routed_full_loop=decisions.tolist(),
        call_savings=1 - routed.lm_calls / always_full.lm_calls if always_full.lm_calls else 0.0,
        threshold=threshold,
        params=params,
        feature_gain={n: round(float(g), 3) for n, g in zip(FEATURE_NAMES, gains, strict=True)},
    )
    (out_dir / TRAINING_FILE).write_text(json.dumps(report.model_dump(), indent=2) + "\n")
    return report
