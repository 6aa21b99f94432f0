"""Numbers as financial answers write them: ``$(1,234)``, ``−12.6``, ``14.86%``, ``$4.60B``.

Pure functions; none of them raises on any string.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

SCALE_WORDS: dict[str, float] = {
    "trillion": 1e12,
    "trillions": 1e12,
    "tn": 1e12,
    "billion": 1e9,
    "billions": 1e9,
    "bn": 1e9,
    "bil": 1e9,
    "b": 1e9,
    "million": 1e6,
    "millions": 1e6,
    "mn": 1e6,
    "mln": 1e6,
    "mil": 1e6,
    "mm": 1e6,
    "m": 1e6,
    "thousand": 1e3,
    "thousands": 1e3,
    "k": 1e3,
}

PERCENT_NAMES = frozenset({"percent", "percentage", "pct", "%"})

_SCALE_ALTERNATION = "|".join(sorted(SCALE_WORDS, key=len, reverse=True))
# After a closing bracket (``$(1,234.5) million``) only scale words of two letters or more
# count: ``(4) b`` is a list item, not four billion.
_LATE_SCALE_ALTERNATION = "|".join(
    w for w in sorted(SCALE_WORDS, key=len, reverse=True) if len(w) > 1
)

_NUMBER = re.compile(
    rf"""
    (?<![\w.,])
    (?P<open>\(\s*)?
    (?P<sign>[-−]\s*)?
    (?P<currency>(?:(?:US|C|A)?\$|[€£¥]|USD|EUR|GBP)\s*)?
    (?P<inner_open>\(\s*)?
    (?P<inner_sign>[-−]\s*)?
    (?P<body>
        [0-9]{{1,3}}(?:,[0-9]{{3}})+(?:\.[0-9]+)?(?![0-9])
      | [0-9]+,[0-9]{{1,2}}(?![0-9,])
      | [0-9]+(?:\.[0-9]+)?
      | \.[0-9]+
    )
    (?P<percent>\s*(?:%|percent(?:age)?(?:\s+points?)?\b|per\s+cent\b|pct\b))?
    (?P<scale>\s*(?:{_SCALE_ALTERNATION})(?![A-Za-z]))?
    (?P<close>\s*\))?
    (?P<late_scale>\s*(?:{_LATE_SCALE_ALTERNATION})(?![A-Za-z]))?
    """,
    re.VERBOSE | re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class ParsedNumber:
    """One number found in text.

    ``magnitude`` is the signed number as written (``4.60`` in ``$4.60B``), ``multiplier``
    the scale word's factor (``1e9``; ``1.0`` without one), ``decimals`` the precision as
    written (``2``). A percentage keeps its points: ``14.86%`` has magnitude ``14.86``.
    """

    text: str
    start: int
    magnitude: float
    multiplier: float
    scale_word: str | None
    is_percent: bool
    decimals: int

    @property
    def value(self) -> float:
        """The number in base units: magnitude times the scale multiplier."""
        return self.magnitude * self.multiplier

    @property
    def is_year_like(self) -> bool:
        """Bare digits from 1900 to 2100 (``2022``; not ``$2022``, ``2,022`` or ``2022%``)."""
        return self.text.isascii() and self.text.isdigit() and 1900 <= self.magnitude <= 2100


def _body_value(body: str) -> tuple[float, int]:
    """The unsigned value of a matched digit run and its decimal places."""
    if "." in body:
        return float(body.replace(",", "")), len(body.split(".", 1)[1])
    if re.fullmatch(r"[0-9]+,[0-9]{1,2}", body):
        whole, fraction = body.split(",")
        return float(f"{whole}.{fraction}"), len(fraction)
    return float(body.replace(",", "")), 0


def _from_match(match: re.Match[str]) -> ParsedNumber | None:
    """Build a ParsedNumber from a regex match; None if the value is not finite."""
    unsigned, decimals = _body_value(match["body"])
    bracketed = bool(match["open"] or match["inner_open"]) and bool(match["close"])
    negative = bracketed or bool(match["sign"] or match["inner_sign"])
    magnitude = -unsigned if negative else unsigned
    scale = match["scale"] or (match["late_scale"] if match["close"] else None)
    scale_word = scale.strip().lower() if scale else None
    multiplier = SCALE_WORDS[scale_word] if scale_word else 1.0
    if not math.isfinite(magnitude * multiplier):
        return None
    return ParsedNumber(
        text=match.group(0).strip(),
        start=match.start(),
        magnitude=magnitude,
        multiplier=multiplier,
        scale_word=scale_word,
        is_percent=bool(match["percent"]),
        decimals=decimals,
    )


def extract_numbers(text: str) -> list[ParsedNumber]:
    """Every number in ``text``, in reading order (``[]`` for non-strings or no number)."""
    if not isinstance(text, str):
        return []
    found = (_from_match(match) for match in _NUMBER.finditer(text))
    return [number for number in found if number is not None]


def parse_number(text: str) -> ParsedNumber | None:
    """The number when ``text`` is a single number with its units and nothing else."""
    if not isinstance(text, str):
        return None
    match = _NUMBER.fullmatch(text.strip().rstrip("."))
    return _from_match(match) if match else None


def scale_multiplier(scale: str | None) -> float:
    """Factor of a record's scale name (``"million"`` → 1e6); 1.0 for none, percent or unknown."""
    if not scale:
        return 1.0
    return SCALE_WORDS.get(scale.strip().lower(), 1.0)


def names_percent(*labels: str | None) -> bool:
    """Whether any record label (scale or unit) says the number is a percentage."""
    return any(label and label.strip().lower() in PERCENT_NAMES for label in labels)


SCALE_NAMES: dict[float, str] = {1e3: "thousand", 1e6: "million", 1e9: "billion", 1e12: "trillion"}
"""The word a scale multiplier is stated with (``1e6`` → ``million``)."""

_ASKED_SCALE = re.compile(r"(?:\bUSD|\$)\s*(thousand|million|billion)s?\b", re.IGNORECASE)


_RATIO_WORDS = re.compile(
    r"\b(?:ratios?|turnover|coverage|multiples?|times|days|DPO|DSO|DIO|DIH|per share|eps)\b",
    re.IGNORECASE,
)


def names_ratio(question: str) -> bool:
    """Whether ``question`` asks for a ratio, turnover, coverage, multiple, days or a
    per-share figure: a figure no thousand, million or billion scales."""
    return bool(_RATIO_WORDS.search(question))


def asked_scale(question: str) -> str | None:
    """The scale a question asks its amount in (``in USD millions`` → ``million``), else None."""
    match = _ASKED_SCALE.search(question) if isinstance(question, str) else None
    return match[1].lower() if match else None
