"""Which of a question's passages fit its evidence budget: all of them when they fit, else
the most relevant by BM25, kept in their given order."""

from __future__ import annotations

from collections.abc import Callable

import bm25s

from filingqa.records.documents import Passage


def select(
    question: str,
    passages: list[Passage],
    budget_chars: int,
    first: Callable[[Passage], bool] | None = None,
) -> list[Passage]:
    """Passages in BM25 order (those ``first`` picks ahead of the rest) while they fit
    ``budget_chars``, returned in their given order; the top-ranked one is kept even when it
    alone is longer than the budget (the renderer cuts it).

    Passages that fit the budget are returned whole, so a question phrased differently from
    the line items it needs (capital expenditures vs purchases of property and equipment)
    still sees them all.
    """
    if sum(len(p.text) for p in passages) <= budget_chars:
        return list(passages)
    ranked = _bm25_order(question, passages)
    if first is not None:
        ranked = sorted(ranked, key=lambda index: not first(passages[index]))
    chosen: list[int] = []
    used = 0
    for index in ranked:
        if chosen and used + len(passages[index].text) > budget_chars:
            continue
        chosen.append(index)
        used += len(passages[index].text)
    return [passages[i] for i in sorted(chosen)]


def _bm25_order(question: str, passages: list[Passage]) -> list[int]:
    """Passage indices from most to least relevant to ``question`` by BM25, ties in the
    given order (all of it when the passages have no word to index)."""
    corpus = bm25s.tokenize([p.text for p in passages], show_progress=False)
    if not corpus.vocab:
        return list(range(len(passages)))
    retriever = bm25s.BM25()
    retriever.index(corpus, show_progress=False)
    hits, scores = retriever.retrieve(
        bm25s.tokenize([question], show_progress=False), k=len(passages), show_progress=False
    )
    ranked = sorted(zip(scores[0], hits[0], strict=True), key=lambda hit: (-hit[0], hit[1]))
    return [int(index) for _, index in ranked]
