import pytest

from filingqa.checks.units import display_value, quoted_figure

from ..kit.passages import CASH_FLOW, MDNA, PENSIONS


@pytest.mark.parametrize(
    ("answer", "cited", "shown"),
    [
        ("812.4", [CASH_FLOW], "812.4 million"),  # the table says "(In millions)"
        ("$ 812.4", [CASH_FLOW], "$ 812.4 million"),
        ("(412.6)", [CASH_FLOW], "(412.6) million"),
        ("166", [PENSIONS], "166"),  # no scale stated
        ("812.4 million", [CASH_FLOW], "812.4 million"),
        ("13.0%", [CASH_FLOW], "13.0%"),
        ("2019", [CASH_FLOW], "2019"),
        ("the straight-line method", [CASH_FLOW], "the straight-line method"),
        ("812.4 and 701.9", [CASH_FLOW], "812.4 and 701.9"),
        ("812.4", [CASH_FLOW, MDNA], "812.4"),  # not every cited passage states it
    ],
)
def test_a_quoted_bare_figure_takes_the_scale_its_passage_states(
    answer: str, cited: list, shown: str
) -> None:
    assert quoted_figure(answer, cited) == shown


def test_a_computed_value_is_rounded_with_its_scale_or_percent() -> None:
    assert display_value("399.8", "What was free cash flow?", 399.8, [CASH_FLOW]) == "399.8 million"
    assert display_value("16.2", "What was the growth rate?", 16.2254, [CASH_FLOW]) == "16.23%"
    assert display_value("yes", "Q?", "yes", [CASH_FLOW]) == "yes"
