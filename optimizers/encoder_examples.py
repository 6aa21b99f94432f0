"""Contrastive examples for the encoder fine-tune, from what the search serves.

Each reranker training group (:mod:`.reranker_groups`: a question's candidates from the
served search, labelled by gold) gives examples of a question, a passage satisfying its gold
(a *positive*) and passages that do not (its *hard negatives*), each as the embedder reads it
(under its header). The negatives are typed as in the seed's recipe, at most one of each kind
before the served order fills the rest:

- *another page* of the same filing (another line item, section or statement);
- *another period*: the same company's filing of another year or quarter;
- *another granularity*: the same company's filing of another form or span (a 10-Q beside
  the 10-K, an earnings release);
- *another company*'s passage.

A kind is taken first from the served candidates, else from the passages the other groups
were served (their positives and top candidates), the one sharing most words with the
positive. Other examples' passages in a batch serve as further negatives.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Literal

from filingqa.optimizers.reranker_groups import Group
from filingqa.records.documents import Document
from filingqa.retrieval.search.rerank_features import Candidate

NegativeKind = Literal[
    "another page", "another period", "another granularity", "another company", "another filing"
]
TYPED_KINDS: tuple[NegativeKind, ...] = (
    "another page",
    "another period",
    "another granularity",
    "another company",
)
HARD_NEGATIVES = 4  # per example: one of each typed kind where there is one, then served order
MAX_POSITIVES = 2  # examples per question: its best-ranked gold passages
POOLED_PER_GROUP = 3  # a group's top unlabelled candidates other groups may draw from
_WORD = re.compile(r"[a-z]+|\d[\d,.]*")


@dataclass(frozen=True)
class ContrastiveExample:
    """A question, one passage answering it and passages that do not (``kinds``: each
    negative's relation to the positive), as embedded; ``unit`` is the cross-validation unit
    of its group (its first gold document)."""

    query: str
    positive: str
    negatives: tuple[str, ...]
    unit: str
    kinds: tuple[NegativeKind, ...] = ()


def examples_from_groups(
    groups: Sequence[Group],
    text_of: Callable[[Candidate], str],
    *,
    hard_negatives: int = HARD_NEGATIVES,
    max_positives: int = MAX_POSITIVES,
) -> list[ContrastiveExample]:
    """Up to ``max_positives`` examples per group, each with up to ``hard_negatives``
    negatives (see the module docstring); ``text_of`` gives a candidate's text as the
    embedder reads it."""
    pool = _Pool(groups)
    examples = []
    for group in groups:
        labelled = list(zip(group.candidates, group.labels, strict=True))
        positives = [c for c, label in labelled if label][:max_positives]
        gold_pages = {(c.passage.doc_id, c.passage.page) for c in positives}
        served = [
            c
            for c, label in labelled
            if not label and (c.passage.doc_id, c.passage.page) not in gold_pages
        ]
        for positive in positives:
            chosen = pool.negatives(positive, served, gold_pages, hard_negatives)
            examples.append(
                ContrastiveExample(
                    group.question,
                    text_of(positive),
                    tuple(text_of(c) for _, c in chosen),
                    group.doc_id,
                    tuple(kind for kind, _ in chosen),
                )
            )
    return examples


def negative_kind(candidate: Candidate, positive: Candidate) -> NegativeKind:
    """How ``candidate``'s filing relates to ``positive``'s ("another filing" when either
    names no company); a filing kept as one document per page is one filing."""
    if candidate.passage.doc_id == positive.passage.doc_id:
        return "another page"
    mine, theirs = positive.document, candidate.document
    if mine is None or theirs is None or not mine.company or not theirs.company:
        return "another filing"
    if mine.company.casefold() != theirs.company.casefold():
        return "another company"
    if _span(mine) != _span(theirs):
        return "another granularity"
    same_period = (mine.fiscal_year, mine.fiscal_quarter) == (
        theirs.fiscal_year,
        theirs.fiscal_quarter,
    )
    return "another page" if same_period else "another period"  # one filing read as pages


class _Pool:
    """The passages the groups were served (positives and top candidates), each with its
    words, to draw a kind of negative from when the served candidates have none."""

    def __init__(self, groups: Sequence[Group]) -> None:
        by_id: dict[str, Candidate] = {}
        for group in groups:
            labelled = list(zip(group.candidates, group.labels, strict=True))
            unlabelled = [c for c, label in labelled if not label][:POOLED_PER_GROUP]
            for candidate in [*(c for c, label in labelled if label), *unlabelled]:
                by_id.setdefault(candidate.passage.id, candidate)
        self._words = {pid: _words(c.passage.text) for pid, c in by_id.items()}
        self._candidates = list(by_id.values())

    def negatives(
        self,
        positive: Candidate,
        served: list[Candidate],
        gold_pages: set[tuple[str, int]],
        limit: int,
    ) -> list[tuple[NegativeKind, Candidate]]:
        """One negative of each typed kind (served first, else the most alike pooled), then
        the served order, ``limit`` in all."""
        chosen: dict[str, tuple[NegativeKind, Candidate]] = {}
        for kind in TYPED_KINDS:
            found = next((c for c in served if negative_kind(c, positive) == kind), None)
            found = found or self._most_alike(positive, kind, gold_pages)
            if found is not None and found.passage.id not in chosen:
                chosen[found.passage.id] = (kind, found)
        for candidate in served:
            chosen.setdefault(candidate.passage.id, (negative_kind(candidate, positive), candidate))
        return list(chosen.values())[:limit]

    def _most_alike(
        self, positive: Candidate, kind: NegativeKind, gold_pages: set[tuple[str, int]]
    ) -> Candidate | None:
        words = self._words[positive.passage.id]  # every group's positives are pooled
        best, best_score = None, 0.0
        for candidate in self._of_kind(positive, kind, gold_pages):
            theirs = self._words[candidate.passage.id]
            score = len(words & theirs) / max(1, len(words | theirs))
            if score > best_score:
                best, best_score = candidate, score
        return best

    def _of_kind(
        self, positive: Candidate, kind: NegativeKind, gold_pages: set[tuple[str, int]]
    ) -> Iterator[Candidate]:
        for candidate in self._candidates:
            if (candidate.passage.doc_id, candidate.passage.page) in gold_pages:
                continue
            if negative_kind(candidate, positive) == kind:
                yield candidate


def _span(document: Document) -> tuple[str, bool]:
    """A filing's form and whether it reports a quarter: what granularity compares."""
    return document.doc_type, document.fiscal_quarter is not None


def _words(text: str) -> frozenset[str]:
    return frozenset(_WORD.findall(text.lower()))
