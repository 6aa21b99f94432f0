"""Text into passages that end on paragraph or sentence boundaries, within a token budget.

A :class:`TokenBudget` says how many tokens a passage may take and how they are counted.
An index counts with its embedder's own tokenizer, so that the model sees every token of a
passage (:meth:`~filingqa.retrieval.index.embedder.Embedder.passage_budget`); without one,
tokens are estimated: each word or punctuation mark is one token, plus one for every 8
characters of a long word — close to the all-MiniLM-L6-v2 WordPiece count, at no cost and
with no model files.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

MAX_TOKENS = 512
OVERLAP_TOKENS = 64
TABLE_GROUP_TOKENS = 200

_PIECE = re.compile(r"\w+|[^\w\s]")
_PARAGRAPH_BREAK = re.compile(r"\n\s*\n")
_SENTENCE_END = re.compile(r"(?<=[.!?;])[\"”’)]?\s+(?=[\"“(]?[A-Z0-9$])")
_ABBREVIATION = re.compile(r"\b(?:[A-Z]|Inc|Corp|Co|Ltd|No|Nos|vs|Mr|Ms|Dr|St|U\.S|e\.g|i\.e)\.$")


def estimate_tokens(text: str) -> int:
    """About how many WordPiece tokens ``text`` makes."""
    return sum(1 + len(piece) // 8 for piece in _PIECE.findall(text))


@dataclass(frozen=True)
class TokenBudget:
    """How long a passage may be: ``text`` tokens for a text chunk, ``table`` for a table's
    row group, counted by ``count`` (a tokenizer's count, or :func:`estimate_tokens`).
    ``counted_by`` names the counter, for the index's record of how it was cut."""

    text: int = MAX_TOKENS
    table: int = TABLE_GROUP_TOKENS
    count: Callable[[str], int] = estimate_tokens
    counted_by: str = "estimate"

    @property
    def overlap(self) -> int:
        """How many tokens a text chunk repeats of the one before: an eighth of its budget."""
        return self.text // 8

    def describe(self) -> dict[str, int | str]:
        """What an index records of the budget it was cut with."""
        return {"text": self.text, "table": self.table, "counted_by": self.counted_by}


ESTIMATED = TokenBudget()
"""The budget without a tokenizer: ~512 estimated tokens a chunk, ~200 a table row group."""


def chunk_text(
    text: str,
    max_tokens: int = MAX_TOKENS,
    overlap_tokens: int = OVERLAP_TOKENS,
    count: Callable[[str], int] = estimate_tokens,
) -> list[str]:
    """``text`` as chunks of at most ``max_tokens`` (as ``count`` counts them) on sentence
    boundaries.

    Sentences are packed in order (paragraphs stay separated by a blank line); a chunk
    repeats the last sentences of the one before, up to ``overlap_tokens``. A single sentence
    longer than ``max_tokens`` is cut into word windows. Sentences are counted one by one,
    so a chunk may exceed ``max_tokens`` by the few tokens a join adds or a count of the
    whole differs by.
    """
    units = [
        (s, starts) for p in _paragraphs(text) for s, starts in _sentences(p, max_tokens, count)
    ]
    chunks: list[list[tuple[str, int, bool]]] = []
    current: list[tuple[str, int, bool]] = []
    size = 0
    for sentence, starts in units:
        cost = count(sentence)
        if current and size + cost > max_tokens:
            chunks.append(current)
            current = _overlap(current, overlap_tokens, max_tokens - cost)
            size = sum(tokens for _, tokens, _ in current)
        current.append((sentence, cost, starts))
        size += cost
    if current:
        chunks.append(current)
    return [_join(chunk) for chunk in chunks]


def _paragraphs(text: str) -> list[str]:
    return [p.strip() for p in _PARAGRAPH_BREAK.split(text) if p.strip()]


def _sentences(
    paragraph: str, max_tokens: int, count: Callable[[str], int]
) -> list[tuple[str, bool]]:
    """``(sentence, starts a paragraph)`` pairs; over-long sentences cut into word windows."""
    units = [w for sentence in _split(paragraph) for w in _windows(sentence, max_tokens, count)]
    return [(unit, i == 0) for i, unit in enumerate(units)]


def _split(paragraph: str) -> list[str]:
    """A paragraph cut at sentence ends, not after abbreviations such as "Inc." or "U.S."."""
    sentences: list[str] = []
    start = 0
    for match in _SENTENCE_END.finditer(paragraph):
        if _ABBREVIATION.search(paragraph[start : match.start()]):
            continue
        sentences.append(paragraph[start : match.start() + len(match.group(0).rstrip())].strip())
        start = match.end()
    sentences.append(paragraph[start:].strip())
    return [s for s in sentences if s]


def _windows(sentence: str, max_tokens: int, count: Callable[[str], int]) -> list[str]:
    """A sentence as consecutive word windows of at most ``max_tokens`` each."""
    if count(sentence) <= max_tokens:
        return [sentence]
    windows: list[list[str]] = [[]]
    size = 0
    for word in sentence.split():
        cost = count(word)
        if windows[-1] and size + cost > max_tokens:
            windows.append([])
            size = 0
        windows[-1].append(word)
        size += cost
    return [" ".join(w) for w in windows]


def _overlap(
    chunk: list[tuple[str, int, bool]], overlap_tokens: int, room: int
) -> list[tuple[str, int, bool]]:
    """The last sentences of ``chunk`` worth at most ``overlap_tokens`` (and ``room``)."""
    kept: list[tuple[str, int, bool]] = []
    size = 0
    for unit in reversed(chunk):
        size += unit[1]
        if size > min(overlap_tokens, room):
            break
        kept.insert(0, unit)
    return kept


def _join(chunk: list[tuple[str, int, bool]]) -> str:
    text = ""
    for sentence, _, starts in chunk:
        separator = "\n\n" if starts else " "
        text = f"{text}{separator}{sentence}" if text else sentence
    return text
