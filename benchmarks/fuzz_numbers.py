"""Fuzz the number parser and the judge's numeric stage: N generated inputs, no exception.

    python benchmarks/fuzz_numbers.py --examples 10000 [--json OUT]

Runs :func:`filingqa.metrics.number_fuzz.fuzz` (each property ``--examples`` times), prints
how many inputs ran and exits 1 on any failure. ``tests/robustness/test_fuzz_numbers.py``
runs the same properties with fewer examples.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from filingqa.metrics.number_fuzz import DEFAULT_EXAMPLES, fuzz


def main(argv: list[str] | None = None) -> int:
    """Fuzz, print one line per property, write the report if asked; 1 on any failure."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=DEFAULT_EXAMPLES)
    parser.add_argument("--json", type=Path, help="write the report here")
    args = parser.parse_args(argv)
    report = fuzz(args.examples)
    for name, run in report.properties.items():
        status = "ok" if run.failure is None else f"FAILED: {run.failure}"
        print(f"{name:<7} {run.inputs:>7,} inputs  {run.seconds:>6} s  {status}")
    if args.json:
        args.json.write_text(report.model_dump_json(indent=2))
    return 0 if report.passed else 1


if __name__ == "__main__":
    sys.exit(main())
