"""Which metrics a question names, and whether it states a metric's formula itself."""

from __future__ import annotations

import re
from typing import NamedTuple

from filingqa.checks.metric_catalogue.definitions import CATALOGUE
from filingqa.checks.metric_catalogue.metric import Metric


def _phrase(name: str) -> str:
    """``name`` as a regex for a whole phrase: hyphens and spaces alike, an optional plural
    "s"; a name in capitals ("ROA", "DPO") only in capitals."""
    phrase = r"[\s-]+".join(map(re.escape, re.split(r"[\s-]+", name)))
    if name.isupper():
        phrase = f"(?-i:{phrase})"
    return rf"(?<![\w&]){phrase}s?(?![\w&])"


_NAMES: list[tuple[re.Pattern[str], Metric]] = [
    (re.compile(_phrase(name), re.IGNORECASE), metric)
    for name, metric in sorted(
        ((name, metric) for metric in CATALOGUE.values() for name in metric.names),
        key=lambda named: -len(named[0]),
    )
]
"""A pattern for every name of every metric, longest name first."""


class Mention(NamedTuple):
    """A metric named in a text, as written there, and the span of the name."""

    metric: Metric
    written: str
    start: int
    end: int


def mentions(text: str) -> list[Mention]:
    """Every metric name in ``text``, in order; where names overlap the longer one is the
    mention ("working capital ratio" is not "working capital")."""
    found: list[Mention] = []
    for pattern, metric in _NAMES:
        found += [Mention(metric, m[0], m.start(), m.end()) for m in pattern.finditer(text)]
        text = pattern.sub(lambda match: " " * len(match[0]), text)
    return sorted(found, key=lambda mention: mention.start)


def first_mentions(text: str) -> list[Mention]:
    """The first mention of each metric ``text`` names, in order."""
    first: list[Mention] = []
    for mention in mentions(text):
        if all(mention.metric != seen.metric for seen in first):
            first.append(mention)
    return first


def metrics_named(question: str) -> list[Metric]:
    """The metrics ``question`` names, each once, in order of first mention."""
    return [mention.metric for mention in first_mentions(question)]


_VERB = r"(?:defined|calculated|computed|measured|derived)"
_QUALIFIERS = r"(?:[\w&-]+\s+){0,2}?"
_USING = r"using\s+(?!(?:the|only|its|information|data|details)\b)"  # not "using the 10-K"
_DEFINING = (
    # "Define working capital ratio as ...", "Calculate unadjusted EBITDA using ..."
    rf"\b(?:define[sd]?|calculate[sd]?|compute[sd]?)\s+{_QUALIFIERS}NAME\s+(?:as|to be|{_USING})",
    # "ROA is defined as: ...", "FCF here is defined as ...", "ROA (...) is calculated as ..."
    rf"NAME(?:\s*\([^)]*\))?(?:\s+here)?\s+(?:is|are|be)\s+(?:\w+\s+)?{_VERB}\s+(?:as|by)\b",
    # "ROA = net income / ..."
    r"NAME(?:\s*\([^)]*\))?\s*:?=",
    # "dividend payout ratio (using total cash dividends paid and ...)"
    rf"NAME\s*\(\s*(?:{_USING}|{_VERB}\b)",
    # "operating income + depreciation and amortization (unadjusted EBITDA)", not "FY2019 -
    # FY2020 return on assets (ROA)"
    rf"(?:[+*/×÷]|\s-\s(?!(?:FY)?\s?\d))[^.?!()]*\(\s*{_QUALIFIERS}NAME\s*\)",
)


def question_defines(question: str, metric: Metric) -> bool:
    """Whether ``question`` states its own formula for ``metric`` ("ROA is defined as: ...",
    "Define working capital ratio as ...", "payout ratio (using ... and ...)"): that formula
    wins over the catalogue's."""
    masked = question
    for other in mentions(question):
        if other.metric != metric:
            masked = masked[: other.start] + " " * len(other.written) + masked[other.end :]
    return any(_defines(masked, name) for name in metric.names)


def _defines(text: str, name: str) -> bool:
    """Whether ``text`` states a formula for the metric called ``name``."""
    phrase = _phrase(name)
    return any(re.search(form.replace("NAME", phrase), text, re.IGNORECASE) for form in _DEFINING)
