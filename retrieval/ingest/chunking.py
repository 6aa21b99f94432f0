"""Text into passages of about 512 tokens that end on paragraph or sentence boundaries.

Tokens are estimated, not counted: each word or punctuation mark is one token, plus one for
every 8 characters of a long word — close to the all-MiniLM-L6-v2 WordPiece count (the
gap is in docs/benchmarks.md), at no cost and with no model files.
"""

from __future__ import annotations

import re

MAX_TOKENS = 512
OVERLAP_TOKENS = 64

_PIECE = re.compile(r"\w+|[^\w\s]")
_PARAGRAPH_BREAK = re.compile(r"\n\s*\n")
_SENTENCE_END = re.compile(r"(?<=[.!?;])[\"”’)]?\s+(?=[\"“(]?[A-Z0-9$])")
_ABBREVIATION = re.compile(r"\b(?:[A-Z]|Inc|Corp|Co|Ltd|No|Nos|vs|Mr|Ms|Dr|St|U\.S|e\.g|i\.e)\.$")


def estimate_tokens(text: str) -> int:
    """About how many WordPiece tokens ``text`` makes."""
    return sum(1 + len(piece) // 8 for piece in _PIECE.findall(text))


def chunk_text(
    text: str, max_tokens: int = MAX_TOKENS, overlap_tokens: int = OVERLAP_TOKENS
) -> list[str]:
    """``text`` as chunks of at most ``max_tokens`` (estimated) on sentence boundaries.

    Sentences are packed in order (paragraphs stay separated by a blank line); a chunk
    repeats the last sentences of the one before, up to ``overlap_tokens``. A single sentence longer
    than ``max_tokens`` is cut into word windows.
    """
    units = [(s, starts) for p in _paragraphs(text) for s, starts in _sentences(p, max_tokens)]
    chunks: list[list[tuple[str, bool]]] = []
    current: list[tuple[str, bool]] = []
    size = 0
    for unit in units:
        cost = estimate_tokens(unit[0])
        if current and size + cost > max_tokens:
            chunks.append(current)
            current = _overlap(current, overlap_tokens, max_tokens - cost)
            size = sum(estimate_tokens(s) for s, _ in current)
        current.append(unit)
        size += cost
    if current:
        chunks.append(current)
    return [_join(chunk) for chunk in chunks]


def _paragraphs(text: str) -> list[str]:
    return [p.strip() for p in _PARAGRAPH_BREAK.split(text) if p.strip()]


def _sentences(paragraph: str, max_tokens: int) -> list[tuple[str, bool]]:
    """``(sentence, starts a paragraph)`` pairs; over-long sentences cut into word windows."""
    units = [w for sentence in _split(paragraph) for w in _windows(sentence, max_tokens)]
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


def _windows(sentence: str, max_tokens: int) -> list[str]:
    """A sentence as consecutive word windows of at most ``max_tokens`` each."""
    if estimate_tokens(sentence) <= max_tokens:
        return [sentence]
    windows: list[list[str]] = [[]]
    size = 0
    for word in sentence.split():
        cost = estimate_tokens(word)
        if windows[-1] and size + cost > max_tokens:
            windows.append([])
            size = 0
        windows[-1].append(word)
        size += cost
    return [" ".join(w) for w in windows]


def _overlap(
    chunk: list[tuple[str, bool]], overlap_tokens: int, room: int
) -> list[tuple[str, bool]]:
    """The last sentences of ``chunk`` worth at most ``overlap_tokens`` (and ``room``)."""
    kept: list[tuple[str, bool]] = []
    size = 0
    for sentence, starts in reversed(chunk):
        size += estimate_tokens(sentence)
        if size > min(overlap_tokens, room):
            break
        kept.insert(0, (sentence, starts))
    return kept


def _join(chunk: list[tuple[str, bool]]) -> str:
    text = ""
    for sentence, starts in chunk:
        separator = "\n\n" if starts else " "
        text = f"{text}{separator}{sentence}" if text else sentence
    return text
