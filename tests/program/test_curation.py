import json

import dspy

from filingqa.evidence.render import render
from filingqa.program.curation import OUTPUT_TOKENS, Curator, passage_list

from ..kit.passages import passage

PASSAGES = [passage(f"D:p{n}:tex1", f"passage {n}") for n in (1, 2, 3)]


def curate(scripted_lm, reply: dict):
    lm = scripted_lm([json.dumps(reply)])
    with dspy.context(lm=lm, adapter=dspy.JSONAdapter()):
        return Curator()("Q?", PASSAGES), lm


def test_the_passage_list_numbers_passages_from_one_with_their_opening_words() -> None:
    long = passage("D:p4:tab1", "Net sales by segment in millions of dollars for 2022 and 2021")
    assert passage_list([*PASSAGES[:2], long]) == (
        "1. page 1, text: passage 1\n"
        "2. page 2, text: passage 2\n"
        "3. page 4, table: Net sales by segment in millions of dollars ..."
    )


def test_the_curator_reads_the_candidates_as_the_reasoning_steps_evidence(scripted_lm) -> None:
    reply = {"keep": [1], "answerable": True, "missing": "", "complementary_query": ""}
    _, lm = curate(scripted_lm, reply)
    (prompt,) = lm.engine.prompts
    assert render(PASSAGES) in prompt


def test_kept_numbers_select_passages_and_out_of_range_ones_are_ignored(scripted_lm) -> None:
    reply = {"keep": [3, 1, 7], "answerable": False, "missing": "2023", "complementary_query": "q"}
    result, _ = curate(scripted_lm, reply)
    assert [p.page for p in result.kept] == [1, 3]
    assert (result.answerable, result.missing, result.complementary_query) == (False, "2023", "q")


def test_an_empty_selection_keeps_everything(scripted_lm) -> None:
    reply = {"keep": [], "answerable": True, "missing": "", "complementary_query": ""}
    result, _ = curate(scripted_lm, reply)
    assert result.kept == PASSAGES


def test_no_passages_needs_no_lm_call(scripted_lm) -> None:
    lm = scripted_lm([])
    with dspy.context(lm=lm, adapter=dspy.JSONAdapter()):
        result = Curator()("What was capex?", [])
    assert not result.answerable
    assert result.missing == "What was capex?"


def test_the_selection_is_capped_so_a_looping_list_stops_early(scripted_lm) -> None:
    reply = {"keep": [1], "answerable": True, "missing": "", "complementary_query": ""}
    _, lm = curate(scripted_lm, reply)
    assert lm.engine.requests[0].config.max_tokens == OUTPUT_TOKENS < 1024
