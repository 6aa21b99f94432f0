"""Regenerate the committed evaluation slices (``evaluation/slices/*.json``) from the recipes
in :mod:`filingqa.evaluation.slices.recipes`, for the record.

    python benchmarks/make_slices.py [--data-dir D] [--out DIR]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from filingqa.datasets import load_dataset
from filingqa.evaluation.slices.committed import slice_dir
from filingqa.evaluation.slices.making import make_slices, write_slice
from filingqa.evaluation.slices.recipes import recipes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, help="default: $FILINGQA_DATA_DIR")
    parser.add_argument("--out", type=Path, default=slice_dir(), help="default: the package's")
    args = parser.parse_args()
    for recipe in recipes(args.data_dir):
        for eval_slice in make_slices(load_dataset(recipe.dataset, args.data_dir), recipe):
            path = write_slice(eval_slice, args.out)
            print(f"{path}: {len(eval_slice.ids)} questions, {eval_slice.counts}")


if __name__ == "__main__":
    main()
