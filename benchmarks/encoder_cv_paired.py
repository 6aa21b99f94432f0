"""Two runs of ``encoder_financebench_cv.py`` compared row by row, paired on the same questions.

For each row both runs have: page Hit@1/5/10 per committed FinanceBench slice, and the
questions the second run finds within k and the first does not (won), the reverse (lost),
with the one-sided sign test's p-value.

    .venv/bin/python benchmarks/encoder_cv_paired.py BEFORE.json AFTER.json [--json OUT]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from filingqa.evaluation.retrieval.page_ranks import paired_hits
from filingqa.evaluation.slices.committed import load_slice

SLICES = ("financebench-dev-tuning", "financebench-dev-report")


def compare(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """Per row in both runs and per slice: each run's rates and the paired counts."""
    out: dict[str, Any] = {}
    for row in [name for name in after["results"] if name in before["results"]]:
        ranks = (before["results"][row]["ranks"], after["results"][row]["ranks"])
        out[row] = {}
        for name in SLICES:
            ids = [i for i in load_slice(name, dataset="financebench:dev").ids if i in ranks[1]]
            out[row][name] = {
                "before": before["results"][row]["rates"].get(name),
                "after": after["results"][row]["rates"].get(name),
                "paired": paired_hits(*ranks, ids),
            }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    runs = [json.loads(path.read_text()) for path in (args.before, args.after)]
    compared = compare(*runs)
    for row, slices in compared.items():
        print(row)
        for name, figures in slices.items():
            rates = [
                "/".join(f"{100 * figures[side][f'hit@{k}']:.1f}" for k in (1, 5, 10))
                for side in ("before", "after")
            ]
            paired = "  ".join(
                f"{k} {v['won']:.0f}/{v['lost']:.0f} p {v['p']:.3f}"
                for k, v in figures["paired"].items()
            )
            print(f"  {name} (n {figures['after']['n']}): {rates[0]} -> {rates[1]}   {paired}")
    if args.json:
        args.json.write_text(json.dumps(compared, indent=1) + "\n")
        print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
