"""Financial hard negatives: passages that look like the gold one but answer another question.

A passage is described by three facts: its metrics (lexicon), its entity (the company) and
its periods (years). A hard negative shares two of them with the gold passage and clearly
differs in the third (both sides known, nothing in common), e.g. the same company's revenue
for another year. Granularity swaps share metric, entity and period but one is about a
segment and the other about the whole company. BM25-near negatives (close in wording) and
random ones complete the set. Each :class:`HardNegative` says why it was chosen.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict

from filingqa.retrieval import lexicon
from filingqa.retrieval.documents import Document, Passage
from filingqa.retrieval.metadata import normalise_company

Fact = Literal["metric", "entity", "period"]
NegativeReason = Literal["metric", "entity", "period", "granularity", "bm25", "random"]
FACTS: tuple[Fact, ...] = ("metric", "entity", "period")


class PassageFacts(BaseModel):
    """What a passage is about: its metrics, entity, years and granularity."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    metrics: frozenset[str]
    entity: str | None
    years: frozenset[int]
    granularity: lexicon.Granularity | None = None


class HardNegative(BaseModel):
    """A mined negative: ``reason`` is the fact it differs in (or how it was drawn)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    passage: Passage
    reason: NegativeReason
    shared: tuple[Fact, ...] = ()


def passage_facts(passage: Passage, document: Document | None = None) -> PassageFacts:
    """The facts of ``passage``: entity from its document, years from its text (else the
    document's fiscal year)."""
    company = (document.company or document.ticker) if document else None
    fiscal_year = document.fiscal_year if document else None
    return PassageFacts(
        metrics=lexicon.metric_terms(passage.text),
        entity=normalise_company(company) if company else None,
        years=lexicon.years(passage.text) or frozenset([fiscal_year] if fiscal_year else []),
        granularity=lexicon.granularity(passage.text),
    )


def pool_facts(
    pool: Sequence[Passage], documents: Mapping[str, Document]
) -> dict[str, PassageFacts]:
    """:func:`passage_facts` of every passage, keyed by passage id."""
    return {p.id: passage_facts(p, documents.get(p.doc_id)) for p in pool}


def _shares(fact: Fact, a: PassageFacts, b: PassageFacts) -> bool:
    if fact == "metric":
        return bool(a.metrics & b.metrics)
    if fact == "entity":
        return a.entity is not None and a.entity == b.entity
    return bool(a.years & b.years)


def _differs(fact: Fact, a: PassageFacts, b: PassageFacts) -> bool:
    if fact == "metric":
        return bool(a.metrics and b.metrics) and not a.metrics & b.metrics
    if fact == "entity":
        return a.entity is not None and b.entity is not None and a.entity != b.entity
    return bool(a.years and b.years) and not a.years & b.years


def classify(
    gold: PassageFacts, other: PassageFacts
) -> tuple[NegativeReason, tuple[Fact, ...]] | None:
    """Why ``other`` is a hard negative for ``gold`` (reason, shared facts), or None.

    Two facts shared and the third different → that third fact; all three shared with
    opposite granularity (segment vs consolidated) → "granularity".
    """
    shared = tuple(f for f in FACTS if _shares(f, gold, other))
    if len(shared) == 2:
        (third,) = (f for f in FACTS if f not in shared)
        return (third, shared) if _differs(third, gold, other) else None
    swapped = gold.granularity and other.granularity and gold.granularity != other.granularity
    if len(shared) == 3 and swapped:
        return "granularity", shared
    return None


def mine_hard_negatives(
    gold: Passage,
    pool: Sequence[Passage],
    facts: Mapping[str, PassageFacts],
    *,
    exclude: frozenset[str] = frozenset(),
    bm25_ranking: Sequence[str] = (),
    per_reason: int = 2,
    n_bm25: int = 2,
    n_random: int = 2,
    seed: int = 0,
) -> list[HardNegative]:
    """Hard negatives for ``gold`` from ``pool`` (``facts``: :func:`pool_facts` of it).

    Up to ``per_reason`` negatives per fact-based reason, preferring passages ranked higher
    in ``bm25_ranking`` (passage ids for the query, best first; then a seeded shuffle);
    then the ``n_bm25`` best-ranked remaining passages and ``n_random`` random ones. The
    gold passage and ``exclude`` (e.g. the query's other gold passages) are never returned.
    """
    rng = random.Random(f"{seed}:{gold.id}")
    position = {pid: i for i, pid in enumerate(bm25_ranking)}
    order = [p for p in pool if p.id != gold.id and p.id not in exclude]
    rng.shuffle(order)
    order.sort(key=lambda p: position.get(p.id, math.inf))
    chosen: dict[str, HardNegative] = {}
    counts: dict[NegativeReason, int] = {}
    gold_facts = facts[gold.id]
    for passage in order:
        found = classify(gold_facts, facts[passage.id])
        if found and counts.get(found[0], 0) < per_reason:
            counts[found[0]] = counts.get(found[0], 0) + 1
            chosen[passage.id] = HardNegative(passage=passage, reason=found[0], shared=found[1])
    near = [p for p in order if p.id in position and p.id not in chosen][:n_bm25]
    chosen |= {p.id: HardNegative(passage=p, reason="bm25") for p in near}
    rest = [p for p in order if p.id not in chosen]
    picked = rng.sample(rest, min(n_random, len(rest)))
    chosen |= {p.id: HardNegative(passage=p, reason="random") for p in picked}
    return list(chosen.values())
