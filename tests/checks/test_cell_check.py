from filingqa.checks.cell_check import cell_feedback, misreads

PENSIONS = """| | 2019 €m | 2018 €m | 2017 €m |
|---|---|---|---|
| Defined contribution schemes | 166 | 178 | 192 |
| Defined benefit schemes | 57 | 44 | 20 |
| Total amounts charged | 223 | 222 | 212 |"""

ASSETS = """| | 2019 | 2018 |
|---|---|---|
| Other assets(1) | 18,111 | 9,521 |
| Goodwill | 122,853 | 102,228 |
| Total other assets | 140,964 | 111,749 |"""


def test_a_figure_from_a_similarly_named_row_is_reported_with_the_right_row() -> None:
    program = "contribution = 166\nprior = 178\nresult = (contribution + prior) / 2"
    found = misreads(program, PENSIONS, "What is the 2019 average defined benefit schemes?")
    assert [m.value for m in found] == [166.0, 178.0]
    feedback = cell_feedback(found)
    assert "166 is 'Defined contribution schemes' (2019 €m)" in feedback
    assert "'Defined benefit schemes' (2019 €m = 57; 2018 €m = 44; 2017 €m = 20)" in feedback
    assert feedback.count("Defined benefit schemes") == 1  # one sentence per row meant


def test_a_total_row_is_not_the_other_row_the_question_names() -> None:
    program = "a = 140964\nb = 111749\nresult = a - b"
    found = misreads(program, ASSETS, "What was the change in Other assets in 2019 from 2018?")
    assert {m.value for m in found} == {140964.0, 111749.0}
    assert "'Other assets(1)' (2019 = 18,111; 2018 = 9,521)" in cell_feedback(found)


def test_a_name_with_a_year_bound_to_another_years_column_is_reported() -> None:
    program = "benefit_2019 = 44\nbenefit_2018 = 57\nresult = benefit_2019 - benefit_2018"
    found = misreads(program, PENSIONS, "What was the change in defined benefit schemes?")
    assert [m.value for m in found] == [44.0, 57.0]
    assert "benefit_2019 is for 2019: 'Defined benefit schemes' under 2019 €m is 57" in (
        cell_feedback(found)
    )


def test_the_right_cells_pass() -> None:
    program = "benefit_2019 = 57\nbenefit_2018 = 44\nresult = (benefit_2019 + benefit_2018) / 2"
    assert misreads(program, PENSIONS, "What is the 2019 average defined benefit schemes?") == []


def test_rows_the_question_does_not_resemble_are_left_alone() -> None:
    # the question names 'Defined benefit schemes' only; a total used as a denominator shares
    # no word with it, so it is not taken for a misread row
    program = "benefit = 57\ntotal = 223\nresult = benefit / total"
    question = "What share of amounts charged came from defined benefit schemes in 2019?"
    assert misreads(program, PENSIONS, question) == []


def test_counts_years_and_unparseable_programs_are_ignored() -> None:
    assert misreads("result = (57 + 44) / 2 * 100", PENSIONS, "defined benefit 2019") == []
    assert misreads("result = (", PENSIONS, "defined benefit schemes") == []
    assert misreads("result = 166", "no tables here", "defined benefit schemes") == []


def test_sharing_only_the_word_total_does_not_make_rows_alike() -> None:
    table = (
        "| | 2019 |\n|---|---|\n| Total revenues | 900 |\n| Total expenses | 700 |\n| Total | 50 |"
    )
    question = "What were total expenses as a share of total revenues in 2019?"
    assert misreads("result = 700 / 900", table, question) == []
    assert misreads("result = 50 / 900", table, "What were total expenses in 2019?") == []


def test_another_tables_row_and_possessives_are_not_misreads() -> None:
    evidence = (
        "| | 2024 | 2023 |\n|---|---|---|\n| Operating cash flow | 812.4 | 701.9 |\n\n"
        "--- page 9, table ---\n| | 2024 |\n|---|---|\n| Beta operating cash flow | 95.0 |"
    )
    assert misreads("result = 95.0", evidence, "What was Beta's operating cash flow?") == []
    # without the possessive rule Beta's row would not be named; without the same-table
    # rule Acme's row would still be taken for the one meant
    other = "| | 2024 |\n|---|---|\n| Operating cash flow | 812.4 |\n\n| | 2024 |\n|---|---|\n"
    other += "| Operating cash flow, Beta segment | 95.0 |"
    assert misreads("result = 95.0", other, "What was the operating cash flow in 2024?") == []
