"""Multi-HyDE retrieval: the question, its line-item rewrites and several hypothetical
filing passages each retrieve separately; the ranked lists are fused by RRF."""

from __future__ import annotations

from collections.abc import Iterable

import dspy
from pydantic import BaseModel

from filingqa.records import Passage
from filingqa.records.search_handle import SearchHandle
from filingqa.retrieval.index.fusion import reciprocal_rank_fusion
from filingqa.signatures.hyde import write_hypothetical_passages
from filingqa.signatures.rewrite import RewriteQuery


class Retrieved(BaseModel):
    """Fused passages, best first, and the queries that found them."""

    passages: list[Passage]
    queries: list[str]
    company: str | None
    period: str | None


# Output caps well above what a rewrite and each hypothesis take, so a looping generation
# stops early.
REWRITE_TOKENS = 256
HYDE_TOKENS, HYDE_TOKENS_EACH = 64, 200


class MultiHydeRetriever(dspy.Module):
    """Rewrite → ``hypotheses`` HyDE queries → one search per query → RRF.

    ``sub_questions`` (retrieval steps of a decomposition) are searched as well.

    ``hypotheses=0`` searches with the question and its rewrites only (the ablation).
    """

    def __init__(self, hypotheses: int = 3, k: int = 8) -> None:
        super().__init__()
        if hypotheses < 0 or k < 1:
            raise ValueError("hypotheses must be >= 0 and k >= 1")
        self.rewrite = dspy.Predict(RewriteQuery, max_tokens=REWRITE_TOKENS)
        self.hyde = dspy.Predict(
            write_hypothetical_passages(hypotheses),
            max_tokens=HYDE_TOKENS + HYDE_TOKENS_EACH * hypotheses,
        )
        self.hypotheses = hypotheses
        self.k = k

    def forward(
        self,
        question: str,
        search: SearchHandle,
        company: str | None = None,
        sub_questions: list[str] | None = None,
    ) -> Retrieved:
        rewrite = self.rewrite(question=question)
        company = company or rewrite.company.strip() or None
        period = rewrite.period.strip() or None
        queries = _unique([question, *rewrite.variants, *(sub_questions or [])])
        if self.hypotheses:
            written = self.hyde(question=question, count=self.hypotheses).hypotheses
            queries += _unique(f"{h.query}\n{h.passage}" for h in written[: self.hypotheses])
        return Retrieved(
            passages=self.search_all(queries, search, company, period),
            queries=queries,
            company=company,
            period=period,
        )

    def search_all(
        self,
        queries: list[str],
        search: SearchHandle,
        company: str | None,
        period: str | None,
    ) -> list[Passage]:
        """Each query searched separately, the lists fused, the top ``k`` returned."""
        by_id: dict[str, Passage] = {}
        rankings = []
        for query in queries:
            found = search.search(query, k=self.k, company=company, period=period)
            by_id.update((p.id, p) for p in found)
            rankings.append([p.id for p in found])
        fused = reciprocal_rank_fusion(rankings)
        return [by_id[item.key] for item in fused[: self.k]]


def _unique(texts: Iterable[str]) -> list[str]:
    seen: list[str] = []
    for text in texts:
        text = text.strip()
        if text and text.lower() not in (s.lower() for s in seen):
            seen.append(text)
    return seen
