"""Contrastive examples from reranker groups: positives by served order, hard negatives the
top unlabelled candidates."""

from __future__ import annotations

import numpy as np

from filingqa.optimizers.encoder_examples import examples_from_groups
from filingqa.optimizers.reranker_groups import Group
from filingqa.records.documents import Passage
from filingqa.retrieval.search.rerank_features import Candidate


def _group(labels: list[int]) -> Group:
    candidates = [
        Candidate(
            passage=Passage(id=f"p{i}", doc_id="d", text=f"text {i}", page=i + 1, kind="text")
        )
        for i in range(len(labels))
    ]
    return Group(
        query_id="q1",
        question="What was capex?",
        doc_id="d",
        candidates=candidates,
        features=np.zeros((len(labels), 1)),
        labels=np.asarray(labels, dtype=float),
    )


def test_each_gold_candidate_is_a_positive_against_the_top_unlabelled_ones() -> None:
    group = _group([0, 1, 0, 0, 1, 0, 1])
    examples = examples_from_groups([group], lambda c: c.passage.text.upper(), hard_negatives=2)
    assert [e.positive for e in examples] == ["TEXT 1", "TEXT 4"]  # max_positives = 2
    assert all(e.negatives == ("TEXT 0", "TEXT 2") for e in examples)
    assert {(e.query, e.unit) for e in examples} == {("What was capex?", "d")}


def test_a_group_without_gold_gives_nothing() -> None:
    assert examples_from_groups([_group([0, 0])], lambda c: c.passage.text) == []
