"""FinQA: DSL → Python translation, TAT-LLM prompt parsing and both record formats."""

from __future__ import annotations

from pathlib import Path

import pytest

from filingqa.datasets import load_dataset
from filingqa.datasets.finqa import (
    finqa_number,
    finqa_program_to_python,
    parse_finqa_program,
    parse_tatllm_prompt,
)

from .conftest import TATLLM_PROMPT

TABLE = [
    ["item", "2019", "2018", "2017"],
    ["revenue", "$ 120", "$ 100", "$ 80"],
    ["net income ( loss )", "-26 ( 26 )", "( 4 )", "n/a"],
    ["margin", "11.4% ( 11.4 % )", "7.8% ( 7.8 % )", "7.4% ( 7.4 % )"],
]


def run(program: str, table: list[list[str]] = TABLE) -> object:
    namespace: dict[str, object] = {}
    exec(finqa_program_to_python(program, table), namespace)
    return namespace["result"]


@pytest.mark.parametrize(
    ("program", "expected"),
    [
        ("add(1, 2)", 3),
        ("subtract(5829, 5735)", 94),
        ("multiply(2.5, 4)", 10),
        ("divide(637, const_5)", 127.4),
        ("exp(2, 3)", 8),
        ("exp(-2, 2)", 4),  # negative operands are parenthesised
        ("exp(const_m1, 2)", 1),
        ("greater(3, 2)", True),
        ("greater(2, 3)", False),
        ("table_sum(revenue, none)", 300),
        ("table_average(revenue, none)", 100),
        ("table_max(revenue, none)", 120),
        ("table_min(revenue, none)", 80),
    ],
)
def test_each_op(program: str, expected: object) -> None:
    assert run(program) == pytest.approx(expected)


def test_step_refs_and_constants() -> None:
    assert run("subtract(5829, 5735), divide(#0, 5735)") == pytest.approx(94 / 5735)
    assert run("add(const_100, const_m1), multiply(#0, const_1000)") == 99_000
    assert run("add(1, 2), add(#0, 3), subtract(#1, #0)") == 3


def test_percent_operands_are_fractions() -> None:
    assert run("multiply(61%, 200)") == pytest.approx(122)
    assert run("subtract(1.61%, const_1)") == pytest.approx(-0.9839)


def test_table_rows_parse_cells_like_finqa() -> None:
    assert run("table_min(net income ( loss ), none)") == -26  # "n/a" skipped, "( 4 )" = -4
    assert run("table_sum(net income ( loss ), none)") == -30
    assert run("table_average(margin, none), table_max(margin, none), subtract(#1, #0)") == (
        pytest.approx(0.114 - (0.114 + 0.078 + 0.074) / 3)
    )
    assert run("table_max(REVENUE , none)") == 120  # case and spacing are forgiven


def test_generated_code_names_steps() -> None:
    code = finqa_program_to_python("subtract(5829, 5735), divide(#0, 5735)", [])
    assert code.splitlines() == [
        "step0 = 5829.0 - 5735.0",
        "step1 = step0 / 5735.0",
        "result = step1",
    ]


def test_trailing_eof_is_ignored() -> None:
    assert parse_finqa_program("add(1, 2), EOF") == [("add", "1, 2")]


@pytest.mark.parametrize(
    ("program", "error"),
    [
        ("modulo(1, 2)", "unknown FinQA op"),
        ("add(1)", "takes 2 arguments"),
        ("add(#1, 2)", "not computed yet"),
        ("add(x, 2)", "not a FinQA operand"),
        ("table_max(no such row, none)", "no table row"),
        ("add 1 2", "cannot parse"),
        ("", "empty"),
    ],
)
def test_translation_errors(program: str, error: str) -> None:
    with pytest.raises(ValueError, match=error):
        finqa_program_to_python(program, TABLE)


@pytest.mark.parametrize(
    ("text", "value"),
    [("$ 2457", 2457), ("$ -8683 ( 8683 )", -8683), ("( 26 )", -26), ("27.9%", 0.279)],
)
def test_finqa_number(text: str, value: float) -> None:
    assert finqa_number(text) == pytest.approx(value)


def test_parse_tatllm_prompt() -> None:
    rows, paragraphs, question = parse_tatllm_prompt(TATLLM_PROMPT)
    assert rows == [
        ["item", "2019", "2018"],
        ["revenue", "120", "100"],
        ["cost ( net )", "30", "25"],
    ]
    assert [(p.id, p.text) for p in paragraphs] == [
        ("1", "revenue grew strongly ."),
        ("2", "costs were flat continued on a second line ."),
    ]
    assert question == "what was the change in revenue?"


def test_parse_tatllm_prompt_without_question() -> None:
    with pytest.raises(ValueError, match="Question"):
        parse_tatllm_prompt("### Table\n|a |1 |\n")


def test_original_format_record(synthetic_data_dir: Path) -> None:
    (record,) = load_dataset("finqa:dev", synthetic_data_dir)
    assert (record.answer, record.answer_value, record.answer_type) == ("20", 20.0, "number")
    assert record.gold_program == "subtract(120, 100)"
    assert record.documents == ["ACME/2019/page_5.pdf"]
    assert record.meta["report_page"] == 5
    assert [(e.table_rows, e.text_ids) for e in record.evidence] == [([1], []), ([], ["text_0"])]
    assert [p.id for p in record.context.paragraphs] == ["text_0", "text_1"]


def test_tatllm_format_record(synthetic_data_dir: Path) -> None:
    (record,) = load_dataset("finqa:dev9", synthetic_data_dir)
    assert (record.answer, record.answer_value) == ("20.0", 20.0)
    assert record.question == "what was the change in revenue?"
    assert record.gold_program is None
    assert record.context.tables[0].rows[1] == ["revenue", "120", "100"]
