"""The page check: a structure's first search alone, whether it found each gold page, kept
on disk so that a rerun reads it back; a structure that writes no queries asks no LM."""

from __future__ import annotations

import json
from pathlib import Path

import dspy

from filingqa.evaluation.open_corpus import OpenCorpus
from filingqa.optimizers.search_pages import first_search_hit, searched_gold_pages
from filingqa.optimizers.structure_search import Structure
from filingqa.records.qa_record import Evidence, QARecord

from ..kit.passages import QUESTION, ListSearch

PLAIN = {"query_writing": False, "decompose": False, "curation": False}


def record(rid: str, *evidence: Evidence) -> QARecord:
    return QARecord(
        id=rid,
        dataset="financebench",
        split="dev",
        question=QUESTION,
        answer="1",
        answer_value=1.0,
        answer_type="number",
        evidence=list(evidence),
    )


BETA_PAGE = record("beta", Evidence(doc_name="BETA_2024_10K", page=8))  # page 9, 2nd found
NO_PAGE = record("none", Evidence(doc_name="BETA_2024_10K"))


def corpus(search: ListSearch) -> OpenCorpus:
    return OpenCorpus(search=search, plain=search)


def test_a_first_search_finds_the_gold_page_only_within_its_k_and_asks_no_lm() -> None:
    search = ListSearch()
    with dspy.context(lm=None):
        wide = first_search_hit(Structure(k=5, **PLAIN).build(), BETA_PAGE, corpus(search))
        narrow = first_search_hit(Structure(k=1, **PLAIN).build(), BETA_PAGE, corpus(search))
        unknown = first_search_hit(Structure(k=5, **PLAIN).build(), NO_PAGE, corpus(search))
    assert (wide, narrow, unknown) == (True, False, None)
    assert [call["k"] for call in search.calls] == [5, 1, 5]


def test_pages_are_kept_per_structure_and_read_back_on_a_rerun(tmp_path: Path) -> None:
    programs = {"k=5": Structure(k=5, **PLAIN).build(), "k=1": Structure(k=1, **PLAIN).build()}
    with dspy.context(lm=None):
        found = searched_gold_pages(
            programs, [BETA_PAGE, NO_PAGE], corpus(ListSearch()), pages_dir=tmp_path, progress=False
        )
    assert found == {"k=5": {"beta": True, "none": None}, "k=1": {"beta": False, "none": None}}
    assert json.loads((tmp_path / "k=1.json").read_text()) == {"beta": False, "none": None}
    unreachable = ListSearch(broken=True)
    again = searched_gold_pages(
        programs, [BETA_PAGE, NO_PAGE], corpus(unreachable), pages_dir=tmp_path, progress=False
    )
    assert again == found and unreachable.calls == []
