"""Gold programs with their figures named after table cells."""

from __future__ import annotations

from filingqa.optimizers.cell_names import named_program
from filingqa.sandbox import run_python

TABLE = """| | 2019 | 2018 |
|---|---|---|
| Communications Solutions: | | |
| Appliances | 680 | 774 |
| Other | (71) | 56.7 |
| Services | 300 | 300 |
| Total | 2,609 | 830 |"""


def test_figures_are_named_after_their_row_and_year() -> None:
    code = "result = (680 - 774) / 680\nresult = result * 100"
    named = named_program(code, TABLE)
    assert named.splitlines()[:2] == ["appliances_2019 = 680", "appliances_2018 = 774"]
    assert "result = (appliances_2019 - appliances_2018) / appliances_2019" in named
    assert run_python(named).value == run_python(code).value


def test_a_figure_in_two_places_and_counts_stay_literals() -> None:
    named = named_program("result = (300 + 2609) / 2", TABLE)
    assert named == "total_2019 = 2609\nresult = (300 + total_2019) / 2"


def test_a_negated_figure_printed_in_parentheses_is_named_whole() -> None:
    named = named_program("result = (-71) - 56.7", TABLE)
    assert named.splitlines()[:2] == ["other_2019 = -71", "other_2018 = 56.7"]
    assert named.endswith("result = other_2019 - other_2018")
    assert run_python(named).value == -71 - 56.7


def test_a_size_of_a_negative_cell_keeps_its_value() -> None:
    named = named_program("result = 71 + 680", TABLE)
    assert "other_2019 = -71" in named
    assert run_python(named).value == 751


def test_code_without_table_figures_is_unchanged() -> None:
    assert named_program("result = 5 / 4", TABLE) == "result = 5 / 4"
    assert named_program("result = (", TABLE) == "result = ("
    assert named_program("result = 680 - 774", "no table here") == "result = 680 - 774"
