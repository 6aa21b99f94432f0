"""Evidence curation: keep the retrieved passages that answer the question, and name what
is missing (HiREC's answerability check with a complementary query).

The curator reads the candidates as the evidence block the reasoning steps read (rendered
the same way, in the same order), with a numbered list of them after the question: the
kept passages come first in the evidence buffer, in candidate order, so the reasoning
request shares the curator's leading block up to the first passage dropped.
"""

from __future__ import annotations

import dspy
from pydantic import BaseModel

from filingqa.evidence.render import render
from filingqa.records import Passage
from filingqa.signatures.curate import CurateEvidence

# A selection is short, but a small model sometimes lists numbers until the token limit:
# this cuts it short, and a cut-off selection is a failed step that keeps every passage.
OUTPUT_TOKENS = 256


class Curated(BaseModel):
    """The passages kept, whether they suffice, and a query for what is missing."""

    kept: list[Passage]
    answerable: bool
    missing: str
    complementary_query: str


OPENING_WORDS = 8  # words of a passage shown in the list, to tell passages of a page apart


def passage_list(passages: list[Passage]) -> str:
    """One line per passage, numbered from 1 in evidence order: page, kind, opening words."""
    return "\n".join(
        f"{number}. page {p.page}, {p.kind}: {_opening(p.text)}"
        for number, p in enumerate(passages, 1)
    )


def _opening(text: str) -> str:
    words = text.split()
    shown = " ".join(words[:OPENING_WORDS])
    return f"{shown} ..." if len(words) > OPENING_WORDS else shown


class Curator(dspy.Module):
    """Ask the LM which passages to keep; numbers outside the list are ignored, and an
    empty selection keeps everything (a curator that drops all evidence is not trusted)."""

    def __init__(self) -> None:
        super().__init__()
        self.curate = dspy.Predict(CurateEvidence, max_tokens=OUTPUT_TOKENS)

    def forward(self, question: str, passages: list[Passage]) -> Curated:
        if not passages:
            return Curated(kept=[], answerable=False, missing=question, complementary_query="")
        out = self.curate(
            evidence=render(passages), question=question, passage_list=passage_list(passages)
        )
        chosen = sorted({n for n in out.keep if 1 <= n <= len(passages)})
        kept = [passages[n - 1] for n in chosen] or list(passages)
        return Curated(
            kept=kept,
            answerable=out.answerable,
            missing=out.missing.strip(),
            complementary_query=out.complementary_query.strip(),
        )
