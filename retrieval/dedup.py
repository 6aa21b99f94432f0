"""Drop near-identical boilerplate from a ranking: word-shingle Jaccard, best rank kept.

Filings repeat the same paragraphs (forward-looking-statement notices, "see Note 12")
across pages and years; only the first (best-ranked) copy is worth showing. Texts are
compared as sets of normalised word n-grams; pairs at or above a Jaccard threshold are
near-duplicates (exact Jaccard, no MinHash).
"""

from __future__ import annotations

import re
from collections import Counter
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
def shingles(text: str, size: int = DEFAULT_SHINGLE) -> frozenset[tuple[str, ...]]:
    """The set of ``size``-word shingles of ``text`` (the whole text if it is shorter)."""
    words = normalise(text)
    if len(words) <= size:
        return frozenset([tuple(words)]) if words else frozenset()
    return frozenset(tuple(words[i : i + size]) for i in range(len(words) - size + 1))


def jaccard(a: frozenset[tuple[str, ...]], b: frozenset[tuple[str, ...]]) -> float:
    """``|a ∩ b| / |a ∪ b|`` (0.0 for two empty sets)."""
    union = len(a | b)
    return len(a & b) / union if union else 0.0


def dedup(
    ranked: Sequence[T],
    text: Callable[[T], str],
    *,
    threshold: float = DEFAULT_THRESHOLD,
    size: int = DEFAULT_SHINGLE,
) -> list[T]:
    """``ranked`` without items whose text is a near-duplicate of a better-ranked item's.

    Overlaps are counted through an inverted index of the kept items' shingles, so only
    items sharing a shingle are ever compared.
    """
    kept: list[T] = []
    sizes: list[int] = []
    index: dict[tuple[str, ...], list[int]] = {}
    for item in ranked:
        own = shingles(text(item), size)
        shared = Counter(j for shingle in own for j in index.get(shingle, ()))
        if any(n / (len(own) + sizes[j] - n) >= threshold for j, n in shared.items()):
            continue
        for shingle in own:
            index.setdefault(shingle, []).append(len(kept))
        kept.append(item)
        sizes.append(len(own))
    return kept
