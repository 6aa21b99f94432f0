import pytest

from filingqa.router.rule import fixed_router, loop_router, route_by_rule


@pytest.mark.parametrize(
    ("question", "path", "full_loop"),
    [
        ("What was 3M's FY2018 capital expenditure?", "pot", False),
        ("What is the percentage change in revenue from 2018 to 2019?", "pot", True),
        ("Did AMD's quick ratio improve between FY2021 and FY2022?", "pot", True),
        ("Why did services revenue stay flat?", "cot", False),
        ("Does the company have a dividend policy?", "cot", False),
        ("Which segment had the highest revenue growth in 2023 vs 2022?", "pot", True),
        ("Describe the main risks in the MD&A.", "cot", False),
    ],
)
def test_rule_routes(question: str, path: str, full_loop: bool) -> None:
    decision = route_by_rule(question)
    assert (decision.path, decision.full_loop) == (path, full_loop)
    assert decision.source == "rule"
    assert decision.reason.startswith("rule:")


@pytest.mark.parametrize("full_loop", [True, False])
def test_a_fixed_router_sends_every_question_one_way_on_the_rule_path(full_loop: bool) -> None:
    route = fixed_router(full_loop, "calibration")
    textual, figure = route("Why did margins fall?"), route("What was 2024 revenue?")
    assert (textual.path, figure.path) == ("cot", "pot")
    assert textual.full_loop is figure.full_loop is full_loop
    assert textual.source == "fixed"
    assert textual.reason == (
        f"calibration: {'full loop' if full_loop else 'single pass'} for every question"
    )


def test_the_loop_policy_is_the_router() -> None:
    assert loop_router("rule") is route_by_rule
    question = "What was the revenue in 2019?"
    assert loop_router("always")(question).full_loop
    assert not loop_router("never")(question).full_loop
