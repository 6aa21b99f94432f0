"""Train the shipped reranker on the product's own search candidates, and its held-out twin.

``reranker``: trained on finqa:train_sample100 + tatqa:dev (indexed and searched as
``filingqa eval --mode retrieval`` searches; hygiene-checked against FinQA dev and ConvFinQA
dev, which share report pages), written to the default artifact dir and copied, model and
reports only, to ``artifacts/reranker/`` in the repo. ``reranker-without-tatqa-dev``:
trained on finqa:train_sample100 alone (checked against tatqa:dev too), the one
``filingqa eval --mode retrieval --dataset tatqa:dev`` scores, since the shipped one saw
TAT-QA dev. No FinanceBench question trains either.

    cd /tmp && FILINGQA_DATA_DIR=/work/shared/datasets nice -n 19 \\
        /work/main/.venv/bin/python /work/main/benchmarks/retrieval_train_reranker.py
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

from filingqa.optimizers.train_reranker import (
    DEFAULT_EVAL_SPECS,
    DEFAULT_PIPELINE_SPECS,
    TRAINING_FILE,
    TrainParams,
    default_artifact_dir,
    train_reranker_on_pipeline,
)
from filingqa.retrieval.rerank import FEATURES_FILE, MODEL_FILE

REPO_ARTIFACT = Path(__file__).resolve().parents[1] / "artifacts" / "reranker"
HELD_OUT_SPECS = ("finqa:train_sample100",)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, help="evaluation data (default: env)")
    parser.add_argument("--folds", type=int, default=5)
    args = parser.parse_args()
    shipped = default_artifact_dir()
    runs = [
        (DEFAULT_PIPELINE_SPECS, shipped, DEFAULT_EVAL_SPECS),
        (
            HELD_OUT_SPECS,
            shipped.with_name(f"{shipped.name}-without-tatqa-dev"),
            (*DEFAULT_EVAL_SPECS, "tatqa:dev"),
        ),
    ]
    for train, out_dir, evaluated in runs:
        report = train_reranker_on_pipeline(
            train,
            out_dir,
            eval_specs=evaluated,
            data_dir=args.data_dir,
            params=TrainParams(),
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
