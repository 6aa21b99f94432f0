"""Drop near-identical boilerplate from a ranking: word-shingle Jaccard, best rank kept.

Filings repeat the same paragraphs (forward-looking-statement notices, "see Note 12")
across pages and years; only the first (best-ranked) copy is worth showing. Texts are
compared as sets of normalised word n-grams, each kept as a 32-bit CRC (a set of small ints
stores in an index payload and intersects fast); pairs at or above a Jaccard threshold are
near-duplicates (exact Jaccard of the hashed sets, no MinHash).
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import TypeVar

T = TypeVar("T")

DEFAULT_THRESHOLD = 0.85
DEFAULT_SHINGLE = 3


def normalise(text: str) -> list[str]:
    """Lowercased word and number tokens (punctuation, ``$`` and thousands commas dropped)."""
    text = re.sub(r"(?<=\d),(?=\d{3})", "", text.lower())
    return re.findall(r"[a-z]+|\d+(?:\.\d+)?", text)


@lru_cache(maxsize=100_000)
def shingles(text: str, size: int = DEFAULT_SHINGLE) -> frozenset[int]:
    """The CRC32s of the ``size``-word shingles of ``text`` (the whole text if shorter)."""
    words = normalise(text)
    if len(words) <= size:
        return frozenset([_crc(words)]) if words else frozenset()
    return frozenset(_crc(words[i : i + size]) for i in range(len(words) - size + 1))


def _crc(words: list[str]) -> int:
    return zlib.crc32(" ".join(words).encode())


def jaccard(a: frozenset[int], b: frozenset[int]) -> float:
    """``|a ∩ b| / |a ∪ b|`` (0.0 for two empty sets)."""
    shared = len(a & b)
    union = len(a) + len(b) - shared
    return shared / union if union else 0.0


def dedup(
    ranked: Sequence[T],
    shingled: Callable[[T], frozenset[int]],
    *,
    threshold: float = DEFAULT_THRESHOLD,
) -> list[T]:
    """``ranked`` without items whose text is a near-duplicate of a better-ranked item's;
    ``shingled`` gives an item's :func:`shingles`.

    Only kept items of a size that could reach ``threshold`` (a Jaccard of ``t`` needs
    ``t <= |a| / |b| <= 1 / t``) are intersected.
    """
    kept: list[T] = []
    sets: list[frozenset[int]] = []
    for item in ranked:
        own = shingled(item)
        n = len(own)
        if not any(
            threshold * len(other) <= n
            and threshold * n <= len(other)
            and jaccard(own, other) >= threshold
            for other in sets
        ):
            kept.append(item)
            sets.append(own)
    return kept
