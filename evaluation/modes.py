"""The settings ``filingqa eval`` compares, each built into a function from a record to an
answer.

``direct``, ``cot`` and ``pot`` answer from passages: the record's gold context or, over an
open corpus, the top k of plain hybrid search; ``naive-rag`` is ``cot`` over that top k
(retrieve once, answer once). ``program`` runs an uncompiled FinancialQA over the gold
passages, or with the full search pipeline as its handle (``program+forms``,
``program+guess`` and ``program-forms`` the same with the answer form decided, guessed from
the wording alone, or not used); ``compiled`` runs a compiled
artifact's program by its structure's own loop policy, without the trained router (an
artifact from before structures were searched: every question takes the full loop),
``compiled+router`` with the artifact's trained router (and, over a corpus, both rerank
with the artifact's reranker). Every setting answers with the same LM (``dspy.settings.lm``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import dspy
from pydantic import BaseModel

from filingqa.artifacts.compiled import read_program, read_router
from filingqa.checks.citations import cite
from filingqa.datasets.gold_context import gold_passages
from filingqa.evaluation.open_corpus import OpenCorpus, PageRef, RecordingSearch, gold_hit, pages
from filingqa.evidence.render import render
from filingqa.lm.backbone import adapter_for
from filingqa.lm.trace import Step
from filingqa.program.financial_qa import FinancialQA
from filingqa.program.pot import ProgramOfThought
from filingqa.records import Passage, QARecord
from filingqa.records.search_handle import SearchHandle
from filingqa.router.rule import fixed_router, loop_router
from filingqa.signatures.cot import AnswerFromEvidence
from filingqa.signatures.direct import AnswerDirectly


class ModeAnswer(BaseModel):
    """What one setting answered for one record, with the pages it cited and retrieved and
    (the program) the steps it took.

    ``retrieved`` (every page a search returned) and ``given`` (the pages of the passages
    the answer was read from) are None over gold context; ``gold_retrieved`` and
    ``gold_given`` say whether a gold evidence page is among them (None when the record
    names no evidence page).
    """

    answer: str
    outcome: str = "answered"
    working: str = ""
    note: str = ""
    cited: list[PageRef] = []
    retrieved: list[PageRef] | None = None
    gold_retrieved: bool | None = None
    given: list[PageRef] | None = None
    gold_given: bool | None = None
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
    question: str,
    passages: list[Passage] | None = None,
    search: SearchHandle | None = None,
    qa: FinancialQA | None = None,
) -> ModeAnswer:
    """The full program (``qa``, by default an uncompiled FinancialQA) over given passages
    or with a search handle."""
    qa = qa if qa is not None else FinancialQA()
    with dspy.context(adapter=adapter_for(dspy.settings.lm)):
        final = qa(question=question, passages=passages, search=search).final
    return ModeAnswer(
        answer=final.answer,
        outcome=final.outcome,
        working=final.working,
        note=final.reason,
        cited=list(dict.fromkeys((c.doc, c.page) for c in final.citations)),
        given=pages(final.evidence) if search is not None else None,
        steps=final.trace.steps,
    )


PASSAGE_MODES: dict[str, Answerer] = {"direct": direct, "cot": cot, "pot": pot, "naive-rag": cot}
PROGRAM_MODES: dict[str, dict[str, Any]] = {
    "program": {},
    "program+forms": {"answer_forms": "decide"},
    "program+guess": {"answer_forms": "guess"},
    "program-forms": {"answer_forms": "off"},
}
"""The uncompiled program with its defaults, and with each way of choosing the answer form
(:class:`~filingqa.program.answer_form_decision.AnswerFormDecision`) named, so that a comparison
stays the same when a default changes."""
COMPILED_MODES = ("compiled", "compiled+router")
MODES = (*PASSAGE_MODES, *PROGRAM_MODES, *COMPILED_MODES)
RETRIEVED_ONLY = frozenset({"naive-rag"})


def build_mode(name: str, corpus: OpenCorpus | None = None, artifact: Path | None = None) -> Mode:
    """Setting ``name`` over each record's gold context, or over ``corpus`` when given;
    the compiled settings run the artifact in ``artifact``."""
    if name not in MODES:
        raise ValueError(f"unknown eval mode {name!r}; available: {', '.join(MODES)}")
    if corpus is None and name in RETRIEVED_ONLY:
        raise ValueError(f"{name} retrieves its evidence: it needs an index, not gold context")
    if name in PROGRAM_MODES:
        options = PROGRAM_MODES[name]
        qa = FinancialQA(**options) if options else None
        return gold_program(qa) if corpus is None else searching_program(corpus, qa)
    if name in COMPILED_MODES:
        if artifact is None:
            raise ValueError(f"{name} runs a compiled artifact: give its folder (--program DIR)")
        qa = compiled(artifact, trained_router=name == "compiled+router")
        return gold_program(qa) if corpus is None else searching_program(corpus, qa)
    answer = PASSAGE_MODES[name]
    return _over_gold(answer) if corpus is None else _over_top_k(answer, corpus)


def compiled(artifact: Path, *, trained_router: bool) -> FinancialQA:
    """The compiled program in ``artifact``: its prompts, demos and structure, with its
    trained router (what the compile's router report calls ``routed``) or without it, by
    the structure's own loop policy (a compile from before structures were searched: every
    question taking the full loop, its ``always_full``), so that the two settings differ by
    the router alone.

    Raises:
        ValueError: ``trained_router`` and the artifact has no router.
    """
    qa = read_program(artifact)
    if not trained_router:
        loop = qa.manifest.loop
        qa.router = loop_router(loop) if loop else fixed_router(True, "compiled, no router")
    else:
        router = read_router(artifact)
        if router is None:
            raise ValueError(f"{artifact} has no trained router: recompile it")
        qa.router = router
    return qa


def gold_program(qa: FinancialQA | None) -> Mode:
    """The program (``qa``, else an uncompiled one) over each record's gold passages."""

    def mode(record: QARecord) -> ModeAnswer:
        return program(record.question, passages=gold_passages(record), qa=qa)

    return mode


def searching_program(corpus: OpenCorpus, qa: FinancialQA | None) -> Mode:
    """The program searching ``corpus`` (:func:`reranked_search`)."""
    searcher = reranked_search(corpus, qa)

    def mode(record: QARecord) -> ModeAnswer:
        search = RecordingSearch(searcher)
        found = program(record.question, search=search, qa=qa)
        return _with_retrieval(found, record, search.found)

    return mode


def reranked_search(corpus: OpenCorpus, qa: FinancialQA | None) -> SearchHandle:
    """``corpus``'s full search, reranked by the compiled artifact's reranker and with the
    search settings it records when ``qa`` has them and the corpus search can take them."""
    search = corpus.search
    reranker = getattr(qa, "reranker", None)
    with_reranker = getattr(search, "with_reranker", None)
    search = with_reranker(reranker) if reranker and callable(with_reranker) else search
    changes = getattr(qa, "search_settings", None)
    with_settings = getattr(search, "with_settings", None)
    return with_settings(**changes) if changes and callable(with_settings) else search


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
    """``answer`` with the pages searched and given; an answer that reports no given pages
    read every passage found."""
    retrieved = pages(passages)
    given = retrieved if answer.given is None else answer.given
    return answer.model_copy(
        update={
            "retrieved": retrieved,
            "gold_retrieved": gold_hit(record, retrieved),
            "given": given,
            "gold_given": gold_hit(record, given),
        }
    )
