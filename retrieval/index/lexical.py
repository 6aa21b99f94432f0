"""BM25 as sparse vectors: a finance-aware tokenizer and pure BM25 term weights.

Documents get saturated term frequencies ``tf * (k1 + 1) / (tf + k1 * (1 - b + b * len / avg_len))``
and queries weight each distinct term 1.0; the index multiplies in the IDF at query time
(Qdrant's ``Modifier.IDF``: ``ln(1 + (N - n + 0.5) / (n + 0.5))``), so ``query . doc`` is
the BM25 score. Term ids are a hash of the term, so no global vocabulary is kept and
adding documents never changes the vectors already stored.
"""

from __future__ import annotations

import functools
import hashlib
import re
import unicodedata
from collections import Counter
from collections.abc import Mapping

from py_rust_stemmers import SnowballStemmer
from pydantic import BaseModel, ConfigDict, Field

TOKENIZER_VERSION = 1

# English function words; words that carry direction or comparison in finance
# (up, down, above, below, over, under, more, less, per, before, after) are kept.
_STOPWORD_TEXT = """
a about again against all am an and any are as at be because been being both but by can
could did do does doing each for from further had has have having he her here hers herself
him himself his how i if in into is it its itself just me my myself no nor not of on once
only or other our ours ourselves own same she should so some such than that the their
theirs them themselves then there these they this those through to too until very was we
were what when where which while who whom why will with would you your yours yourself
yourselves
"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())

_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
_FORM = re.compile(r"\b(\d{1,2})-([kqf])\b")  # 10-K, 10-Q, 8-K, 20-F -> 10k, 10q, 8k, 20f
_POSSESSIVE = re.compile(r"['’]s\b")
_TOKEN = re.compile(r"\d+(?:\.\d+)+|[a-z]+&[a-z]+|[a-z0-9]+")
_YEAR = re.compile(r"(?:19|20)\d\d")


class SparseVector(BaseModel):
    """Sorted, distinct term ids and their weights."""

    model_config = ConfigDict(frozen=True)

    indices: tuple[int, ...]
    values: tuple[float, ...]


def tokenize(text: str) -> list[str]:
    """Finance-aware terms of ``text``, in order.

    Lowercased (NFKC); ``1,234.50`` -> ``1234.5``; ``10-K`` -> ``10k``; ``R&D`` stays one
    term; words are Snowball-stemmed and English stopwords dropped; numbers and years are
    kept; a mixed term holding a year (``fy2023``) also yields the year.
    """
    text = unicodedata.normalize("NFKC", text).lower()
    text = _POSSESSIVE.sub("", _FORM.sub(r"\1\2", _THOUSANDS.sub("", text)))
    terms: list[str] = []
    for raw in _TOKEN.findall(text):
        terms.extend(_normalise(raw))
    return terms


@functools.lru_cache(maxsize=200_000)
def _normalise(raw: str) -> tuple[str, ...]:
    if raw[0].isdigit() and "." in raw:
        whole, _, fraction = raw.partition(".")
        fraction = fraction.rstrip("0")
        return (f"{whole}.{fraction}" if fraction else whole,)
    if raw.isdigit():
        return (raw,)
    if raw.isalpha():
        if raw in STOPWORDS or len(raw) < 2:
            return ()
        return (_stemmer().stem_word(raw),)
    year = _YEAR.search(raw)
    return (raw, year.group()) if year and year.group() != raw else (raw,)


@functools.cache
def _stemmer() -> SnowballStemmer:
    return SnowballStemmer("english")


@functools.lru_cache(maxsize=200_000)
def term_id(term: str) -> int:
    """A stable unsigned 32-bit id for ``term`` (blake2b), the same in every process."""
    return int.from_bytes(hashlib.blake2b(term.encode(), digest_size=4).digest(), "little")


def saturated_tf(tf: int, doc_len: int, *, k1: float, b: float, avg_len: float) -> float:
    """BM25's document-side term weight (the IDF factor is left to the index)."""
    return tf * (k1 + 1) / (tf + k1 * (1 - b + b * doc_len / avg_len))


def to_sparse(weights: Mapping[str, float]) -> SparseVector:
    """Term weights keyed by term -> a sparse vector keyed by :func:`term_id`.

    Terms whose ids collide are summed.
    """
    by_id: dict[int, float] = {}
    for term, weight in weights.items():
        index = term_id(term)
        by_id[index] = by_id.get(index, 0.0) + weight
    ordered = sorted(by_id.items())
    return SparseVector(indices=tuple(i for i, _ in ordered), values=tuple(v for _, v in ordered))


class BM25Encoder(BaseModel):
    """Turns texts into BM25 sparse vectors; its parameters are stored with the index."""

    model_config = ConfigDict(frozen=True)

    k1: float = Field(default=1.2, ge=0)
    b: float = Field(default=0.75, ge=0, le=1)
    avg_len: float = Field(default=128.0, gt=0, description="expected terms per passage")
    tokenizer_version: int = TOKENIZER_VERSION

    def encode_document(self, text: str) -> SparseVector:
        """The passage-side vector: saturated term frequencies."""
        counts = Counter(tokenize(text))
        length = sum(counts.values())
        return to_sparse(
            {
                term: saturated_tf(tf, length, k1=self.k1, b=self.b, avg_len=self.avg_len)
                for term, tf in counts.items()
            }
        )

    def encode_query(self, text: str) -> SparseVector:
        """The query-side vector: each distinct term once, weight 1.0."""
        return to_sparse(dict.fromkeys(tokenize(text), 1.0))
