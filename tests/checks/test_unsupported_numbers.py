"""Numbers an answer holds that neither the evidence nor the program computed."""

from filingqa.checks.unsupported_numbers import unsupported_numbers

EVIDENCE = "Net revenue was $4,186.3 million in fiscal 2024 and $3,902.7 million in 2023."


def test_numbers_must_come_from_evidence_or_computation() -> None:
    assert unsupported_numbers("Revenue was $4,186.3 million in 2024.", EVIDENCE) == []
    assert unsupported_numbers("Growth was 7.27%.", EVIDENCE, computed=[7.2668]) == []
    assert unsupported_numbers("Revenue was $5,000 million.", EVIDENCE) == [5000.0]


def test_a_small_computed_value_shown_to_two_decimals_counts_as_computed() -> None:
    # 0.954955 is shown as 0.95: 0.5% relative tolerance alone would call that invented
    assert unsupported_numbers("0.95", "Termination 106; total 111", computed=[0.954955]) == []
    assert unsupported_numbers("0.97", "Termination 106; total 111", computed=[0.954955]) == [0.97]


def test_a_known_figure_restated_at_another_scale_is_supported() -> None:
    capex = "(In millions) Purchases of property and equipment (4,625)"
    assert unsupported_numbers("$4.63 billion", capex) == []
    assert unsupported_numbers("4.6 billion", capex) == []  # rounded as written
    assert unsupported_numbers("4.63 billion", "", computed=[4625.0]) == []
    assert unsupported_numbers("$5.2 billion", capex) == [5.2]
    assert unsupported_numbers("4.9 billion", capex) == [4.9]  # 6% off is another figure
