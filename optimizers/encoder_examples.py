"""Contrastive examples for the encoder fine-tune, from what the search serves.

Each reranker training group (:mod:`.reranker_groups`: a question's candidates from the
served search, labelled by gold) gives examples of a question, a passage satisfying its gold
(a *positive*) and the passages the search ranked highest that do not (its *hard
negatives*: another page of the same filing, another period, another line item), each as
the embedder reads it (under its header). Other questions' passages in a batch serve as
further negatives (another company).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from filingqa.optimizers.reranker_groups import Group
from filingqa.retrieval.search.rerank_features import Candidate

HARD_NEGATIVES = 3  # per example: the served search's top-ranked passages that miss the gold
MAX_POSITIVES = 2  # examples per question: its best-ranked gold passages


@dataclass(frozen=True)
class ContrastiveExample:
    """A question, one passage answering it and passages that do not, as embedded; ``unit``
    is the cross-validation unit of its group (its first gold document)."""

    query: str
    positive: str
    negatives: tuple[str, ...]
    unit: str


def examples_from_groups(
    groups: Sequence[Group],
    text_of: Callable[[Candidate], str],
    *,
    hard_negatives: int = HARD_NEGATIVES,
    max_positives: int = MAX_POSITIVES,
) -> list[ContrastiveExample]:
    """Up to ``max_positives`` examples per group, each with the group's first
    ``hard_negatives`` unlabelled candidates (served order) as its negatives; ``text_of``
    gives a candidate's text as the embedder reads it."""
    examples = []
    for group in groups:
        labelled = list(zip(group.candidates, group.labels, strict=True))
        positives = [c for c, label in labelled if label][:max_positives]
        negatives = tuple(text_of(c) for c, label in labelled if not label)[:hard_negatives]
        examples += [
            ContrastiveExample(group.question, text_of(c), negatives, group.doc_id)
            for c in positives
        ]
    return examples
