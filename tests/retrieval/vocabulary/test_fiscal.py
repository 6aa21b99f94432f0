"""Fiscal calendars: period ↔ dates, and period expressions in questions."""

from __future__ import annotations

from datetime import date

import pytest
from pydantic import ValidationError

from filingqa.retrieval.vocabulary.fiscal import (
    FiscalCalendar,
    PeriodRef,
    december_calendar,
    find_periods,
    fiscal_period_of,
    fiscal_span,
    nominal_month,
    parse_period,
    period_bounds,
)

BEST_BUY = FiscalCalendar(company="Best Buy", fiscal_year_end_month=1)  # Sat. nearest Jan 31
APPLE = FiscalCalendar(company="Apple", fiscal_year_end_month=9)  # last Saturday of Sept.
MICROSOFT = FiscalCalendar(company="Microsoft", fiscal_year_end_month=6, fiscal_year_end_day=30)
NIKE = FiscalCalendar(company="Nike", fiscal_year_end_month=5, fiscal_year_end_day=31)
ORACLE = FiscalCalendar(company="Oracle", fiscal_year_end_month=5, fiscal_year_end_day=31)
WALMART = FiscalCalendar(company="Walmart", fiscal_year_end_month=1, fiscal_year_end_day=31)
FOOT_LOCKER = FiscalCalendar(company="Foot Locker", fiscal_year_end_month=1, naming="start_year")
CALENDAR_YEAR = december_calendar("Verizon")


def test_best_buy_q2_fy2024_is_the_quarter_ending_july_2023() -> None:
    assert period_bounds(BEST_BUY, 2024, 2) == (date(2023, 5, 1), date(2023, 7, 31))
    assert fiscal_period_of(date(2023, 7, 29), BEST_BUY) == (2024, 2)


def test_best_buy_53_week_year_ending_in_february_still_counts_as_january() -> None:
    assert period_bounds(BEST_BUY, 2024) == (date(2023, 2, 1), date(2024, 1, 31))
    assert fiscal_period_of(date(2024, 2, 3), BEST_BUY) == (2024, 4)
    assert fiscal_period_of(date(2019, 2, 2), BEST_BUY) == (2019, 4)
    assert nominal_month(date(2024, 2, 3)) == (2024, 1)


def test_apple_fy2023_runs_october_2022_to_september_2023() -> None:
    assert period_bounds(APPLE, 2023) == (date(2022, 10, 1), date(2023, 9, 30))
    assert period_bounds(APPLE, 2023, 1) == (date(2022, 10, 1), date(2022, 12, 31))
    assert fiscal_period_of(date(2023, 9, 30), APPLE) == (2023, 4)
    assert fiscal_period_of(date(2022, 12, 31), APPLE) == (2023, 1)


def test_calendar_year_company() -> None:
    assert period_bounds(CALENDAR_YEAR, 2022) == (date(2022, 1, 1), date(2022, 12, 31))
    assert period_bounds(CALENDAR_YEAR, 2022, 3) == (date(2022, 7, 1), date(2022, 9, 30))
    assert fiscal_period_of(date(2022, 12, 31), CALENDAR_YEAR) == (2022, 4)
    assert fiscal_period_of(date(2023, 1, 3), CALENDAR_YEAR) == (2023, 1)  # fixed day: no spill


def test_52_53_week_calendar_year_ending_january_1_belongs_to_the_prior_year() -> None:
    jnj = FiscalCalendar(company="J&J", fiscal_year_end_month=12)
    assert fiscal_period_of(date(2023, 1, 1), jnj) == (2022, 4)
    assert fiscal_period_of(date(2023, 7, 2), jnj) == (2023, 2)


@pytest.mark.parametrize("cal", [NIKE, ORACLE], ids=["nike", "oracle"])
def test_may_year_ends(cal: FiscalCalendar) -> None:
    assert period_bounds(cal, 2019) == (date(2018, 6, 1), date(2019, 5, 31))
    assert period_bounds(cal, 2024, 1) == (date(2023, 6, 1), date(2023, 8, 31))
    assert period_bounds(cal, 2024, 3) == (date(2023, 12, 1), date(2024, 2, 29))
    assert fiscal_period_of(date(2023, 8, 31), cal) == (2024, 1)
    assert fiscal_period_of(date(2019, 5, 31), cal) == (2019, 4)


