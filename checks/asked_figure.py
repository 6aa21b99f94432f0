"""How a question shapes the figure it asks for: a share of revenue ("the D&A % margin",
"cost of goods sold as a % of revenue") or an average over a span of fiscal years ("the
FY2015 - FY2017 3 year average net profit margin")."""

from __future__ import annotations

import re

from filingqa.retrieval.vocabulary.fiscal import find_periods

_SHARE_OF_REVENUE = re.compile(
    r"%\s*margin\b|\bas an? (?:%|percent(?:age)?) of (?:total |net )?(?:revenues?|sales)\b",
    re.IGNORECASE,
)
_COUNTS = {"two": 2, "three": 3, "four": 4, "five": 5}
_YEARS_AVERAGE = re.compile(
    r"\b(\d|two|three|four|five)[- ]years?\s+average\b|\baverage\b.*\bfrom\b", re.IGNORECASE
)


def asks_share_of_revenue(question: str) -> bool:
    """Whether ``question`` asks for an amount as a percentage of revenue: "% margin" after
    the amount, or "as a % of revenue" (sales)."""
    return bool(_SHARE_OF_REVENUE.search(question))


def averaged_years(question: str) -> list[int] | None:
    """The fiscal years ``question`` averages over, first to last: a "3 year average" (or
    an average "from FY2016 to FY2018") between the two fiscal years it names, their count
    agreeing with the one it states; None when it asks no such average."""
    asked = _YEARS_AVERAGE.search(question)
    years = sorted({ref.year for ref in find_periods(question) if ref.kind == "year" and ref.year})
    if asked is None or len(years) != 2:
        return None
    span = list(range(years[0], years[1] + 1))
    count = asked.group(1)
    if count is None:
        return span
    stated = int(count) if count.isdigit() else _COUNTS[count.lower()]
    return span if stated == len(span) else None
