"""Crash safety of ``eval``: a run SIGKILLed twice at random moments finishes with the same
results as an uninterrupted one, with no duplicate and no lost row.

    python benchmarks/kill_resume.py --lm scripted [--questions 30] [--seed 0]
    python benchmarks/kill_resume.py --lm local --dataset finqa:dev_sample200 \\
        --data-dir ../shared/datasets --mode pot [--questions 30]

Runs :func:`filingqa.evaluation.robustness.kill_resume.drive`: the eval uninterrupted, then killed
twice and rerun to the end, and compares the two. ``--lm scripted`` is a deterministic fake
backbone over a synthetic 30-question FinQA split (0.1 s per call); ``--lm local`` is the
embedded model. Prints the verdict, writes JSON, exits 1 when the results differ.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from filingqa.evaluation.robustness.kill_resume import SCRIPTED, SCRIPTED_DATASET, Plan, drive


def main(argv: list[str] | None = None) -> int:
    """Drive the kills, print the verdict and the costs, write the report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lm", default=SCRIPTED, help="scripted, local, or a litellm string")
    parser.add_argument("--dataset", default=SCRIPTED_DATASET)
    parser.add_argument("--data-dir", type=Path, default=Path("../shared/datasets"))
    parser.add_argument("--mode", default="pot", help="eval modes, comma-separated")
    parser.add_argument("--questions", type=int, default=30)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-delay", type=float, default=0.3, help="seconds after the target")
    parser.add_argument("--json", type=Path, default=Path("results/kill_resume.json"))
    args = parser.parse_args(argv)
    plan = Plan(
        lm=args.lm,
        dataset=args.dataset,
        data_dir=args.data_dir,
        mode=args.mode,
        questions=args.questions,
        seed=args.seed,
        max_delay=args.max_delay,
    )
    report = drive(plan)
    for number, kill in enumerate(report["kills"], 1):
        state = "SIGKILL" if kill["killed"] else "finished before the kill"
        print(
            f"kill {number}: {state} at {kill['rows_at_kill']} rows (target {kill['target_rows']})"
        )
    verdict = (
        "identical" if report["identical"] else "DIFFERENT: " + "; ".join(report["differences"][:5])
    )
    print(f"{report['questions']} questions, --lm {report['lm']}: results {verdict}")
    print(f"cost reference {report['cost_reference']} / resumed {report['cost_resumed']}")
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(report, indent=2))
    return 0 if report["identical"] else 1


if __name__ == "__main__":
    sys.exit(main())