def test_microsoft_june_year_end_quarters_end_on_month_ends() -> None:
    quarters = [period_bounds(MICROSOFT, 2023, q) for q in (1, 2, 3, 4)]
    assert [end for _, end in quarters] == [
        date(2022, 9, 30),
        date(2022, 12, 31),
        date(2023, 3, 31),
        date(2023, 6, 30),
    ]
    assert quarters[0][0] == date(2022, 7, 1)


def test_walmart_fixed_january_31() -> None:
    assert period_bounds(WALMART, 2024, 1) == (date(2023, 2, 1), date(2023, 4, 30))
    assert fiscal_period_of(date(2024, 1, 31), WALMART) == (2024, 4)


def test_start_year_naming_names_the_year_by_its_first_month() -> None:
    assert period_bounds(FOOT_LOCKER, 2022) == (date(2022, 2, 1), date(2023, 1, 31))
    assert fiscal_period_of(date(2023, 1, 28), FOOT_LOCKER) == (2022, 4)
    assert fiscal_period_of(date(2022, 4, 30), FOOT_LOCKER) == (2022, 1)


def test_fixed_day_that_is_not_a_month_end() -> None:
    cal = FiscalCalendar(company="x", fiscal_year_end_month=9, fiscal_year_end_day=27)
    assert period_bounds(cal, 2023) == (date(2022, 9, 28), date(2023, 9, 27))
    assert period_bounds(cal, 2023, 1) == (date(2022, 9, 28), date(2022, 12, 27))
    assert fiscal_period_of(date(2023, 9, 27), cal) == (2023, 4)
    assert fiscal_period_of(date(2023, 9, 28), cal) == (2024, 1)


@pytest.mark.parametrize(
    "cal", [BEST_BUY, APPLE, MICROSOFT, NIKE, FOOT_LOCKER, CALENDAR_YEAR], ids=lambda c: c.company
)
def test_every_quarter_end_maps_back_to_its_quarter(cal: FiscalCalendar) -> None:
    for year in (2019, 2024):
        for quarter in (1, 2, 3, 4):
            _, end = period_bounds(cal, year, quarter)
            assert fiscal_period_of(end, cal) == (year, quarter)


def test_period_bounds_rejects_a_fifth_quarter() -> None:
    with pytest.raises(ValueError, match="quarter"):
        period_bounds(CALENDAR_YEAR, 2023, 5)


@pytest.mark.parametrize(
    ("text", "kind", "year", "index", "end_date", "basis"),
    [
        ("Q2 FY2024", "quarter", 2024, 2, None, "fiscal"),
        ("FY2023", "year", 2023, None, None, "fiscal"),
        ("fiscal 2022", "year", 2022, None, None, "fiscal"),
        ("fiscal year 2021", "year", 2021, None, None, "fiscal"),
        ("second quarter of fiscal 2024", "quarter", 2024, 2, None, "fiscal"),
        ("Fourth Quarter Fiscal 2022 Results", "quarter", 2022, 4, None, "fiscal"),
        ("2023Q2", "quarter", 2023, 2, None, "fiscal"),
        ("FY23", "year", 2023, None, None, "fiscal"),
        ("FY'23", "year", 2023, None, None, "fiscal"),
        ("the year ended June 30, 2023", "year", None, None, date(2023, 6, 30), "fiscal"),
        ("first half of 2023", "half", 2023, 1, None, "fiscal"),
        ("Q2 of FY2024", "quarter", 2024, 2, None, "fiscal"),
        ("4Q22", "quarter", 2022, 4, None, "fiscal"),
        ("Q3'23", "quarter", 2023, 3, None, "fiscal"),
        ("As of Q2'2023, is Pfizer", "quarter", 2023, 2, None, "fiscal"),
        ("FY24 Q2", "quarter", 2024, 2, None, "fiscal"),
        ("H1 FY24", "half", 2024, 1, None, "fiscal"),
        ("1H23", "half", 2023, 1, None, "fiscal"),
        ("CY2023", "year", 2023, None, None, "calendar"),
        ("calendar year 2022", "year", 2022, None, None, "calendar"),
        ("first nine months of 2023", "nine_months", 2023, None, None, "fiscal"),
        (
            "nine months ended Sept. 30, 2023",
            "nine_months",
            None,
            None,
            date(2023, 9, 30),
            "fiscal",
        ),
        ("six months ended July 29, 2023", "half", None, None, date(2023, 7, 29), "fiscal"),
        ("the 13 weeks ended April 29, 2023", "quarter", None, None, date(2023, 4, 29), "fiscal"),
        ("fifty-two weeks ended January 28, 2023", "year", None, None, date(2023, 1, 28), "fiscal"),
        ("revenue in 2019?", "year", 2019, None, None, "fiscal"),
    ],
)
def test_parse_period(
    text: str, kind: str, year: int | None, index: int | None, end_date: date | None, basis: str
) -> None:
    ref = parse_period(text)
    assert ref is not None
    assert (ref.kind, ref.year, ref.index, ref.end_date, ref.basis) == (
        kind,
        year,
        index,
        end_date,
        basis,
    )


