"""TAT-QA: derivation → Python translation and record fields, on synthetic data."""

from __future__ import annotations

from pathlib import Path

import pytest

from filingqa.datasets import load_dataset
from filingqa.datasets.tatqa import tatqa_derivation_to_python

from .conftest import tatqa_context, tatqa_question, write_json


def run(derivation: str, scale: str = "") -> float:
    namespace: dict[str, float] = {}
    exec(tatqa_derivation_to_python(derivation, scale), namespace)
    return namespace["result"]


@pytest.mark.parametrize(
    ("derivation", "scale", "expected"),
    [
        ("44.1-56.7", "million", -12.6),
        ("(428,501 + 423,209 )/2 ", "", 425855),
        ("$788,948-$718,892", "thousand", 70056),
        ("[(166+178)/2] - [(57+44)/2]", "million", 121.5),
        ("−1.9 − (−2.2)", "million", 0.3),  # unicode minus signs
        ("$5,121 +$(-5,946) + $17,592 ", "thousand", 16767),
        ("3 + (13) + 26 ", "", 16),  # (13) is an accounting negative
        ("53%*$23,406 ", "", 12405.18),
        ("(1-15%)*($2.2/15%) ", "billion", 12.4667),
        ("60.3 million + 32,137 thousand ", "thousand", 92437),
        ("2 × 3 ÷ 4", "", 1.5),
    ],
)
def test_arithmetic(derivation: str, scale: str, expected: float) -> None:
    assert run(derivation, scale) == pytest.approx(expected, abs=1e-4)


@pytest.mark.parametrize(
    ("derivation", "expected"),
    [
        ("(44.1-56.7)/56.7", -22.2222),  # a ratio is a fraction: times 100
        ("126 / 67 - 1", 88.0597),
        ("34% + 11% ", 45),  # x% terms are fractions too
        ("(2.7%+2.0%+1.0%)/3", 1.9),
        ("40.0-38.1", 1.9),  # already percentage points
        ("(15.2 + 17.1)/2 ", 16.15),  # a mean of percentages stays in percent
        ("(2.5+2.4+3.2)/(2019-2017+1)", 2.7),
    ],
)
def test_percent_scale(derivation: str, expected: float) -> None:
    assert run(derivation, "percent") == pytest.approx(expected, abs=1e-4)


def test_without_scale_the_value_is_raw() -> None:
    assert run("(44.1-56.7)/56.7") == pytest.approx(-0.2222, abs=1e-4)


@pytest.mark.parametrize(
    "derivation", ["", "1,496.5>1,202.9", "locate row 5", "import os", "1 2", "(3 + 4"]
)
def test_non_arithmetic_is_rejected(derivation: str) -> None:
    with pytest.raises(ValueError, match="not an arithmetic derivation"):
        tatqa_derivation_to_python(derivation)


def test_record_fields(synthetic_data_dir: Path) -> None:
    write_json(
        synthetic_data_dir / "tatqa/tatqa_dataset_dev.json",
        [
            tatqa_context(
                [
                    tatqa_question("arith"),
                    tatqa_question(
                        "spans",
                        answer=["Sales", "$1,200"],
                        answer_type="multi-span",
                        derivation="",
                        answer_from="table",
                        rel_paragraphs=[],
                        scale="",
                    ),
                    tatqa_question("count", answer="2", answer_type="count", derivation="a##b"),
                    tatqa_question("pct", answer=20, derivation="200/1000", scale="percent"),
                ]
            )
        ],
    )
    arith, spans, count, pct = load_dataset("tatqa:dev", synthetic_data_dir)
    assert (arith.answer, arith.answer_value, arith.answer_type) == ("200", 200.0, "number")
    assert (arith.scale, arith.gold_program) == ("thousand", "1,200-1,000")
    assert arith.evidence[0].text_ids == ["1"]
    assert arith.evidence[0].text == "Sales are in thousands."
    assert arith.context.tables[0].rows[1] == ["Sales", "$1,200", "$1,000"]
    assert [p.id for p in arith.context.paragraphs] == ["1", "2"]
    assert (spans.answer, spans.answer_value) == ("Sales; $1,200", ["Sales", "$1,200"])
    assert (spans.answer_type, spans.gold_program, spans.unit) == ("multi_span", None, "USD")
    assert (count.answer_type, count.answer_value) == ("count", 2.0)
    assert (pct.scale, pct.unit) == ("percent", "%")
