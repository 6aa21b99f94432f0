"""Evidence curation: keep the retrieved passages that answer the question, and name what
is missing (HiREC's answerability check with a complementary query)."""

from __future__ import annotations

import dspy
from pydantic import BaseModel

from filingqa.retrieval import Passage
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


def numbered(passages: list[Passage]) -> str:
    """Passages under numbered headers (1-based), as the curator refers to them."""
    return "\n\n".join(
        f"[{number}] page {p.page}, {p.kind}\n{p.text}" for number, p in enumerate(passages, 1)
    )


class Curator(dspy.Module):
    """Ask the LM which passages to keep; numbers outside the list are ignored, and an
    empty selection keeps everything (a curator that drops all evidence is not trusted)."""

    def __init__(self) -> None:
        super().__init__()
        self.curate = dspy.Predict(CurateEvidence, max_tokens=OUTPUT_TOKENS)

    def forward(self, question: str, passages: list[Passage]) -> Curated:
        if not passages:
            return Curated(kept=[], answerable=False, missing=question, complementary_query="")
        out = self.curate(question=question, passages=numbered(passages))
        chosen = sorted({n for n in out.keep if 1 <= n <= len(passages)})
        kept = [passages[n - 1] for n in chosen] or list(passages)
        return Curated(
            kept=kept,
            answerable=out.answerable,
            missing=out.missing.strip(),
            complementary_query=out.complementary_query.strip(),
        )
