"""Contrastive examples from reranker groups: positives by served order, hard negatives typed
as the seed's recipe (another page, period, granularity, company), then the served order."""

from __future__ import annotations

import numpy as np

from filingqa.optimizers.encoder_examples import examples_from_groups, negative_kind
from filingqa.optimizers.reranker_groups import Group
from filingqa.records.documents import Document, Passage
from filingqa.retrieval.search.rerank_features import Candidate

MMM_2018 = Document(doc_id="3M_2018_10K", company="3M", doc_type="10k", fiscal_year=2018)
MMM_2019 = Document(doc_id="3M_2019_10K", company="3M", doc_type="10k", fiscal_year=2019)
MMM_Q2 = Document(
    doc_id="3M_2019Q2_10Q", company="3M", doc_type="10q", fiscal_year=2019, fiscal_quarter=2
)
BOEING = Document(doc_id="BOEING_2018_10K", company="Boeing", doc_type="10k", fiscal_year=2018)


def _candidate(document: Document | None, page: int, text: str, doc_id: str = "d") -> Candidate:
    doc = document.doc_id if document else doc_id
    passage = Passage(id=f"{doc}:p{page}:{text[:6]}", doc_id=doc, text=text, page=page, kind="text")
    return Candidate(passage=passage, document=document)


def _group(question: str, labelled: list[tuple[Candidate, int]]) -> Group:
    return Group(
        query_id=question,
        question=question,
        doc_id=labelled[0][0].passage.doc_id,
        candidates=[c for c, _ in labelled],
        features=np.zeros((len(labelled), 1)),
        labels=np.asarray([label for _, label in labelled], dtype=float),
    )


def test_each_gold_candidate_is_a_positive_against_the_top_unlabelled_ones() -> None:
    labels = [0, 1, 0, 0, 1, 0, 1]
    group = _group(
        "What was capex?", [(_candidate(None, i + 1, f"text {i}"), y) for i, y in enumerate(labels)]
    )
    examples = examples_from_groups([group], lambda c: c.passage.text.upper(), hard_negatives=2)
    assert [e.positive for e in examples] == ["TEXT 1", "TEXT 4"]  # max_positives = 2
    assert all(e.negatives == ("TEXT 0", "TEXT 2") for e in examples)
    assert all(e.kinds == ("another page", "another page") for e in examples)
    assert {(e.query, e.unit) for e in examples} == {("What was capex?", "d")}


def test_a_group_without_gold_gives_nothing() -> None:
    group = _group("q", [(_candidate(None, 1, "a"), 0), (_candidate(None, 2, "b"), 0)])
    assert examples_from_groups([group], lambda c: c.passage.text) == []


def test_one_negative_of_each_kind_comes_first_then_the_served_order() -> None:
    capex = _group(
        "What was 3M's FY2018 capex?",
        [
            (_candidate(MMM_2019, 50, "purchases of property plant equipment 2019 2018"), 0),
            (_candidate(MMM_2018, 60, "purchases of property plant equipment 1,577"), 1),
            (_candidate(MMM_2018, 12, "risk factors competition"), 0),
            (_candidate(MMM_2018, 13, "legal proceedings"), 0),
        ],
    )
    boeing = _group(
        "What was Boeing's FY2018 capex?",
        [
            (_candidate(BOEING, 70, "property plant equipment additions 1,722"), 1),
            (_candidate(MMM_Q2, 8, "purchases of property plant equipment six months"), 0),
        ],
    )
    first = examples_from_groups([capex, boeing], lambda c: c.passage.text)[0]
    assert first.kinds == (
        "another page",
        "another period",
        "another granularity",
        "another company",
    )
    assert first.negatives == (
        "risk factors competition",
        "purchases of property plant equipment 2019 2018",
        "purchases of property plant equipment six months",
        "property plant equipment additions 1,722",
    )
    five = examples_from_groups([capex, boeing], lambda c: c.passage.text, hard_negatives=5)[0]
    assert five.negatives[-1] == "legal proceedings"  # then the served order


def test_a_negative_is_never_on_a_gold_page() -> None:
    gold = _candidate(MMM_2018, 60, "capital expenditures table")
    same_page = _candidate(MMM_2018, 60, "capital expenditures continued")
    group = _group("capex?", [(gold, 1), (same_page, 0), (_candidate(MMM_2018, 61, "notes"), 0)])
    (example,) = examples_from_groups([group], lambda c: c.passage.text, max_positives=1)
    assert "capital expenditures continued" not in example.negatives


def test_a_negative_s_kind_is_its_filing_s_relation_to_the_positive() -> None:
    positive = _candidate(MMM_2018, 60, "capex")
    assert negative_kind(_candidate(MMM_2018, 3, "x"), positive) == "another page"
    assert negative_kind(_candidate(MMM_2019, 3, "x"), positive) == "another period"
    assert negative_kind(_candidate(MMM_Q2, 3, "x"), positive) == "another granularity"
    assert negative_kind(_candidate(BOEING, 3, "x"), positive) == "another company"
    assert negative_kind(_candidate(None, 3, "x", doc_id="ctx-9"), positive) == "another filing"
    page_49 = Document(
        doc_id="ADI/2009/page_49.pdf", company="ADI", doc_type="10k", fiscal_year=2009
    )
    page_50 = page_49.model_copy(update={"doc_id": "ADI/2009/page_50.pdf"})
    assert negative_kind(_candidate(page_50, 1, "x"), _candidate(page_49, 1, "y")) == "another page"
