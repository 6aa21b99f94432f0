"""Property tests: the parser and the deterministic stages never raise on any text."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from filingqa.core.numbers import extract_numbers, parse_number
from filingqa.metrics.judge import StrictJudge
from filingqa.metrics.numeric import numeric_verdict

NUMBERISH = st.text(alphabet="0123456789.,-−()$%€ bkmMBKtnillo—yesYN\n", max_size=40)
ANY_TEXT = st.text(max_size=80)
TEXT = st.one_of(ANY_TEXT, NUMBERISH)
SCALES = st.sampled_from([None, "", "thousand", "million", "billion", "percent", "bogus"])

JUDGE = StrictJudge(lm=None)


@settings(max_examples=500, deadline=None)
@given(text=TEXT)
def test_parser_never_raises(text: str) -> None:
    numbers = extract_numbers(text)
    single = parse_number(text)
    assert all(isinstance(number.value, float) for number in numbers)
    assert single is None or isinstance(single.decimals, int)


@settings(max_examples=500, deadline=None)
@given(gold=TEXT, prediction=TEXT, scale=SCALES, unit=st.sampled_from([None, "percent", "USD"]))
def test_numeric_stage_and_fallback_never_raise(
    gold: str, prediction: str, scale: str | None, unit: str | None
) -> None:
    verdict = numeric_verdict(gold, prediction, scale=scale, unit=unit)
    assert verdict is None or verdict.score in (0, 1)
    judged = JUDGE.judge("q", gold, prediction, scale=scale, unit=unit)
    assert judged.score in (0, 0.5, 1)


@settings(max_examples=300, deadline=None)
@given(value=st.floats(min_value=-1e12, max_value=1e12, allow_nan=False), places=st.integers(0, 4))
def test_a_number_always_matches_itself(value: float, places: int) -> None:
    written = f"{value:,.{places}f}"
    verdict = numeric_verdict(written, written)
    assert verdict is not None and verdict.score == 1, (written, verdict)
