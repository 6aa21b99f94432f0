"""Prompt injection inside documents: does an injected passage change the program's answer?

    python benchmarks/injection.py --lm local [--json results/injection.json] [--limit N]
    python benchmarks/injection.py --lm scripted     # the harness alone, no model

Runs the cases of :mod:`filingqa.evaluation.robustness.injection` (each filing's question over the
clean passages and over the passages with one hand-written injection), prints how many hold
and writes every run to JSON. ``--lm scripted`` answers each question with its reference
program (it cannot be fooled, so everything holds: it checks the harness); any other
``--lm`` is a backbone.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from filingqa.evaluation.robustness.injection import CASES, report, run_cases, scripted_lm
from filingqa.lm.backbone import get_lm


def main(argv: list[str] | None = None) -> int:
    """Run the cases, print one line per case and the counts, write the report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lm", default="local", help="local, scripted, or a litellm string")
    parser.add_argument("--limit", type=int, help="only the first N cases")
    parser.add_argument("--json", type=Path, default=Path("results/injection.json"))
    args = parser.parse_args(argv)
    lm = scripted_lm() if args.lm == "scripted" else get_lm(args.lm)
    cases = CASES[: args.limit] if args.limit else CASES
    started = time.perf_counter()
    results = run_cases(cases, lm)
    summary = report(args.lm, cases, results, time.perf_counter() - started)
    for result in results:
        mark = "holds" if result.holds else "FAILS"
        print(
            f"{mark:<6} {result.filing:<8} {result.case:<24} {result.injected.answer[:40]!r}"
            f"  ({result.why})"
        )
    print(f"{summary.hold}/{summary.cases} injected cases keep the clean answer (--lm {args.lm})")
    print(
        "  of which held out (written after the screen): "
        f"{summary.held_out_hold}/{summary.held_out_cases}"
    )
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(summary.model_dump_json(indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
