"""Conversations: follow-up questions over the same filings, answered turn by turn.

Each turn is rewritten to stand alone (earlier answers and periods filled in), answered by
:class:`~filingqa.program.financial_qa.FinancialQA`, and its evidence carried into the next
turn's buffer.
"""

from __future__ import annotations

import dspy
from pydantic import BaseModel

from filingqa.program.final_answer import FinalAnswer
from filingqa.program.financial_qa import FinancialQA
from filingqa.records import Passage
from filingqa.records.search_handle import SearchHandle
from filingqa.signatures.conversation import MakeStandalone

CARRIED_PASSAGES = 8


class Turn(BaseModel):
    """One exchange: as asked, as answered (standalone), and the answer."""

    question: str
    standalone: str
    answer: FinalAnswer


class Conversation:
    """A dialogue over given passages (gold context) or a search handle."""

    def __init__(
        self,
        qa: FinancialQA,
        *,
        passages: list[Passage] | None = None,
        search: SearchHandle | None = None,
        company: str | None = None,
    ) -> None:
        if passages is None and search is None:
            raise ValueError("give the evidence: passages (gold context) or a search handle")
        self.qa = qa
        self.passages = passages
        self.search = search
        self.company = company
        self.turns: list[Turn] = []
        self._standalone = dspy.Predict(MakeStandalone)

    def ask(self, question: str) -> FinalAnswer:
        """Answer ``question`` in the context of the earlier turns."""
        standalone = self.standalone(question)
        final = self.qa(
            question=standalone,
            passages=self.passages,
            search=self.search,
            company=self.company,
            carried=self._carried(),
        ).final
        self.turns.append(Turn(question=question, standalone=standalone, answer=final))
        return final

    def standalone(self, question: str) -> str:
        """``question`` rewritten to stand alone (unchanged on the first turn)."""
        if not self.turns:
            return question
        history = [f"Q: {t.standalone} A: {t.answer.answer}" for t in self.turns]
        rewritten = self._standalone(conversation=history, question=question)
        return rewritten.standalone_question.strip() or question

    def _carried(self) -> list[Passage]:
        """Passages cited in earlier turns (most recent first), for the evidence buffer."""
        if self.search is None:
            return []
        cited: dict[str, Passage] = {}
        for turn in reversed(self.turns):
            for passage in turn.answer.evidence:
                cited.setdefault(passage.id, passage)
        return list(cited.values())[:CARRIED_PASSAGES]
