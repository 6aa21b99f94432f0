import dspy
import pytest

from filingqa.program.conversation import Conversation
from filingqa.program.financial_qa import FinancialQA

from ..kit.lm import FakeEngine, Rule, marker_lm
from ..kit.passages import passage
from ..kit.replies import AMBIGUITY, NO_AMBIGUITY, WRITE, fenced

TABLE = passage("D:p1:tab1", "(In millions)\n| | 2009 | 2008 |\n| Revenue | 120.5 | 98.7 |")
STANDALONE = "Rewrite the follow-up question"


def conversation(rules: list[Rule], **kwargs) -> tuple[Conversation, FakeEngine, dspy.LM]:
    lm = marker_lm(rules)
    qa = FinancialQA(detect_ambiguity=False)
    return Conversation(qa, **kwargs), lm.engine, lm


def test_follow_up_is_made_standalone_with_the_earlier_answer() -> None:
    def program(prompt: str) -> str:
        return fenced("result = 120.5" if "in 2008" not in prompt else "result = 98.7")

    chat, engine, lm = conversation(
        [
            (STANDALONE, {"standalone_question": "What was revenue in 2008?"}),
            (AMBIGUITY, NO_AMBIGUITY),
            (WRITE, program),
        ],
        passages=[TABLE],
    )
    with dspy.context(lm=lm, adapter=dspy.JSONAdapter()):
        first = chat.ask("What was revenue in 2009?")
        second = chat.ask("And the year before?")
    assert (first.value, second.value) == (120.5, 98.7)
    assert [t.standalone for t in chat.turns] == [
        "What was revenue in 2009?",
        "What was revenue in 2008?",
    ]
    rewrite_prompt = next(p for p in engine.prompts if STANDALONE in p)
    assert "Q: What was revenue in 2009? A: 120.5 million" in rewrite_prompt
    assert engine.count(STANDALONE) == 1  # the first turn needs no rewrite


def test_a_conversation_needs_evidence() -> None:
    with pytest.raises(ValueError):
        Conversation(FinancialQA())


class OnceSearch:
    """Finds the table for the first query only: later turns must use carried evidence."""

    def __init__(self) -> None:
        self.calls = 0

    def search(self, query, *, k, company=None, period=None):
        self.calls += 1
        return [TABLE] if self.calls == 1 else []


def test_evidence_of_earlier_turns_is_carried_in_search_mode() -> None:
    chat, _, lm = conversation(
        [
            (STANDALONE, {"standalone_question": "What was revenue in 2008?"}),
            ("line-item vocabulary", {"company": "", "period": "", "variants": []}),
            (
                "Choose the retrieved passages",
                {"keep": [1], "answerable": True, "missing": "", "complementary_query": ""},
            ),
            (WRITE, fenced("result = 98.7")),
        ],
        search=OnceSearch(),
    )
    chat.qa = FinancialQA(detect_ambiguity=False, hypotheses=0)
    with dspy.context(lm=lm, adapter=dspy.JSONAdapter()):
        chat.ask("What was revenue in 2009?")
        second = chat.ask("And the year before?")
    assert [p.id for p in second.evidence] == ["D:p1:tab1"]
    assert [c.passage_id for c in second.citations] == ["D:p1:tab1"]
