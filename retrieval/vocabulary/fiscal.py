"""Fiscal calendars: fiscal year/quarter ↔ dates, and period expressions in questions.

A company's fiscal year ends in a fixed month (``fiscal_year_end_month``), either on a fixed
day (Microsoft: June 30) or, for 52/53-week years, on a weekday near the month end
(Best Buy: the Saturday nearest January 31, so fiscal 2024 ended February 3, 2024). The
year's *name* follows the company: most name it by the calendar year in which it ends
(``naming="end_year"``: Best Buy, Walmart, Nike, Oracle, Microsoft, Apple); a few retailers
name it by the year in which it starts (``"start_year"``: Foot Locker and Ulta Beauty call
the year ended January 28, 2023 "fiscal 2022").

Dates are exact for fixed-day calendars; for 52/53-week calendars they are month-granular
(period ends are reported as the last day of the nominal month, starts as the first day).
Quarters are three calendar months each.
"""

from __future__ import annotations

import calendar as _stdcal
import re
from collections.abc import Callable
from datetime import date, timedelta
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

Naming = Literal["end_year", "start_year"]
PeriodKind = Literal["year", "nine_months", "half", "quarter"]
Basis = Literal["fiscal", "calendar"]

SPILL_DAYS = 7
"""A 52/53-week period can end up to this many days into the month after its nominal one."""

_KIND_MONTHS: dict[str, int] = {"year": 12, "nine_months": 9, "half": 6, "quarter": 3}


class FiscalCalendar(BaseModel):
    """When a company's fiscal year ends and how it names its years."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    company: str
    fiscal_year_end_month: int = Field(ge=1, le=12)
    fiscal_year_end_day: int | None = Field(
        default=None,
        ge=1,
        le=31,
        description="fixed last day (clamped to the month length); None for 52/53-week years",
    )
    naming: Naming = Field(
        default="end_year", description="FY N ends in calendar year N (end_year) or N+1"
    )
    basis: str | None = Field(default=None, description="how the calendar was derived")


class PeriodRef(BaseModel):
    """A period named in text: "Q2 FY2024", "fiscal 2022", "the year ended June 30, 2023"."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: PeriodKind
    year: int | None = Field(default=None, description="the year as named; None if end_date")
    index: int | None = Field(default=None, description="quarter 1-4 or half 1-2 (with year)")
    end_date: date | None = Field(default=None, description="for 'the year ended <date>'")
    basis: Basis = "fiscal"
    text: str = Field(default="", description="the matched text")

    @model_validator(mode="after")
    def _check(self) -> PeriodRef:
        if (self.year is None) == (self.end_date is None):
            raise ValueError("give exactly one of year and end_date")
        limit = {"quarter": 4, "half": 2}.get(self.kind) if self.year is not None else None
        if (limit is None) != (self.index is None) or (
            limit is not None and self.index is not None and not 1 <= self.index <= limit
        ):
            raise ValueError(f"bad index {self.index} for a {self.kind} named by {self.text!r}")
        return self


