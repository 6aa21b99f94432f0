import json
from pathlib import Path

import numpy as np
import pytest

from filingqa.router.lightgbm_router import META_FILE, LightGBMRouter
from filingqa.router.training import (
    RouterLabel,
    choose_threshold,
    fold_of,
    train_router,
)


def synthetic_labels(n: int = 40) -> list[RouterLabel]:
    """Multi-period change questions gain from the full loop; lookups do not."""
    labels = []
    for i in range(n):
        if i % 2:
            question = f"What was the percentage change in revenue of unit {i} from 2018 to 2020?"
            labels.append(
                RouterLabel(
                    id=f"q{i}",
                    question=question,
                    single_score=0,
                    full_score=1,
                    single_calls=1,
                    full_calls=4,
                )
            )
        else:
            question = f"What was the revenue of unit {i} in 2019?"
            labels.append(
                RouterLabel(
                    id=f"q{i}",
                    question=question,
                    single_score=1,
                    full_score=1,
                    single_calls=1,
                    full_calls=2,
                )
            )
    return labels


def test_training_learns_when_the_full_loop_helps(tmp_path: Path) -> None:
    report = train_router(synthetic_labels(), tmp_path)
    assert report.positives == 20 and report.majority_accuracy == 0.5
    assert report.cv_accuracy >= 0.9
    assert report.routed.accuracy == pytest.approx(report.always_full.accuracy)
    assert report.always_single.accuracy == 0.5
    # lookups skip the loop: 2 of 3 calls saved on half the questions → 1 - 2.5/3
    assert report.call_savings == pytest.approx(1 - 2.5 / 3, abs=0.05)
    assert 0 < report.threshold < 1
    assert json.loads((tmp_path / "training.json").read_text())["questions"] == 40
    router = LightGBMRouter.load(tmp_path)
    loop = router("What was the percentage change in net sales from 2019 to 2021?")
    single = router("What was the revenue of unit 7 in 2019?")
    assert (loop.full_loop, single.full_loop) == (True, False)
    assert loop.source == "lightgbm" and loop.path == "pot"
    assert loop.reason.startswith("lightgbm: P(full loop helps)")


def test_too_few_labels_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="at least 5 labelled questions"):
        train_router(synthetic_labels(4), tmp_path)


def test_router_trained_on_other_features_is_refused(tmp_path: Path) -> None:
    train_router(synthetic_labels(), tmp_path)
    meta = json.loads((tmp_path / META_FILE).read_text())
    (tmp_path / META_FILE).write_text(json.dumps(meta | {"feature_version": 0}))
    with pytest.raises(ValueError, match="recompile"):
        LightGBMRouter.load(tmp_path)
    with pytest.raises(FileNotFoundError, match="no trained router"):
        LightGBMRouter.load(tmp_path / "missing")


def test_folds_are_balanced_and_seeded() -> None:
    folds = fold_of(12, 5, seed=0)
    assert sorted(folds.count(f) for f in range(5)) == [2, 2, 2, 3, 3]
    assert folds == fold_of(12, 5, seed=0) != fold_of(12, 5, seed=1)


def test_the_threshold_saves_the_most_calls_within_the_accuracy_allowance() -> None:
    labels = synthetic_labels(10)  # odd ids: the full loop turns 0 into 1
    helps = np.asarray([0.9 if i % 2 else 0.1 for i in range(10)])
    # 2 points allowed: every helped question must keep the loop, the rest go single
    assert choose_threshold(labels, helps, 0.02) == 0.5
    # everything allowed: no question takes the loop
    assert choose_threshold(labels, helps, 1.0) > 0.9
    # a model that cannot tell them apart: the loop for all (0.5 would lose 50 points)
    assert choose_threshold(labels, np.full(10, 0.3), 0.02) == pytest.approx(0.3)


def test_when_the_loop_never_helps_every_question_goes_single() -> None:
    labels = [x.model_copy(update={"single_score": 1}) for x in synthetic_labels(10)]
    threshold = choose_threshold(labels, np.linspace(0.0, 0.2, 10), 0.02)
    assert threshold > 0.2
