from filingqa.checks.sign_check import sign_feedback, sign_repaired, subtracted_negatives

CASH_FLOW = (
    "| | 2024 | 2023 |\n"
    "| Net cash provided by operating activities | 812.4 | 755.1 |\n"
    "| Purchases of property and equipment | (412.6) | (390.2) |"
)
FCF = "What was free cash flow in fiscal 2024?"


def test_subtracting_a_parenthesised_outflow_made_negative_is_found() -> None:
    program = "cfo = 812.4\ncapex = -412.6\nresult = cfo - capex"
    assert subtracted_negatives(program, CASH_FLOW, FCF) == [412.6]


def test_a_negative_literal_subtracted_directly_is_found() -> None:
    assert subtracted_negatives("result = 812.4 - (-412.6)", CASH_FLOW, FCF) == [412.6]
    assert subtracted_negatives("x = 812.4\nx -= -412.6\nresult = x", CASH_FLOW, FCF) == [412.6]


def test_the_sign_applied_once_passes() -> None:
    assert subtracted_negatives("result = 812.4 - 412.6", CASH_FLOW, FCF) == []
    assert subtracted_negatives("capex = -412.6\nresult = 812.4 + capex", CASH_FLOW, FCF) == []


def test_a_change_question_may_subtract_a_loss() -> None:
    question = "What was the change in purchases of property and equipment from 2023 to 2024?"
    assert subtracted_negatives("result = 812.4 - (-412.6)", CASH_FLOW, question) == []


def test_two_negatives_subtracted_are_a_difference_not_a_sign_slip() -> None:
    program = "a = -412.6\nb = -390.2\nresult = a - b"
    assert subtracted_negatives(program, CASH_FLOW, FCF) == []


def test_a_negative_the_evidence_does_not_parenthesise_is_left_alone() -> None:
    evidence = "Operating cash flow was 812.4 and the net loss was -50.0."
    assert subtracted_negatives("result = 812.4 - (-50.0)", evidence, FCF) == []


def test_a_name_assigned_twice_is_not_trusted_as_a_literal() -> None:
    program = "capex = -412.6\ncapex = abs(capex)\nresult = 812.4 - capex"
    assert subtracted_negatives(program, CASH_FLOW, FCF) == []


def test_unparseable_programs_are_not_flagged() -> None:
    assert subtracted_negatives("result = (812.4 -", CASH_FLOW, FCF) == []


def test_feedback_names_the_figure_and_the_fix() -> None:
    text = sign_feedback([412.6])
    assert "(412.6)" in text
    assert "subtract the plain number" in text


def test_the_repair_subtracts_each_slip_as_its_magnitude_and_keeps_the_rest() -> None:
    program = (
        "# free cash flow\n"
        "cfo = 812.4  # operating\n"
        "capex = -412.6\n"
        "fcf = cfo - capex\n"
        "fcf -= -390.2\n"
        "result = fcf - (-412.6)"
    )
    assert sign_repaired(program, CASH_FLOW, FCF) == (
        "# free cash flow\n"
        "cfo = 812.4  # operating\n"
        "capex = -412.6\n"
        "fcf = cfo - abs(capex)\n"
        "fcf -= abs(-390.2)\n"
        "result = fcf - (abs(-412.6))"
    )


def test_the_repair_counts_columns_in_bytes_past_non_ascii_text() -> None:
    program = 'label = "€ millions"; result = 812.4 - -412.6'
    assert sign_repaired(program, CASH_FLOW, FCF) == (
        'label = "€ millions"; result = 812.4 - abs(-412.6)'
    )


def test_the_repaired_program_passes_the_check() -> None:
    repaired = sign_repaired("result = 812.4 - (-412.6)", CASH_FLOW, FCF)
    assert repaired is not None
    assert subtracted_negatives(repaired, CASH_FLOW, FCF) == []


def test_nothing_to_repair_gives_none() -> None:
    assert sign_repaired("result = 812.4 - 412.6", CASH_FLOW, FCF) is None
    question = "What was the change in purchases of property and equipment from 2023 to 2024?"
    assert sign_repaired("result = 812.4 - (-412.6)", CASH_FLOW, question) is None
