"""How an index cuts and embeds passages: the token budget, and the header each passage is
embedded with.

A passage is embedded as a short header line naming where it comes from (company, form,
fiscal period, Item and section or table title) above its text, so that "3M's capital
expenditure" finds a 3M cash-flow table whose rows never say "3M". Only the dense vector
sees the header: the passage shown and searched by BM25 is its text alone. The index
records its recipe (:meth:`PassageRecipe.describe`); a build with another recipe re-cuts
and re-embeds the index in place.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from filingqa.records.documents import FORM_NAMES, Document, Passage
from filingqa.retrieval.ingest.chunking import ESTIMATED, TokenBudget

HEADER_RECIPE = "company-form-period-section/1"
HEADER_TOKENS = 40
"""What a header may take of the embedder's window (a longer one is cut to fit)."""
SPECIAL_TOKENS = 2
"""The tokens a BERT-style encoder adds to every input ([CLS] and [SEP])."""


@dataclass(frozen=True)
class PassageRecipe:
    """How passages are cut (``budget``) and whether they are embedded under a header
    (``header``: the header recipe's name, None for bare text)."""

    budget: TokenBudget = ESTIMATED
    header: str | None = None

    def describe(self) -> dict[str, Any]:
        """What the index records: the header recipe and the budget."""
        return {"header": self.header, **self.budget.describe()}

    def embedding_text(self, passage: Passage, document: Document) -> str:
        """What the embedder reads for ``passage``: its header line and text, or its text."""
        if self.header is None:
            return passage.text
        header = passage_header(passage, document)
        if self.budget.count(header) > HEADER_TOKENS:
            header = _cut(header, self.budget)
        return f"{header}\n{passage.text}"


LEGACY = PassageRecipe()
"""Bare passages of ~512 estimated tokens: what an index recorded no recipe was built with."""


def recipe_for_window(window: int, count: Callable[[str], int], counted_by: str) -> PassageRecipe:
    """The recipe whose passages, each under its header, fit an embedder's ``window`` of
    tokens as its tokenizer (``count``, without special tokens) counts them."""
    room = window - SPECIAL_TOKENS - HEADER_TOKENS
    if room < 32:
        raise ValueError(f"an embedding window of {window} tokens leaves no room for passages")
    budget = TokenBudget(text=room, table=room, count=count, counted_by=counted_by)
    return PassageRecipe(budget=budget, header=HEADER_RECIPE)


def passage_header(passage: Passage, document: Document) -> str:
    """``3M · 10-K · FY2022 · Item 8 · Consolidated Statement of Cash Flows``: the parts known."""
    parts = [
        document.company or document.doc_id,
        FORM_NAMES[document.doc_type] if document.doc_type != "other" else None,
        _period(document),
        passage.item,
        _title(passage),
    ]
    return " · ".join(part for part in parts if part)


def _period(document: Document) -> str | None:
    if document.fiscal_year is None:
        return None
    if document.fiscal_quarter is None:
        return f"FY{document.fiscal_year}"
    return f"Q{document.fiscal_quarter} FY{document.fiscal_year}"


def _title(passage: Passage) -> str | None:
    """The passage's section heading or table caption, on one line."""
    if not passage.title:
        return None
    return " ".join(passage.title.split())


def _cut(header: str, budget: TokenBudget) -> str:
    """``header`` shortened word by word until it fits :data:`HEADER_TOKENS`."""
    words = header.split()
    while words and budget.count(" ".join(words)) > HEADER_TOKENS:
        words.pop()
    return " ".join(words)
