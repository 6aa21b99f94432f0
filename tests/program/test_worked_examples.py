"""Worked examples: the nearest solved questions, shown to the PoT writer after the question."""

from __future__ import annotations

import copy

import dspy
import pytest

from filingqa.program.pot import ProgramOfThought
from filingqa.program.worked_examples import WorkedExample, WorkedExamples, shown

from ..kit.replies import fenced
from ..retrieval.filings import fake_embedder

EVIDENCE = "| | 2019 | 2018 |\n|---|---|---|\n| Revenue | 120 | 90 |"
POOL = [
    WorkedExample(
        id="a",
        question="What was the change in cash from 2018 to 2019?",
        program="cash_2019 = 5\ncash_2018 = 3\nresult = cash_2019 - cash_2018",
    ),
    WorkedExample(
        id="b",
        question="What was the percentage change in revenue from 2018 to 2019?",
        program="revenue_2019 = 8\nrevenue_2018 = 4\n"
        "result = (revenue_2019 - revenue_2018) / revenue_2018 * 100",
    ),
    WorkedExample(id="c", question="How many employees were there?", program="result = 12"),
]


@pytest.fixture
def pool() -> WorkedExamples:
    return WorkedExamples(POOL, embedder=fake_embedder())


def test_the_nearest_questions_come_first(pool: WorkedExamples) -> None:
    nearest = pool.nearest("What was the percentage change in sales between 2017 and 2018?", 2)
    assert [e.id for e in nearest] == ["b", "a"]
    assert pool.nearest("any question", 0) == []


def test_an_example_asking_the_same_question_is_never_shown(pool: WorkedExamples) -> None:
    nearest = pool.nearest("what was the change in cash from 2018 to 2019? ", 3)
    assert [e.id for e in nearest] == ["b", "c"]


def test_an_empty_pool_is_refused() -> None:
    with pytest.raises(ValueError, match="at least one"):
        WorkedExamples([])


def test_copies_of_a_program_share_one_pool(pool: WorkedExamples) -> None:
    pot = ProgramOfThought(worked_examples=pool, examples_per_question=1)
    assert copy.deepcopy(pot).worked_examples is pool


def test_examples_are_shown_after_the_evidence_and_before_the_question(
    scripted_lm, pool: WorkedExamples
) -> None:
    lm = scripted_lm([fenced("new = 120\nold = 90\nresult = (new - old) / old * 100")])
    pot = ProgramOfThought(worked_examples=pool, examples_per_question=1)
    question = "What was the percentage change in revenue from 2018 to 2019 for Acme?"
    with dspy.context(lm=lm):
        prediction = pot(question=question, evidence=EVIDENCE)
    prompt = lm.engine.prompts[0]
    assert prompt.index(EVIDENCE) < prompt.index(POOL[1].program) < prompt.index(question)
    assert shown([POOL[1]]) in prompt
    assert "Examples from other filings:" in prompt
    assert POOL[0].program not in prompt
    assert round(prediction.value, 2) == 33.33


def test_without_examples_the_request_is_the_bare_prompt(scripted_lm, pool) -> None:
    replies = [fenced("result = 30")] * 2
    bare, none = scripted_lm(replies), scripted_lm(replies)
    with dspy.context(lm=bare):
        ProgramOfThought()(question="Change?", evidence=EVIDENCE)
    with dspy.context(lm=none):
        ProgramOfThought(worked_examples=pool, examples_per_question=0)(
            question="Change?", evidence=EVIDENCE
        )
    assert bare.engine.prompts == none.engine.prompts
    assert "Examples" not in bare.engine.prompts[0]


def test_a_negative_example_count_is_refused(pool: WorkedExamples) -> None:
    with pytest.raises(ValueError, match="examples_per_question"):
        ProgramOfThought(worked_examples=pool, examples_per_question=-1)


def test_shown_examples() -> None:
    assert shown([]) is None
    assert shown(POOL[2:]) == "Q: How many employees were there?\n```python\nresult = 12\n```"
