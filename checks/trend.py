"""What a yes/no question asks of one figure: a direction between two periods ("an improving
gross margin", "any drop in cash"), a sign ("positive working capital"), or health ("a
reasonably healthy liquidity profile based on its quick ratio").

Code can decide each from the figures: the later period's value against the earlier
one's, the value against zero, or the value against the level a metric is conventionally
healthy from. A question that also names a threshold of its own ("by more than 10%",
"above 1.5") asks something else, and gets none of them.
"""

from __future__ import annotations

import re
from typing import Literal

from filingqa.retrieval.vocabulary.fiscal import find_periods

Direction = Literal["up", "down"]
Sign = Literal["positive", "negative"]

_UP = re.compile(
    r"\b(improv(e|es|ed|ing|ement)|increas(e|es|ed|ing)|grow(s|n|ing)?|grew|"
    r"ris(e|es|en|ing)|rose|higher|expand(s|ed|ing)?)\b",
    re.IGNORECASE,
)
_DOWN = re.compile(
    r"\b(declin(e|es|ed|ing)|decreas(e|es|ed|ing)|drop(s|ped)?|fall(s|en|ing)?|fell|"
    r"lower|deteriorat(e|es|ed|ing|ion)|worsen(s|ed|ing)?|shr(ink|ank|unk))\b",
    re.IGNORECASE,
)
_SIGN = re.compile(r"\b(positive|negative)\b", re.IGNORECASE)
_HEALTH = re.compile(r"\b(healthy|health|strong|sound|adequate|sufficient)\b", re.IGNORECASE)
_NUMBER = re.compile(r"\d")


def asked_direction(question: str) -> Direction | None:
    """The one direction ``question`` asks about ("up" for improving, growing, rising;
    "down" for a drop, a decline), or None: neither, both, or a threshold of its own."""
    up, down = bool(_UP.search(question)), bool(_DOWN.search(question))
    if up == down or _names_threshold(question):
        return None
    return "up" if up else "down"


def asked_sign(question: str) -> Sign | None:
    """The sign ``question`` asks about ("positive working capital"), or None: no sign
    word, both, a direction asked too, or a threshold of its own."""
    signs = {word.lower() for word in _SIGN.findall(question)}
    if len(signs) != 1 or asked_direction(question) or _names_threshold(question):
        return None
    return "positive" if signs == {"positive"} else "negative"


def asks_health(question: str) -> bool:
    """Whether ``question`` asks if a figure is healthy (strong, adequate), with neither a
    direction, a sign nor a threshold of its own."""
    plain = asked_direction(question) is None and asked_sign(question) is None
    return bool(_HEALTH.search(question)) and plain and not _names_threshold(question)


def _names_threshold(question: str) -> bool:
    """Whether ``question`` holds a number that is not part of a period it names."""
    rest = question
    for period in find_periods(question):
        rest = rest.replace(period.text, " ")
    return bool(_NUMBER.search(rest))
