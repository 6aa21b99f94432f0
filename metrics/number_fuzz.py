"""Fuzzing the number parser and the judge's numeric stage: generated inputs, no exception.

Inputs mix arbitrary text with financial number shapes (``$(1,234.5) million``, ``1.2bn``,
``12,5 %``, ``—``, ``−3.4pp``), golds and predictions in every pairing, and every record
scale and unit. :func:`fuzz` runs each property a given number of times (hypothesis, no
example database, fixed seed) and reports how many inputs ran and any failure. Needs
hypothesis (the ``dev`` extra).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st
from pydantic import BaseModel

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
    """:func:`parser_property` on ``examples`` generated texts (``counter[0]`` counts them)."""

    @seed(SEED)
    @fuzz_settings(examples)
    @given(text=TEXT)
    def check(text: str) -> None:
        counter[0] += 1
        parser_property(text)

    check()


def run_judge(examples: int, counter: list[int]) -> None:
    """:func:`judge_property` on ``examples`` generated pairs (``counter[0]`` counts them)."""

    @seed(SEED)
    @fuzz_settings(examples)
    @given(gold=TEXT, prediction=TEXT, scale=SCALES, unit=UNITS)
    def check(gold: str, prediction: str, scale: str | None, unit: str | None) -> None:
        counter[0] += 1
        judge_property(gold, prediction, scale, unit)

    check()


class PropertyRun(BaseModel):
    """One property's run: the inputs it saw, the first failure (None: none), its time."""

    inputs: int
    failure: str | None
    seconds: float


class FuzzReport(BaseModel):
    """What :func:`fuzz` found: each property's run, by name."""

    examples_per_property: int
    properties: dict[str, PropertyRun]

    @property
    def passed(self) -> bool:
        """Whether no property failed."""
        return all(run.failure is None for run in self.properties.values())


RUNS: dict[str, Callable[[int, list[int]], None]] = {"parser": run_parser, "judge": run_judge}


def fuzz(examples: int = DEFAULT_EXAMPLES) -> FuzzReport:
    """Run every property ``examples`` times; the inputs each ran and any failure."""
    runs: dict[str, PropertyRun] = {}
    for name, run in RUNS.items():
        counter = [0]
        started = time.perf_counter()
        try:
            run(examples, counter)
            failure = None
        except Exception as problem:  # a failing input is the finding: reported, not raised
            failure = f"{type(problem).__name__}: {problem}"
        seconds = round(time.perf_counter() - started, 1)
        runs[name] = PropertyRun(inputs=counter[0], failure=failure, seconds=seconds)
    return FuzzReport(examples_per_property=examples, properties=runs)
