"""Quotes from the evidence: found verbatim, bounded in length, located for the citation.

An extracted answer (a looked-up figure, a span, the items of a list) must be a quote: it
occurs in a passage once case, spacing, table pipes and typographic quotes and dashes are
set aside, it is at most ``max_words`` long, and it is not a whole passage (a quote of a
whole passage is not an answer). Duplicates among several quotes are merged.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from functools import lru_cache
from typing import Literal

from pydantic import BaseModel, ConfigDict

from filingqa.records.documents import Passage

MAX_QUOTE_WORDS = 40  # a span answer; an explanation's quote may be longer
WHOLE_PASSAGE_SHARE = 0.8  # a quote holding this much of a passage's words is the passage
MIN_WHOLE_PASSAGE_WORDS = 12  # shorter passages (a table cell, a label) may be quoted whole

_SAME = str.maketrans(
    {"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u2013": "-", "\u2014": "-"}
)
_EDGE = " \t\n.,;:!?\"'()[]"
_WORD = re.compile(r"\w+")

QuoteProblem = Literal["empty", "not_found", "too_long", "whole_passage"]


class QuoteLocation(BaseModel):
    """Where a quote is: its passage and the passage's own text of it."""

    model_config = ConfigDict(frozen=True)

    passage_id: str
    doc_id: str
    page: int
    start: int
    end: int
    text: str


class CheckedQuote(BaseModel):
    """A quote as given, where it was found, or the problem with it."""

    model_config = ConfigDict(frozen=True)

    quote: str
    location: QuoteLocation | None = None
    problem: QuoteProblem | None = None

    @property
    def ok(self) -> bool:
        """Whether the quote was found and is within bounds."""
        return self.problem is None

    def feedback(self) -> str:
        """What is wrong with it, said to the model that gave it."""
        said = {
            "empty": "the quote is empty",
            "not_found": f"'{self.quote}' does not occur in the evidence: copy the words exactly",
            "too_long": f"'{_shortened(self.quote)}' is too long: quote only the words that answer",
            "whole_passage": f"'{_shortened(self.quote)}' is a whole passage: quote only the "
            "words that answer",
        }
        return said[self.problem] if self.problem else ""


def normalized(text: str) -> tuple[str, list[int]]:
    """``text`` lower-cased with table pipes, typographic quotes and dashes and runs of
    whitespace made plain, and for each character kept its index in ``text``."""
    chars: list[str] = []
    origin: list[int] = []
    for index, char in enumerate(text):
        plain = unicodedata.normalize("NFKC", char).translate(_SAME).lower()
        if plain == "|" or plain.isspace():
            plain = " "
        for piece in plain:
            if piece == " " and (not chars or chars[-1] == " "):
                continue
            if piece.isdigit() and chars[-2:-1] == ["$"] and chars[-1:] == [" "]:
                chars.pop()  # "$ 1,496.5" as a table prints it reads "$1,496.5"
                origin.pop()
            chars.append(piece)
            origin.append(index)
    return "".join(chars), origin


@lru_cache(maxsize=64)
def _normalized_passage(text: str) -> tuple[str, list[int]]:
    """:func:`normalized` of a passage, computed once for the several quotes checked in it."""
    return normalized(text)


def check_quote(
    quote: str, passages: list[Passage], *, max_words: int = MAX_QUOTE_WORDS
) -> CheckedQuote:
    """``quote`` located in the first passage that holds it, or the problem with it."""
    needle = normalized(quote.strip(_EDGE))[0].strip()
    if not needle:
        return CheckedQuote(quote=quote, problem="empty")
    words = len(_WORD.findall(needle))
    if words > max_words:
        return CheckedQuote(quote=quote, problem="too_long")
    for passage in passages:
        haystack, origin = _normalized_passage(passage.text)
        start = haystack.find(needle)
        if start < 0:
            continue
        passage_words = len(_WORD.findall(haystack))
        if (
            passage_words >= MIN_WHOLE_PASSAGE_WORDS
            and words >= WHOLE_PASSAGE_SHARE * passage_words
        ):
            return CheckedQuote(quote=quote, problem="whole_passage")
        first, last = origin[start], origin[start + len(needle) - 1] + 1
        location = QuoteLocation(
            passage_id=passage.id,
            doc_id=passage.doc_id,
            page=passage.page,
            start=first,
            end=last,
            text=passage.text[first:last],
        )
        return CheckedQuote(quote=quote, location=location)
    return CheckedQuote(quote=quote, problem="not_found")


def merged(quotes: Iterable[CheckedQuote]) -> list[CheckedQuote]:
    """The quotes in order, each wording once (compared as :func:`normalized` reads them)."""
    seen: set[str] = set()
    kept: list[CheckedQuote] = []
    for quote in quotes:
        key = normalized(quote.quote.strip(_EDGE))[0].strip()
        if key not in seen:
            seen.add(key)
            kept.append(quote)
    return kept


def _shortened(text: str, words: int = 12) -> str:
    parts = text.split()
    return " ".join(parts[:words]) + (" …" if len(parts) > words else "")
