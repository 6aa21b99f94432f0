import pytest

from filingqa.router.answer_form_guess import guess_answer_form, names_computation

# (question, form, confident, asks): one row per question form the guess knows
FORMS: list[tuple[str, str, bool, str]] = [
    ("What was the percentage change in revenue from 2018 to 2019?", "computed", True, "value"),
    ("What is the average operating income for 2018 and 2019?", "computed", True, "value"),
    ("What is the ratio of total assets to total liabilities in 2019?", "computed", True, "value"),
    ("Has AMCOR's quick ratio improved or declined in FY2023?", "computed", True, "direction"),
    (
        "Did operating margin increase or decrease between FY21 and FY22?",
        "computed",
        True,
        "direction",
    ),
    ("Which segment had the highest growth in 2022?", "computed", True, "choice"),
    ("In which year was the amount of Investments higher?", "computed", True, "choice"),
    ("For Pfizer, which region had the biggest drop in revenue?", "computed", True, "choice"),
    ("What was the revenues in 2019 and 2018 respectively?", "list", True, "value"),
    ("In which years was operating income calculated for?", "list", True, "value"),
    ("What are the geographic regions in which the Company operates?", "list", True, "value"),
    ("How many years did net income exceed $30,000 thousand?", "computed", True, "value"),
    (
        "How many quarters had stock prices lower than $2.00 during their lows?",
        "computed",
        True,
        "value",
    ),
    ("How many segments were above the group average?", "count", True, "value"),
    ("How many types of finite-lived intangible assets are there?", "count", True, "value"),
    ("How many years is the minimum lifespan of the land?", "looked_up", False, "value"),
    (
        "Does AMD have a healthy liquidity profile based on its quick ratio?",
        "yes_no",
        True,
        "value",
    ),
    ("As of Q2'2023, is Pfizer spinning off any large business segments?", "yes_no", True, "value"),
    (
        "Looking at VaR, did the risk the bank faced in Q2 2023 decrease from a year earlier?",
        "yes_no",
        True,
        "value",
    ),
    ("Considering its filings, has the company paid dividends in FY2022?", "yes_no", True, "value"),
    ("Given the 10-K, what was the gross profit in 2018?", "looked_up", False, "value"),
    ("Why did operating income decrease in fiscal 2019?", "explanation", True, "value"),
    ("What drove the gross margin change in FY2022?", "explanation", True, "value"),
    ("How is the depreciation calculated?", "explanation", True, "value"),
    ("What was the gross profit in 2018?", "looked_up", False, "value"),
    (
        "How much (in USD billions) did the company pay in cash dividends?",
        "looked_up",
        False,
        "value",
    ),
    ("What is the total revenue for 2019?", "computed", False, "value"),  # stated or summed
    ("Who approved the financial statements?", "span", False, "value"),
    ("What does order intake represent?", "span", False, "value"),
]


@pytest.mark.parametrize(("question", "form", "confident", "asks"), FORMS)
def test_the_first_guess_reads_the_form_from_the_wording(
    question: str, form: str, confident: bool, asks: str
) -> None:
    guess = guess_answer_form(question)
    assert (guess.form, guess.confident, guess.asks) == (form, confident, asks), guess.reason
    assert guess.reason


@pytest.mark.parametrize(
    ("question", "computed"),
    [
        ("Is the ratio of operating cash flow to capex above 1 in 2024?", True),
        ("Was there any drop in cash and cash equivalents between FY2023 and Q2 FY2024?", True),
        ("Does the company have an improving free cash flow conversion as of FY2022?", True),
        ("Does American Water Works have positive working capital based on FY2022 data?", True),
        ("Did AMD report customer concentration in FY22?", False),
        ("As of Q2'2023, is Pfizer spinning off any large business segments?", False),
        ("Looking at VaR, did the risk the bank faced decrease from a year earlier?", True),
    ],
)
def test_a_yes_no_naming_a_computation_trend_or_metric_is_decided_by_a_program(
    question: str, computed: bool
) -> None:
    assert names_computation(question) is computed
