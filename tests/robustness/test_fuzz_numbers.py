"""The number fuzz (:mod:`filingqa.metrics.number_fuzz`) with fewer examples (the benchmark
runs 10,000 per property: ``python benchmarks/fuzz_numbers.py``)."""

from __future__ import annotations

import os

import pytest

from filingqa.metrics.number_fuzz import fuzz, judge_property, parser_property

EXAMPLES = int(os.environ.get("FILINGQA_FUZZ_EXAMPLES", "300"))


def test_no_input_makes_the_parser_or_the_numeric_stage_raise() -> None:
    report = fuzz(EXAMPLES)
    assert report.examples_per_property == EXAMPLES
    assert set(report.properties) == {"parser", "judge"}
    for run in report.properties.values():
        assert run.failure is None
        assert run.inputs >= EXAMPLES
    assert report.passed


def test_a_failing_property_is_reported_not_raised(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(text: str) -> None:
        raise ValueError(f"cannot parse {text!r}")

    monkeypatch.setattr("filingqa.metrics.number_fuzz.parser_property", broken)
    report = fuzz(5)
    assert not report.passed
    assert (report.properties["parser"].failure or "").startswith("ValueError: cannot parse")
    assert report.properties["judge"].failure is None


@pytest.mark.parametrize(
    "text", ["$(1,234.5) million", "(1.2)bn", "12,5 %", "—", "e-400", "9" * 400 + ".5e10"]
)
def test_edge_shapes_hold_the_properties(text: str) -> None:
    parser_property(text)
    judge_property(text, text, None, None)
