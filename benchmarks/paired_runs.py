"""Two eval runs of one setting, made by two versions of the code, compared question by question.

A code change cannot be one eval's two settings, so its "before" and "after" are two runs
over the same questions (the same slice, ``--fresh-cache``), graded again afterwards by one
judge (``filingqa eval ... --regrade`` over both ``--out`` folders); either folder may hold
published rows (``--publish``, a committed run). Prints the figures of
:func:`filingqa.evaluation.run_pairs.compare_runs`; writes them, with per-question ids,
scores and outcomes (no dataset text), as JSON.

    python benchmarks/paired_runs.py BEFORE_DIR AFTER_DIR [--setting compiled@retrieved]
        [--dataset financebench:dev] [--names before,after] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from filingqa.datasets.registry import load_dataset
from filingqa.evaluation.published import read_run_rows
from filingqa.evaluation.run_pairs import compare_runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path, help="the --out folder of the run before")
    parser.add_argument("after", type=Path, help="the --out folder of the run after")
    parser.add_argument("--setting", default="compiled@retrieved")
    parser.add_argument("--dataset", default="financebench:dev")
    parser.add_argument("--data-dir", type=Path)
    parser.add_argument("--names", default="before,after")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    first, second = args.names.split(",")
    records = load_dataset(args.dataset, args.data_dir)
    rows = [
        read_run_rows(folder / f"{args.setting}.jsonl", records)
        for folder in (args.before, args.after)
    ]
    if not all(rows):
        raise SystemExit(f"no {args.setting}.jsonl rows in one of the two folders")
    figures = compare_runs(rows[0], rows[1], {r.id: r for r in records}, (first, second))
    print(figures["text"])
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(figures, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
