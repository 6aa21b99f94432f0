"""The settings ``filingqa eval`` compares, each built into a function from a record to an
answer.

``direct``, ``cot`` and ``pot`` answer from passages: the record's gold context or, over an
open corpus, the top k of plain hybrid search; ``naive-rag`` is ``cot`` over that top k
(retrieve once, answer once). ``program`` runs FinancialQA over the gold passages, or with
the full search pipeline as its handle. Every setting answers with the same LM
(``dspy.settings.lm``).
"""

from __future__ import annotations

from collections.abc import Callable

import dspy
from pydantic import BaseModel

from filingqa.datasets import QARecord
from filingqa.evaluation.gold_context import gold_passages
from filingqa.evaluation.open_corpus import OpenCorpus, PageRef, RecordingSearch, gold_hit, pages
from filingqa.program.citations import cite
from filingqa.program.financial_qa import FinancialQA
from filingqa.program.lm import adapter_for
from filingqa.program.passages import render
from filingqa.program.pot import ProgramOfThought
from filingqa.program.search_handle import SearchHandle
from filingqa.program.trace import Step
from filingqa.retrieval import Passage
from filingqa.signatures.cot import AnswerFromEvidence
from filingqa.signatures.direct import AnswerDirectly


class ModeAnswer(BaseModel):
    """What one setting answered for one record, with the pages it cited and retrieved and
    (the program) the steps it took.

    ``retrieved`` is None over gold context; ``gold_retrieved`` is None when the record
    names no evidence page.
    """

    answer: str
    outcome: str = "answered"
    working: str = ""
    note: str = ""
    cited: list[PageRef] = []
    retrieved: list[PageRef] | None = None
    gold_retrieved: bool | None = None
    steps: list[Step] = []


Mode = Callable[[QARecord], ModeAnswer]
Answerer = Callable[[str, list[Passage]], ModeAnswer]


def direct(question: str, passages: list[Passage]) -> ModeAnswer:
    """The LM answers from the passages in one call (no program)."""
    with dspy.context(adapter=adapter_for(dspy.settings.lm)):
        out = dspy.Predict(AnswerDirectly)(question=question, evidence=render(passages))
    return ModeAnswer(answer=out.answer)


def cot(question: str, passages: list[Passage]) -> ModeAnswer:
    """The LM reasons, then answers, from the passages in one call."""
    with dspy.context(adapter=adapter_for(dspy.settings.lm)):
        out = dspy.Predict(AnswerFromEvidence)(question=question, evidence=render(passages))
    return ModeAnswer(answer=out.answer, working=out.reasoning)


def pot(question: str, passages: list[Passage]) -> ModeAnswer:
    """Bare Program-of-Thought over the passages: one greedy program, ≤ 2 repairs."""
    out = ProgramOfThought()(question=question, evidence=render(passages))
    error = out.execution.error
    return ModeAnswer(
        answer=out.answer,
        outcome="answered" if error is None else "error",
        working=out.program,
        note=f"{error.kind}: {error.message}" if error else "",
        cited=[(c.doc, c.page) for c in cite(out.program, passages)],
    )


def program(
    question: str, passages: list[Passage] | None = None, search: SearchHandle | None = None
) -> ModeAnswer:
    """The full FinancialQA program over given passages or with a search handle."""
    with dspy.context(adapter=adapter_for(dspy.settings.lm)):
        final = FinancialQA()(question=question, passages=passages, search=search).final
    return ModeAnswer(
        answer=final.answer,
        outcome=final.outcome,
        working=final.working,
        note=final.reason,
        cited=list(dict.fromkeys((c.doc, c.page) for c in final.citations)),
        steps=final.trace.steps,
    )


PASSAGE_MODES: dict[str, Answerer] = {"direct": direct, "cot": cot, "pot": pot, "naive-rag": cot}
MODES = (*PASSAGE_MODES, "program")
RETRIEVED_ONLY = frozenset({"naive-rag"})


def build_mode(name: str, corpus: OpenCorpus | None = None) -> Mode:
    """Setting ``name`` over each record's gold context, or over ``corpus`` when given."""
    if name not in MODES:
        raise ValueError(f"unknown eval mode {name!r}; available: {', '.join(MODES)}")
    if corpus is None and name in RETRIEVED_ONLY:
        raise ValueError(f"{name} retrieves its evidence: it needs an index, not gold context")
    if name == "program":
        return _gold_program if corpus is None else _searching_program(corpus)
    answer = PASSAGE_MODES[name]
    return _over_gold(answer) if corpus is None else _over_top_k(answer, corpus)


def _gold_program(record: QARecord) -> ModeAnswer:
    return program(record.question, passages=gold_passages(record))


def _searching_program(corpus: OpenCorpus) -> Mode:
    def mode(record: QARecord) -> ModeAnswer:
        search = RecordingSearch(corpus.search)
        return _with_retrieval(program(record.question, search=search), record, search.found)

    return mode


def _over_gold(answer: Answerer) -> Mode:
    def mode(record: QARecord) -> ModeAnswer:
        return answer(record.question, gold_passages(record))

    return mode


def _over_top_k(answer: Answerer, corpus: OpenCorpus) -> Mode:
    def mode(record: QARecord) -> ModeAnswer:
        passages = corpus.plain.search(record.question, k=corpus.k)
        return _with_retrieval(answer(record.question, passages), record, passages)

    return mode


def _with_retrieval(answer: ModeAnswer, record: QARecord, passages: list[Passage]) -> ModeAnswer:
    retrieved = pages(passages)
    return answer.model_copy(
        update={"retrieved": retrieved, "gold_retrieved": gold_hit(record, retrieved)}
    )
