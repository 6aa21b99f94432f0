"""Degenerate answers: a reply that echoes the request's own wording (a field's description,
the instructions) instead of answering, or that repeats one word or phrase over and over.
Neither is an answer, whatever else is checked about it.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from difflib import SequenceMatcher

from filingqa.core.numbers import SCALE_WORDS

ECHO_WORDS = 4  # an echo is at least this many words of the request's wording in a row
ECHO_SHARE = 0.6  # … making up at least this share of the answer's words
REPEATS = 8  # a phrase said at least this many times …
REPEATED_SHARE = 0.6  # … making up at least this share of the answer's words
_LONGEST_PHRASE = 6  # phrases of up to this many words are counted
_QUOTED = re.compile(r'"[^"]*"|“[^”]*”')  # a reply the wording prescribes is not an echo
_WORD = re.compile(r"[a-z0-9]+(?:['.][a-z0-9]+)*")
_FILLERS = frozenset(SCALE_WORDS) | {"and", "or", "the", "of", "a", "in", "to", "usd"}


def degenerate(answer: str, wording: Iterable[str] = ()) -> str | None:
    """Why ``answer`` is no answer (it echoes ``wording``, the request's instructions and
    field descriptions, or repeats itself), or None when it is not degenerate."""
    echoed = echoes(answer, wording)
    if echoed is not None:
        return f"the answer repeats the request's wording ({echoed!r}) instead of answering"
    repeated = repetition(answer)
    if repeated is not None:
        return f"the answer repeats {repeated!r} over and over instead of answering"
    return None


def echoes(answer: str, wording: Iterable[str]) -> str | None:
    """The run of words ``answer`` copies from one of ``wording``'s texts (outside the
    replies they quote, such as "not stated in the evidence"), when that run is at least
    ``ECHO_WORDS`` long and most of the answer; else None."""
    words = _words(answer)
    if len(words) < ECHO_WORDS:
        return None
    needed = max(ECHO_WORDS, round(ECHO_SHARE * len(words)))
    for text in wording:
        source = _words(_QUOTED.sub(" ", text))
        match = SequenceMatcher(None, words, source, autojunk=False).find_longest_match(
            0, len(words), 0, len(source)
        )
        if match.size >= needed:
            return " ".join(words[match.a : match.a + match.size])
    return None


def repetition(answer: str) -> str | None:
    """The phrase (one to ``_LONGEST_PHRASE`` words, not only numbers and fillers)
    ``answer`` says at least ``REPEATS`` times, its repeats making up most of the answer;
    else None."""
    words = _words(answer)
    for size in range(1, _LONGEST_PHRASE + 1):
        phrases = Counter(tuple(words[i : i + size]) for i in range(0, len(words) - size + 1))
        for phrase, count in phrases.most_common(3):
            if count < REPEATS or count * size < REPEATED_SHARE * len(words):
                break
            if any(not word.replace(".", "").isdigit() and word not in _FILLERS for word in phrase):
                return " ".join(phrase)
    return None


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())
