"""Answering one question over the library: the program ``filingqa ask --index`` runs,
its steps told to a listener as they happen, and the answer with its cited passages."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Protocol

import dspy
from pydantic import BaseModel, Field

from filingqa.ask import FilingAnswer, answer_with_search
from filingqa.lm.trace import Step, step_listener
from filingqa.program.financial_qa import FinancialQA
from filingqa.server.answer_queue import QuestionCancelled
from filingqa.server.library import Library


class AskRequest(BaseModel):
    """A question, narrowed to a company or to documents when given."""

    question: str = Field(min_length=1)
    company: str | None = None
    doc_ids: list[str] = Field(default_factory=list, max_length=100)


class CitedPassage(BaseModel):
    """A passage an answer cites: where it is and what it says."""

    doc: str
    page: int
    passage_id: str
    kind: str
    text: str


class AskResponse(BaseModel):
    """The answer, the program that gave it (a compiled artifact's name, or
    ``uncompiled``), its outcome and working, the passages it cites, and its cost."""

    question: str
    program: str
    answer: str
    outcome: str
    reason: str
    working: str
    citations: list[CitedPassage]
    untraced_numbers: list[float]
    lm_calls: int
    cached_calls: int
    tokens: int
    seconds: float


class Answerer(Protocol):
    """What answers a server's questions (the program over the library; tests script it)."""

    def __call__(
        self, request: AskRequest, on_step: Callable[[Step], None], cancelled: threading.Event
    ) -> AskResponse: ...


class ProgramAnswerer:
    """FinancialQA (``program`` when given, else uncompiled) with ``lm`` over the library,
    as ``filingqa ask --index`` answers."""

    def __init__(self, library: Library, lm: dspy.BaseLM, program: FinancialQA | None) -> None:
        self.library = library
        self.lm = lm
        self.program = program

    def __call__(
        self, request: AskRequest, on_step: Callable[[Step], None], cancelled: threading.Event
    ) -> AskResponse:
        def told(step: Step) -> None:
            if cancelled.is_set():
                raise QuestionCancelled(step.name)
            on_step(step)

        token = step_listener.set(told)
        try:
            answer = answer_with_search(
                request.question,
                search=self.library.handle(request.doc_ids),
                lm=self.lm,
                company=request.company,
                program=self.program,
            )
        finally:
            step_listener.reset(token)
        return response(answer, self.library)


def response(answer: FilingAnswer, library: Library) -> AskResponse:
    """``answer`` with the text of each passage it cites (read from the library)."""
    cited = []
    for citation in answer.citations:
        passage = library.passage(citation.passage_id)
        cited.append(
            CitedPassage(
                doc=citation.doc,
                page=citation.page,
                passage_id=citation.passage_id,
                kind=citation.kind,
                text=passage.text if passage else "",
            )
        )
    return AskResponse(
        question=answer.question,
        program=answer.program,
        answer=answer.answer,
        outcome=answer.outcome,
        reason=answer.reason,
        working=answer.working,
        citations=cited,
        untraced_numbers=answer.untraced_numbers,
        lm_calls=answer.lm_calls,
        cached_calls=answer.cached_calls,
        tokens=answer.tokens,
        seconds=answer.seconds,
    )


def step_event(step: Step) -> dict[str, object]:
    """A step as the stream sends it."""
    return {
        "name": step.name,
        "note": step.note,
        "fault": step.fault,
        "lm_calls": step.lm_calls,
        "seconds": step.seconds,
    }
