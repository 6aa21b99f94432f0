"""Executor check: do the gold programs, translated to Python and sandboxed, give the gold?

Every FinQA record in the original format (its DSL program via
``finqa_program_to_python``) and every TAT-QA dev arithmetic question (its derivation via
``tatqa_derivation_to_python``) is run with ``filingqa.sandbox.run_python`` and scored
against the gold by the strict judge (no LM): FinQA against ``exe_ans``, TAT-QA against
the stated answer with its scale. Also reported: FinQA's official execution accuracy
(5 decimals) and TAT-QA's official exact match (prediction rounded to the gold's 2
decimals, scale taken from the record). No LLM is involved.

Usage::

    python benchmarks/executor_check.py --data-dir ../shared/datasets [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from pathlib import Path

from tqdm import tqdm

from filingqa.core.config import data_dir as resolve_data_dir
from filingqa.evaluation.robustness.executor_check import (
    TARGET,
    Check,
    assign_cause,
    check_finqa,
    check_tatqa,
    finqa_records,
    missed_by,
    report,
    summarise,
    tatqa_records,
)
from filingqa.metrics.judge import StrictJudge

DEFAULT_JSON = Path("results/executor_check.json")


def main(argv: list[str] | None = None) -> int:
    """Run the check; exit 1 if either dataset is below the target agreement."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", help="evaluation data dir (default $FILINGQA_DATA_DIR)")
    parser.add_argument("--json", type=Path, default=DEFAULT_JSON, help="where to write JSON")
    args = parser.parse_args(argv)

    root = resolve_data_dir(args.data_dir)
    judge = StrictJudge(lm=None)
    suites = {
        "finqa": (finqa_records(root), check_finqa),
        "tatqa": (tatqa_records(root), check_tatqa),
    }
    results: dict[str, list[Check]] = {}
    for name, (records, run) in suites.items():
        results[name] = [run(record, judge) for record in tqdm(records, desc=name, unit="program")]
        for check in results[name]:
            check.cause = assign_cause(check)
            check.missed_by = missed_by(check)

    summaries = {name: summarise(checks) for name, checks in results.items()}
    misses = [c for checks in results.values() for c in checks if c.cause]
    print(report(summaries, misses))
    args.json.parent.mkdir(parents=True, exist_ok=True)
    payload = {
        "summary": summaries,
        "misses": [asdict(c) for c in misses],
        "checks": [asdict(c) for checks in results.values() for c in checks],
    }
    args.json.write_text(json.dumps(payload, indent=2), encoding="utf-8")
    print(f"\nwrote {args.json}")
    return 0 if all(s["agreement"] >= TARGET for s in summaries.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
