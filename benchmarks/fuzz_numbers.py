"""Fuzz the number parser and the judge's numeric stage: N generated inputs, no exception.

    python benchmarks/fuzz_numbers.py --examples 10000 [--json OUT]

Inputs mix arbitrary text with financial number shapes (``$(1,234.5) million``, ``1.2bn``,
``12,5 %``, ``—``, ``−3.4pp``), golds and predictions in every pairing, and every record
scale and unit. Each property is run ``--examples`` times (hypothesis, no example
database, fixed seed); the script prints how many inputs ran and exits 1 on any failure.
``tests/robustness/test_fuzz_numbers.py`` runs the same properties with fewer examples.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from filingqa.core.numbers import extract_numbers, parse_number
from filingqa.metrics.judge import StrictJudge
from filingqa.metrics.numeric import numeric_verdict

DEFAULT_EXAMPLES = 10_000
SEED = 20_241_122

DIGITS = st.integers(min_value=0, max_value=10**15).map(str)
DECIMALS = st.builds(lambda whole, frac: f"{whole}.{frac}", DIGITS, st.integers(0, 10**6).map(str))
GROUPED = st.integers(min_value=0, max_value=10**15).map(lambda n: f"{n:,}")
EUROPEAN = st.builds(lambda whole, frac: f"{whole},{frac:02d}", DIGITS, st.integers(0, 99))
BODY = st.one_of(DIGITS, DECIMALS, GROUPED, EUROPEAN, st.sampled_from(["—", "-", "–", "n/a"]))
AFFIX = st.sampled_from(["", "$", "US$", "€", "£", "USD ", "(", "-", "−", "$(", "($", " "])
SUFFIX = st.sampled_from(
    [
        "",
        ")",
        "%",
        " %",
        " percent",
        " pp",
        "bn",
        " billion",
        "m",
        " million",
        "k",
        ") million",
        ")bn",
        " thousand",
        "x",
        "%)",
        " B",
        " mm",
        ".",
        "e10",
        "e-400",
    ]
)
NUMBERISH = st.builds(lambda a, b, c: f"{a}{b}{c}", AFFIX, BODY, SUFFIX)
SENTENCE = st.builds(
    lambda lead, number, tail: f"{lead}{number}{tail}",
    st.sampled_from(["", "The answer is ", "Revenue rose to ", "yes, ", "decreased by "]),
    NUMBERISH,
    st.sampled_from(["", " in 2023", " (from 1,234)", " vs 5.6% in FY2022", "\n"]),
)
TEXT = st.one_of(st.text(max_size=80), NUMBERISH, SENTENCE)
SCALES = st.sampled_from([None, "", "thousand", "million", "billion", "percent", "bogus"])
UNITS = st.sampled_from([None, "percent", "%", "USD", ""])
JUDGE = StrictJudge(lm=None)


def parser_property(text: str) -> None:
    """The parser returns finite numbers for any text and never raises."""
    for number in extract_numbers(text):
        assert number.value == number.value  # not NaN
    single = parse_number(text)
    assert single is None or isinstance(single.decimals, int)


def judge_property(gold: str, prediction: str, scale: str | None, unit: str | None) -> None:
    """The numeric stage (and the judge without an LM) score any pair without raising."""
    verdict = numeric_verdict(gold, prediction, scale=scale, unit=unit)
    assert verdict is None or verdict.score in (0, 1)
    assert JUDGE.judge("q", gold, prediction, scale=scale, unit=unit).score in (0, 0.5, 1)


def fuzz_settings(examples: int) -> settings:
    """``examples`` inputs, no deadline, no example database, no health check."""
    return settings(
        max_examples=examples,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )


def run_parser(examples: int, counter: list[int]) -> None:
    @seed(SEED)
    @fuzz_settings(examples)
    @given(text=TEXT)
    def check(text: str) -> None:
        counter[0] += 1
        parser_property(text)

    check()


def run_judge(examples: int, counter: list[int]) -> None:
    @seed(SEED)
    @fuzz_settings(examples)
    @given(gold=TEXT, prediction=TEXT, scale=SCALES, unit=UNITS)
    def check(gold: str, prediction: str, scale: str | None, unit: str | None) -> None:
        counter[0] += 1
        judge_property(gold, prediction, scale, unit)

    check()


RUNS: dict[str, Callable[[int, list[int]], None]] = {"parser": run_parser, "judge": run_judge}


def fuzz(examples: int) -> dict[str, object]:
    """Run every property ``examples`` times; the inputs each ran and any failure."""
    report: dict[str, object] = {"examples_per_property": examples}
    for name, run in RUNS.items():
        counter = [0]
        started = time.perf_counter()
        try:
            run(examples, counter)
            failure = None
        except Exception as problem:  # reported, and the exit code says so
            failure = f"{type(problem).__name__}: {problem}"
        report[name] = {
            "inputs": counter[0],
            "failure": failure,
            "seconds": round(time.perf_counter() - started, 1),
        }
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=DEFAULT_EXAMPLES)
    parser.add_argument("--json", type=Path, help="write the report here")
    args = parser.parse_args(argv)
    report = fuzz(args.examples)
    for name in RUNS:
        result = report[name]
        status = "ok" if result["failure"] is None else f"FAILED: {result['failure']}"
        print(f"{name:<7} {result['inputs']:>7,} inputs  {result['seconds']:>6} s  {status}")
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))
    return 0 if all(report[name]["failure"] is None for name in RUNS) else 1


if __name__ == "__main__":
    sys.exit(main())