def test_find_periods_returns_every_period_in_order() -> None:
    refs = find_periods("Was there any drop in cash between FY 2023 and Q2 of FY2024?")
    assert [(r.kind, r.year, r.index, r.text) for r in refs] == [
        ("year", 2023, None, "FY 2023"),
        ("quarter", 2024, 2, "Q2 of FY2024"),
    ]
    assert [r.year for r in find_periods("the FY2015 - FY2017 average")] == [2015, 2017]


@pytest.mark.parametrize(
    "text", ["no period here", "its Q1 10-Q filing", "as of December 31, 2022", "Feb 30, 2023"]
)
def test_no_period_is_found_where_there_is_none(text: str) -> None:
    assert parse_period(text) is None


def test_a_bare_date_masks_its_year() -> None:
    refs = find_periods("total assets as of December 31, 2022 versus 2021")
    assert [r.year for r in refs] == [2021]


def test_period_ref_needs_exactly_one_of_year_and_end_date() -> None:
    with pytest.raises(ValidationError):
        PeriodRef(kind="year")
    with pytest.raises(ValidationError):
        PeriodRef(kind="year", year=2023, end_date=date(2023, 6, 30))
    with pytest.raises(ValidationError):
        PeriodRef(kind="quarter", year=2023)


def test_fiscal_span_of_year_ended_date() -> None:
    span = fiscal_span(parse_period("the year ended June 30, 2023"), MICROSOFT)
    assert (span.fiscal_year, span.quarters) == (2023, (1, 2, 3, 4))
    assert (span.start, span.end) == (date(2022, 7, 1), date(2023, 6, 30))


def test_fiscal_span_of_six_months_ended_on_a_52_53_week_calendar() -> None:
    span = fiscal_span(parse_period("six months ended July 29, 2023"), BEST_BUY)
    assert (span.fiscal_year, span.quarters) == (2024, (1, 2))
    assert (span.start, span.end) == (date(2023, 2, 1), date(2023, 7, 29))


def test_fiscal_span_of_half_and_nine_months() -> None:
    half = fiscal_span(parse_period("first half of FY2024"), BEST_BUY)
    assert (half.quarters, half.start, half.end) == ((1, 2), date(2023, 2, 1), date(2023, 7, 31))
    second = fiscal_span(parse_period("H2 2023"), CALENDAR_YEAR)
    assert (second.quarters, second.start) == ((3, 4), date(2023, 7, 1))
    nine = fiscal_span(parse_period("first nine months of fiscal 2023"), APPLE)
    assert (nine.quarters, nine.end) == ((1, 2, 3), date(2023, 6, 30))


def test_calendar_basis_ignores_the_company_calendar() -> None:
    span = fiscal_span(parse_period("CY2023"), BEST_BUY)
    assert (span.start, span.end) == (date(2023, 1, 1), date(2023, 12, 31))
