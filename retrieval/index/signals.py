"""What a passage's text says, read once at index time: the reranker's passage-side inputs.

Tokenizing a passage, finding the years, quarters and metrics it names and shingling it for
deduplication is regular-expression work per passage; done per query for every reranker
candidate it would dominate a search's time (docs/benchmarks.md has the latency before and
after). They depend on the text alone,
so the index stores them in each passage's payload as one compact JSON string
(:func:`to_payload`; a string, as Qdrant reads nested payload values far slower), a search
reads them back with the hit (:func:`from_payload`) and only a passage without them (an index built
before they were stored, a passage the reranker's training builds) has them computed
(:func:`passage_signals`, cached by text).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from typing import cast

from filingqa.retrieval.index.dedup import shingles
from filingqa.retrieval.index.lexical import term_id, tokenize
from filingqa.retrieval.vocabulary import lexicon

PAYLOAD_KEY = "signals"
_NUMBER = re.compile(r"\d+(?:\.\d+)?")


@dataclass(frozen=True, slots=True)
class PassageSignals:
    """A passage's BM25 terms (distinct, with counts), years, quarters, metrics,
    granularity and dedup shingles (see :func:`passage_signals`)."""

    terms: tuple[str, ...]
    counts: tuple[int, ...]
    years: frozenset[int]
    quarters: frozenset[tuple[int, int]]
    metrics: frozenset[str]
    granularity: lexicon.Granularity | None
    shingles: frozenset[int]

    @property
    def length(self) -> int:
        """How many terms the passage has (repeats counted)."""
        return sum(self.counts)

    def words(self) -> frozenset[str]:
        """The distinct terms that are not numbers."""
        return frozenset(t for t in self.terms if not _NUMBER.fullmatch(t))

    def numbers(self) -> dict[str, int]:
        """The distinct number terms and how often each occurs."""
        return {t: n for t, n in zip(self.terms, self.counts, strict=True) if _NUMBER.fullmatch(t)}

    def term_counts(self) -> tuple[dict[int, int], int]:
        """``(term id -> frequency, length)``, as the index's BM25 vector counts them
        (terms whose ids collide summed)."""
        ids = [term_id(term) for term in self.terms]
        tf = dict(zip(ids, self.counts, strict=True))
        if len(tf) < len(ids):
            tf = {}
            for index, count in zip(ids, self.counts, strict=True):
                tf[index] = tf.get(index, 0) + count
        return tf, self.length


@lru_cache(maxsize=20_000)
def passage_signals(text: str) -> PassageSignals:
    """The signals of a passage ``text``."""
    counts = Counter(tokenize(text))
    return PassageSignals(
        terms=tuple(counts),
        counts=tuple(counts.values()),
        years=lexicon.years(text),
        quarters=lexicon.quarters(text),
        metrics=lexicon.metric_terms(text),
        granularity=lexicon.granularity(text),
        shingles=shingles(text),
    )


def to_payload(signals: PassageSignals) -> str:
    """``signals`` as compact JSON for a passage's payload (sets sorted: a stable text)."""
    fields = {
        "terms": list(signals.terms),
        "counts": list(signals.counts),
        "years": sorted(signals.years),
        "quarters": [list(q) for q in sorted(signals.quarters)],
        "metrics": sorted(signals.metrics),
        "granularity": signals.granularity,
        "shingles": sorted(signals.shingles),
    }
    return json.dumps(fields, separators=(",", ":"), ensure_ascii=False)


@lru_cache(maxsize=10_000)
def from_payload(text: str | None) -> PassageSignals | None:
    """The signals :func:`to_payload` stored; None when the payload has none (decoded once
    per text: the passages of the filings asked about recur from query to query)."""
    if not text:
        return None
    payload = json.loads(text)
    return PassageSignals(
        terms=tuple(payload["terms"]),
        counts=tuple(payload["counts"]),
        years=frozenset(payload["years"]),
        quarters=frozenset((y, q) for y, q in payload["quarters"]),
        metrics=frozenset(payload["metrics"]),
        granularity=cast("lexicon.Granularity | None", payload["granularity"]),
        shingles=frozenset(payload["shingles"]),
    )