class FiscalSpan(BaseModel):
    """A resolved period: its fiscal year, the quarters it covers and its dates."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    fiscal_year: int
    quarters: tuple[int, ...]
    start: date
    end: date


def december_calendar(company: str = "", basis: str | None = None) -> FiscalCalendar:
    """The calendar-year calendar (fiscal year = calendar year, ends December 31)."""
    return FiscalCalendar(
        company=company, fiscal_year_end_month=12, fiscal_year_end_day=31, basis=basis
    )


def shift_month(year: int, month: int, delta: int) -> tuple[int, int]:
    """``(year, month)`` moved by ``delta`` months."""
    index = year * 12 + month - 1 + delta
    return index // 12, index % 12 + 1


def nominal_month(day: date) -> tuple[int, int]:
    """The month a 52/53-week period ending on ``day`` is named for (Feb 2 → January)."""
    if day.day <= SPILL_DAYS:
        return shift_month(day.year, day.month, -1)
    return day.year, day.month


def _month_end_based(cal: FiscalCalendar) -> bool:
    day = cal.fiscal_year_end_day
    return day is None or day >= _stdcal.monthrange(2001, cal.fiscal_year_end_month)[1]


def _period_end(cal: FiscalCalendar, year: int, month: int) -> date:
    last = _stdcal.monthrange(year, month)[1]
    if _month_end_based(cal):
        return date(year, month, last)
    return date(year, month, min(cal.fiscal_year_end_day or last, last))


def _end_calendar_year(cal: FiscalCalendar, fiscal_year: int) -> int:
    if cal.naming == "start_year" and cal.fiscal_year_end_month != 12:
        return fiscal_year + 1
    return fiscal_year


def period_bounds(
    cal: FiscalCalendar, fiscal_year: int, quarter: int | None = None
) -> tuple[date, date]:
    """First and last day of fiscal year ``fiscal_year`` (or its ``quarter``)."""
    year, month = _end_calendar_year(cal, fiscal_year), cal.fiscal_year_end_month
    months = 12
    if quarter is not None:
        if not 1 <= quarter <= 4:
            raise ValueError(f"quarter must be 1-4, got {quarter}")
        year, month = shift_month(year, month, -3 * (4 - quarter))
        months = 3
    previous = _period_end(cal, *shift_month(year, month, -months))
    return previous + timedelta(days=1), _period_end(cal, year, month)


def fiscal_period_of(day: date, cal: FiscalCalendar) -> tuple[int, int]:
    """``(fiscal_year, quarter)`` of a period ending on ``day`` (or of a date within it).

    For 52/53-week calendars a date in the first week of a month counts toward the previous
    month, since such periods end up to a week after their nominal month.
    """
    year, month = day.year, day.month
    if cal.fiscal_year_end_day is None:
        year, month = nominal_month(day)
    elif not _month_end_based(cal) and day.day > cal.fiscal_year_end_day:
        year, month = shift_month(year, month, 1)
    offset = (month - cal.fiscal_year_end_month - 1) % 12  # 0 = first month of the year
    if cal.naming == "end_year":
        fiscal_year = shift_month(year, month, 11 - offset)[0]
    else:
        fiscal_year = shift_month(year, month, -offset)[0]
    return fiscal_year, offset // 3 + 1


def fiscal_span(ref: PeriodRef, cal: FiscalCalendar) -> FiscalSpan:
    """Fiscal year, quarters and dates of ``ref`` under ``cal`` (calendar basis: December)."""
    if ref.basis == "calendar":
        cal = december_calendar(cal.company)
    count = _KIND_MONTHS[ref.kind] // 3
    if ref.end_date is not None:
        fiscal_year, last = fiscal_period_of(ref.end_date, cal)
        quarters = tuple(q for q in range(last - count + 1, last + 1) if q >= 1)
        end = ref.end_date
        year, month = (
            nominal_month(end) if cal.fiscal_year_end_day is None else (end.year, end.month)
        )
        start = _period_end(cal, *shift_month(year, month, -3 * count)) + timedelta(days=1)
        return FiscalSpan(fiscal_year=fiscal_year, quarters=quarters, start=start, end=end)
    year, index = ref.year or 0, ref.index or 1  # the validator guarantees a year here
    first = {"quarter": index, "half": 2 * index - 1}.get(ref.kind, 1)
    quarters = tuple(range(first, first + count))
    start = period_bounds(cal, year, quarters[0])[0]
    end = period_bounds(cal, year, quarters[-1])[1]
    return FiscalSpan(fiscal_year=year, quarters=quarters, start=start, end=end)


# --- period expressions -------------------------------------------------------------------

_MONTH_NAMES = {name.lower(): i for i, name in enumerate(_stdcal.month_name) if name}
_MONTH_RE = (
    r"(?P<month>jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
DATE_RE = _MONTH_RE + r"\s+(?P<day>\d{1,2}),?\s+(?P<dyear>(?:19|20)\d{2})\b"
"""A written date such as "July 29, 2023" (groups: month, day, dyear)."""

_FY = r"(?P<fy>FY|fiscal(?:\s+year)?|CY|calendar(?:\s+year)?)"
# a year after a period word: "FY24", "fiscal 2024", "of 2024", "'24", or glued "24"
_YEAR_AFTER = (
    rf"(?:\s*(?:of\s+)?{_FY}\s*'?(?P<y1>(?:19|20)?\d{{2}})"
    r"|\s*(?:of\s+|,\s*)?(?P<y2>(?:19|20)\d{2})|\s*'(?P<y3>(?:19|20)?\d{2})|(?P<y4>\d{2}))\b"
)
_ORDINALS = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3}
_ORDINALS |= {"fourth": 4, "4th": 4}
_ORD_RE = r"(?P<ord>first|second|third|fourth|1st|2nd|3rd|4th)"
_SPAN_KINDS: dict[str, PeriodKind] = {
    "three month": "quarter",
    "3 month": "quarter",
    "13 week": "quarter",
    "thirteen week": "quarter",
    "quarter": "quarter",
    "quarterly period": "quarter",
    "six month": "half",
    "6 month": "half",
    "26 week": "half",
    "twenty six week": "half",
    "nine month": "nine_months",
    "9 month": "nine_months",
    "39 week": "nine_months",
    "thirty nine week": "nine_months",
}
_SPAN_RE = (
    r"(?P<span>(?:three|six|nine|twelve|3|6|9|12)[-\s]months?|"
    r"(?:13|26|39|52|53|thirteen|twenty-six|thirty-nine|fifty-two|fifty-three)[-\s]weeks?|"
    r"(?:fiscal\s+)?(?:year|quarter|quarterly\s+period))"
)

Builder = Callable[[re.Match[str]], PeriodRef | None]


def match_date(match: re.Match[str]) -> date | None:
    """The date a :data:`DATE_RE` match names, or None if there is no such day (Feb 30)."""
    month = next(i for name, i in _MONTH_NAMES.items() if name[:3] == match["month"][:3].lower())
    try:
        return date(int(match["dyear"]), month, int(match["day"]))
    except ValueError:
        return None


def _year(match: re.Match[str]) -> int:
    groups = match.groupdict()
    token = next(groups[g] for g in ("y", "y1", "y2", "y3", "y4") if groups.get(g))
    value = int(token.lstrip("'"))
    return value + 2000 if value < 100 else value


def _basis(match: re.Match[str]) -> Basis:
    prefix = match.groupdict().get("fy") or ""
    return "calendar" if prefix.lower().startswith(("cy", "cal")) else "fiscal"


def _ref(match: re.Match[str], kind: PeriodKind, index: int | None = None) -> PeriodRef:
    return PeriodRef(
        kind=kind, year=_year(match), index=index, basis=_basis(match), text=match[0].strip()
    )


def _index(match: re.Match[str]) -> int:
    groups = match.groupdict()
    token = groups.get("q") or groups.get("h")
    return int(token) if token else _ORDINALS[groups["ord"].lower()]


def _ended(match: re.Match[str]) -> PeriodRef | None:
    end_date = match_date(match)
    if end_date is None:
        return None
    span = re.sub(r"[\s-]+", " ", match["span"].lower()).removeprefix("fiscal ").rstrip("s")
    kind = _SPAN_KINDS.get(span, "year")
    return PeriodRef(kind=kind, end_date=end_date, text=match[0].strip())


def _quarter(match: re.Match[str]) -> PeriodRef:
    return _ref(match, "quarter", _index(match))


def _half(match: re.Match[str]) -> PeriodRef:
    return _ref(match, "half", _index(match))


def _year_ref(match: re.Match[str]) -> PeriodRef:
    return _ref(match, "year")


def _nine(match: re.Match[str]) -> PeriodRef:
    return _ref(match, "nine_months")


def _flags(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


_PATTERNS: list[tuple[re.Pattern[str], Builder]] = [
    (_flags(rf"\b{_SPAN_RE}\s+(?:period\s+)?end(?:ed|ing)\s+{DATE_RE}"), _ended),
    (_flags(r"\bQ(?P<q>[1-4])" + _YEAR_AFTER), _quarter),
    (_flags(r"\b(?P<q>[1-4])Q" + _YEAR_AFTER), _quarter),
    (_flags(rf"\b{_ORD_RE}[-\s]+(?:fiscal\s+)?quarter" + _YEAR_AFTER), _quarter),
    (_flags(rf"\b{_FY}\s*'?(?P<y>(?:19|20)?\d{{2}})\s*[,-]?\s*Q(?P<q>[1-4])\b"), _quarter),
    (_flags(rf"\b{_FY}\s*'?(?P<y>(?:19|20)?\d{{2}})\s*[,-]?\s*H(?P<h>[12])\b"), _half),
    (_flags(r"\b(?P<y>(?:19|20)\d{2})\s*[-/]?\s*Q(?P<q>[1-4])\b"), _quarter),
    (_flags(r"\b(?P<y>(?:19|20)\d{2})\s*[-/]?\s*H(?P<h>[12])\b"), _half),
    (_flags(r"\b(?P<ord>first|second|1st|2nd)\s+half" + _YEAR_AFTER), _half),
    (_flags(r"\bH(?P<h>[12])" + _YEAR_AFTER), _half),
    (_flags(r"\b(?P<h>[12])H" + _YEAR_AFTER), _half),
    (_flags(r"\b(?:first\s+)?nine\s+months(?:\s+of)?" + _YEAR_AFTER), _nine),
    (_flags(r"\b9M" + _YEAR_AFTER), _nine),
    (_flags(rf"\b{_FY}\s*'?(?P<y>(?:19|20)\d{{2}}|\d{{2}})\b"), _year_ref),
    (_flags(DATE_RE), lambda _m: None),  # a bare date ("as of July 29, 2023") is no period
    (_flags(r"\b(?P<y>(?:19|20)\d{2})\b"), _year_ref),
]


def find_periods(text: str) -> list[PeriodRef]:
    """Every period expression in ``text``, in order (longest match wins on overlaps).

    Bare years and ``Q2 2024``-style names are read as fiscal (the basis filings report in);
    ``CY2023`` / ``calendar 2023`` are calendar years.
    """
    hits: list[tuple[int, int, int, re.Match[str]]] = []
    for order, (pattern, _builder) in enumerate(_PATTERNS):
        hits += [(m.start(), -m.end(), order, m) for m in pattern.finditer(text)]
    refs: list[PeriodRef] = []
    taken_until = -1
    for start, neg_end, order, match in sorted(hits, key=lambda h: h[:3]):
        if start < taken_until:
            continue
        taken_until = -neg_end
        ref = _PATTERNS[order][1](match)
        if ref is not None:
            refs.append(ref)
    return refs


def parse_period(text: str) -> PeriodRef | None:
    """The first period expression in ``text``, or None."""
    refs = find_periods(text)
    return refs[0] if refs else None
