"""Train the shipped reranker on the product's own search candidates, and its held-out twin.

Both run :func:`~filingqa.optimizers.train_reranker.train_reranker`, the path
``filingqa compile`` trains its reranker with. ``reranker``: trained on
finqa:train_sample100 + tatqa:dev (each indexed as ``filingqa index --dataset`` indexes it
and searched with the shipped model's training search; hygiene-checked against FinQA dev
and ConvFinQA dev, which share report pages), written to the default artifact dir and
copied, model and reports only, to ``artifacts/reranker/`` in the repo.
``reranker-without-tatqa-dev``: trained on finqa:train_sample100 alone (checked against
tatqa:dev too), the one ``filingqa eval --mode retrieval --dataset tatqa:dev`` scores, since
the shipped one saw TAT-QA dev. No FinanceBench question trains either.

From the repo root, with the shared data beside it:

    FILINGQA_DATA_DIR=../shared/datasets nice -n 19 \\
        .venv/bin/python benchmarks/retrieval_train_reranker.py
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

from filingqa.optimizers.train_reranker import (
    DEFAULT_EVAL_SPECS,
    DEFAULT_TRAIN_SPECS,
    train_reranker,
)
from filingqa.retrieval.search.rerank import (
    FEATURES_FILE,
    MODEL_FILE,
    TRAINING_FILE,
    default_artifact_dir,
)

REPO_ARTIFACT = Path(__file__).resolve().parents[1] / "artifacts" / "reranker"
HELD_OUT_SPECS = ("finqa:train_sample100",)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, help="evaluation data (default: env)")
    parser.add_argument("--folds", type=int, default=5)
    args = parser.parse_args()
    shipped = default_artifact_dir()
    runs = [
        (DEFAULT_TRAIN_SPECS, shipped, DEFAULT_EVAL_SPECS),
        (
            HELD_OUT_SPECS,
            shipped.with_name(f"{shipped.name}-without-tatqa-dev"),
            (*DEFAULT_EVAL_SPECS, "tatqa:dev"),
        ),
    ]
    for train, out_dir, evaluated in runs:
        report = train_reranker(
            train,
            out_dir,
            eval_specs=evaluated,
            data_dir=args.data_dir,
            folds=args.folds,
            progress=True,
        )
        print(f"{out_dir}: {report.groups} groups, cross-validation {report.cross_validation}")
    REPO_ARTIFACT.mkdir(parents=True, exist_ok=True)
    for name in (MODEL_FILE, FEATURES_FILE, TRAINING_FILE):
        shutil.copy2(shipped / name, REPO_ARTIFACT / name)
    print(json.dumps(sorted(p.name for p in REPO_ARTIFACT.iterdir())))


if __name__ == "__main__":
    main()
