"""FinancialQA: the whole program, question → retrieval → reasoning → verification → answer.

ambiguity check (questions with a cue) ──► one run per reading (concurrently) ──► aggregate
      │ none
      ▼
route (answer form → PoT, CoT, quotes or yes/no; single pass or the full loop)
      ▼
evidence: given passages (gold context) or Multi-HyDE search + curation (kept to the
          question's company; no indexed filing of it, or of its period: ``not_indexed``)
      ▼
answer form decided over the evidence (when the wording leaves it open)
      ▼
reason (PoT / CoT / quotes / yes-no) ──► verify ──► REJECT: refine, retrieve, again (≤ K)
      ▼
anti-refusal review ──► FinalAnswer (value, working, citations, confidence, trace)

Each stage is its own module: :class:`~filingqa.program.ambiguity.AmbiguityCheck`,
:class:`~filingqa.program.evidence_gatherer.EvidenceGatherer`,
:class:`~filingqa.program.reasoning_loop.ReasoningLoop` and
:class:`~filingqa.program.anti_refusal.AntiRefusal`; one
:class:`~filingqa.program.question_state.QuestionState` per reading carries the route,
evidence buffer, queries tried and trace between them.

Every LM-backed step runs under :func:`~filingqa.lm.faults.attempt`: a failure is a
:class:`~filingqa.lm.faults.Fault` on that step of the trace, and the question degrades
instead of raising — optional steps (ambiguity, decomposition, curation, refinement) are
skipped, HyDE retrieval falls back to the question alone, a context overflow shrinks the
evidence and retries, a failed verification leaves the answer ``unverified``, and a failed
reasoning step ends the question with outcome ``error`` and the fault as its reason. No
answer leaves with a number found neither in the evidence nor among the computed values.

Over a search handle that tells what it holds, the holdings rule
(:mod:`~filingqa.checks.holdings`) runs first, with no LM: a question about a company, or a
company and period, that no indexed filing reports ends ``not_indexed`` (naming what the
index holds for it); otherwise a company-specific question searches only its company's
filings, and a citation of another company's filing is dropped from the answer.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Callable
from functools import partial
from typing import Any

import dspy

from filingqa.checks.holdings import (
    CompanyScope,
    NotIndexed,
    Ruling,
    ScopedSearch,
    check_holdings,
)
from filingqa.checks.inputs import clean_question, question_problem
from filingqa.evidence.render import render
from filingqa.lm.faults import attempt, fault_of
from filingqa.lm.trace import Step, Trace
from filingqa.program.ambiguity import AmbiguityCheck
from filingqa.program.answer_form_decision import AnswerFormDecision, FormChoice
from filingqa.program.anti_refusal import AntiRefusal
from filingqa.program.draft import Draft
from filingqa.program.evidence_gatherer import EvidenceGatherer
from filingqa.program.final_answer import (
    NOT_STATED,
    FinalAnswer,
    Outcome,
    from_draft,
    not_indexed,
    stopped,
)
from filingqa.program.pot import ProgramOfThought
from filingqa.program.question_state import QuestionState, Sources, screened_sources
from filingqa.program.reasoning_loop import DEFAULT_ROUNDS, Explanations, ReasoningLoop
from filingqa.program.worked_examples import WorkedExamples
from filingqa.records import Passage
from filingqa.records.refusal import is_refusal
from filingqa.records.search_handle import SearchHandle, holdings_of
from filingqa.router.rule import RoutingDecision, route_by_rule

EVIDENCE_CHARS = 8000  # about 2,000 tokens: leaves room in the local model's context
UNVERIFIED_CONFIDENCE = 0.4  # an unverified answer's (final_answer), at most

# Artifact name → predictor path. Compiled artifacts name the predictors as the flat
# FinancialQA they were first saved from did; saved state keeps those names.
STATE_NAMES = {
    "detect": "ambiguity.detect",
    "aggregate": "ambiguity.aggregate",
    "decomposer": "gather.decompose",
    "retriever.rewrite": "gather.retriever.rewrite",
    "retriever.hyde": "gather.retriever.hyde",
    "curator.curate": "gather.curator.curate",
    "refine": "gather.refine_queries",
    "pot.write": "reason.pot.write",
    "pot.repair": "reason.pot.repair",
    "pot.revise_program": "reason.pot.revise_program",
    "cot": "reason.cot",
    "verifier.verify": "reason.verifier.verify",
}
_ARTIFACT_NAMES = {path: name for name, path in STATE_NAMES.items()}


class FinancialQA(dspy.Module):
    """Answer questions about filings; see the module docstring for the flow.

    Call with ``question`` and either ``passages`` (gold context) or ``search`` (a
    :class:`~filingqa.records.search_handle.SearchHandle` over an index); ``company``
    narrows the search; ``carried`` passages (earlier turns of a conversation) join the
    evidence buffer at low priority. Returns a ``dspy.Prediction`` with ``answer`` (text)
    and ``final`` (:class:`~filingqa.program.final_answer.FinalAnswer`).

    ``sign_check``, ``cell_check`` and ``formula_notes`` switch the deterministic aids of
    the program writer (:class:`~filingqa.program.reasoning_loop.ReasoningLoop`).
    ``answer_forms`` chooses how the answer's form (computed, looked-up, span, list, count,
    yes/no, explanation) picks the path: ``"off"`` leaves PoT or CoT to the keyword rule,
    ``"guess"`` follows the wording's guess, ``"decide"`` asks the LM where the guess is
    unsure (:class:`~filingqa.program.answer_form_decision.AnswerFormDecision`).
    With ``worked_examples`` the program writer is shown the ``examples_per_question``
    nearest solved questions (:mod:`~filingqa.program.worked_examples`).

    Over a search handle each LM step of evidence gathering can be switched to a cheap
    alternative (:class:`~filingqa.program.evidence_gatherer.EvidenceGatherer`):
    ``decompose``, ``query_writing`` (Multi-HyDE with ``hypotheses`` passages) and
    ``curation``; PoT's votes there are ``searched_samples`` (None: ``samples``).
    ``statement_rows`` puts the figures a company-and-period question asks for, looked up in
    a handle's statement records, ahead of the passages as labelled rows; with
    ``statement_programs`` a figure (or a direction or sign) those records settle is
    computed by a program written from them, not by the LM
    (:mod:`~filingqa.program.statement_program`).
    ``explanations="quoted"`` answers a question asking why or how with the
    filing's own sentences, checked like any quote, instead of in free words.
    """

    def __init__(
        self,
        *,
        max_rounds: int = DEFAULT_ROUNDS,
        hypotheses: int = 3,
        k: int = 8,
        samples: int = 1,
        searched_samples: int | None = None,
        evidence_chars: int = EVIDENCE_CHARS,
        detect_ambiguity: bool = True,
        router: Callable[[str], RoutingDecision] = route_by_rule,
        sign_check: bool = True,
        cell_check: bool = True,
        formula_notes: bool = True,
        answer_forms: FormChoice = "off",
        worked_examples: WorkedExamples | None = None,
        examples_per_question: int = 0,
        decompose: bool = True,
        query_writing: bool = True,
        curation: bool = True,
        explanations: Explanations = "free",
        statement_rows: bool = True,
        statement_programs: bool = True,
    ) -> None:
        super().__init__()
        self.ambiguity = AmbiguityCheck()
        self.form = AnswerFormDecision(answer_forms)
        self.gather = EvidenceGatherer(
            hypotheses=hypotheses,
            k=k,
            decompose=decompose,
            query_writing=query_writing,
            curation=curation,
            statement_rows=statement_rows,
        )
        self.reason = ReasoningLoop(
            max_rounds=max_rounds,
            samples=samples,
            searched_samples=searched_samples,
            sign_check=sign_check,
            cell_check=cell_check,
            formula_notes=formula_notes,
            worked_examples=worked_examples,
            examples_per_question=examples_per_question,
            explanations=explanations,
            statement_programs=statement_programs,
        )
        self.anti_refusal = AntiRefusal()
        self.evidence_chars = evidence_chars
        self.detect_ambiguity = detect_ambiguity
        self.router = router

    @property
    def pot(self) -> ProgramOfThought:
        """The program writer (compiled artifacts put their demos on ``pot.write``)."""
        return self.reason.pot

    @property
    def max_rounds(self) -> int:
        """Rounds of the reason-verify-revise loop on the full loop."""
        return self.reason.max_rounds

    def forward(
        self,
        question: str,
        passages: list[Passage] | None = None,
        search: SearchHandle | None = None,
        company: str | None = None,
        carried: list[Passage] | None = None,
    ) -> dspy.Prediction:
        if passages is None and search is None:
            raise ValueError("give the evidence: passages (gold context) or a search handle")
        trace = Trace()
        problem = question_problem(question)
        if problem is not None:
            return _prediction(_invalid(question, problem, trace))
        question = clean_question(question)
        ruling = _holdings_ruling(question, passages, search, company, trace)
        if isinstance(ruling, NotIndexed):
            return _prediction(not_indexed(question, ruling, trace))
        search, company = _scoped(ruling, search, company, trace)
        solve = partial(self._solve, screened_sources(passages, search, company, carried, trace))
        try:
            report = self.ambiguity(question, trace) if self.detect_ambiguity else None
            if report is not None and report.interpretations:
                final = self.ambiguity.fan_out(question, report, solve, trace)
            else:
                final = solve(question, trace)
        except Exception as failure:  # a failure outside every guarded step: still marked
            final = _failed(question, failure, trace)
        if isinstance(ruling, CompanyScope):
            final = _own_citations(final, ruling)
        return _prediction(final)

    async def aforward(self, question: str, **inputs: Any) -> dspy.Prediction:
        """The same as :meth:`forward`, off the event loop (generation is blocking)."""
        context = contextvars.copy_context()
        return await asyncio.to_thread(lambda: context.run(self.forward, question, **inputs))

    def first_search(self, question: str, search: SearchHandle) -> list[Passage]:
        """The passages the first search for ``question`` retrieves as :meth:`forward`
        would run it (decomposition and query writing as switched), with no curation,
        reasoning or checks after it, and one reading ([] when the question stops first)."""
        trace = Trace()
        question = clean_question(question)
        ruling = _holdings_ruling(question, None, search, None, trace)
        if isinstance(ruling, NotIndexed):
            return []
        scoped, company = _scoped(ruling, search, None, trace)
        sources = screened_sources(None, scoped, company, None, trace)
        route = self._route(question, trace)
        state = QuestionState.start(question, route, sources, self.evidence_chars, trace)
        found = self.gather.search(state)
        return [] if isinstance(found, FinalAnswer) else found.passages

    def _solve(self, sources: Sources, question: str, trace: Trace) -> FinalAnswer:
        """One reading: route → evidence → reason, verify, revise → anti-refusal → answer."""
        state = QuestionState.start(
            question, self._route(question, trace), sources, self.evidence_chars, trace
        )
        if sources.passages is None:
            halted = self.gather(state)
            if halted is not None:
                return halted
        if not len(state.evidence):
            return stopped(question, "refused", "no evidence: the search found no passages", trace)
        self.form(state)
        draft = self.reason(state, refine=self.gather.refine)
        return self._final_answer(state, draft)

    def _route(self, question: str, trace: Trace) -> RoutingDecision:
        route = self.form.guessed(question, self.router(question), trace)
        trace.record(
            Step(name="route", note=f"{route.path}, full loop: {route.full_loop}; {route.reason}")
        )
        return route

    def _final_answer(self, state: QuestionState, draft: Draft) -> FinalAnswer:
        """The chosen draft as the answer, a refusing one reviewed first; a draft whose
        reasoning failed without an answer ends refused or in error."""
        failed = draft.reasoning_fault()
        if failed is not None and not draft.answer.strip():
            outcome: Outcome = "refused" if failed.kind == "refusal" else "error"
            return stopped(state.question, outcome, failed.describe(), state.trace, draft.passages)
        if not is_refusal(draft.answer):
            return from_draft(state, draft, review=None)
        review = attempt(
            state.trace,
            "anti-refusal",
            lambda: self.anti_refusal(
                state.question,
                render(draft.passages),
                draft.answer or NOT_STATED,
                draft.computed(),
            ),
            note=lambda r: r.reason,
        )
        return from_draft(state, draft, review)

    def dump_state(self, json_mode: bool = True) -> dict[str, Any]:
        """The predictors' state under their artifact names (:data:`STATE_NAMES`)."""
        state = super().dump_state(json_mode=json_mode)
        return {_ARTIFACT_NAMES.get(path, path): value for path, value in state.items()}

    def load_state(self, state: dict[str, Any], *, allow_unsafe_lm_state: bool = False) -> None:
        """Loads state saved under the artifact names (:data:`STATE_NAMES`); a missing
        predictor raises ``KeyError`` with its artifact name."""
        renamed = {STATE_NAMES.get(name, name): value for name, value in state.items()}
        try:
            super().load_state(renamed, allow_unsafe_lm_state=allow_unsafe_lm_state)
        except KeyError as missing:
            raise KeyError(_ARTIFACT_NAMES.get(missing.args[0], missing.args[0])) from None


def _prediction(final: FinalAnswer) -> dspy.Prediction:
    return dspy.Prediction(answer=final.answer, final=final)


def _holdings_ruling(
    question: str,
    passages: list[Passage] | None,
    search: SearchHandle | None,
    company: str | None,
    trace: Trace,
) -> Ruling:
    """The holdings rule's ruling on ``question`` (:func:`~filingqa.checks.holdings.check_holdings`)
    over a search handle that tells what it holds, with a ``holdings`` step in the trace;
    None over given passages or a handle that cannot tell."""
    holdings = holdings_of(search) if passages is None else None
    if holdings is None:
        return None
    ruling = check_holdings(question, holdings, company)
    if ruling is None:
        note = "no company named that the rule can check"
    else:
        note = ruling.reason if isinstance(ruling, NotIndexed) else ruling.describe()
    trace.record(Step(name="holdings", note=note))
    return ruling


def _scoped(
    ruling: Ruling, search: SearchHandle | None, company: str | None, trace: Trace
) -> tuple[SearchHandle | None, str | None]:
    """The search kept to the ruling's companies and the company to search within; each
    time passages of other companies' filings are dropped, a ``company scope`` step lists
    them."""
    if not isinstance(ruling, CompanyScope) or search is None:
        return search, company

    def dropped(ids: list[str]) -> None:
        shown = ", ".join(ids[:5]) + (", …" if len(ids) > 5 else "")
        note = f"dropped {len(ids)} passage(s) of other companies' filings: {shown}"
        trace.record(Step(name="company scope", note=note))

    return ScopedSearch(search, ruling, dropped), ruling.company or company


def _own_citations(final: FinalAnswer, scope: CompanyScope) -> FinalAnswer:
    """``final`` without its citations of filings outside ``scope`` (recorded in a
    ``company check`` step); an answer that cited one is ``unverified``, not ``answered``."""
    foreign = list(dict.fromkeys(c.doc for c in final.citations if c.doc not in scope.doc_ids))
    if not foreign:
        return final
    docs = ", ".join(foreign)
    final.trace.record(Step(name="company check", note=f"dropped citations of {docs}"))
    return final.model_copy(
        update={
            "citations": [c for c in final.citations if c.doc in scope.doc_ids],
            "outcome": "unverified" if final.outcome == "answered" else final.outcome,
            "confidence": min(final.confidence, UNVERIFIED_CONFIDENCE),
            "reason": f"{final.reason}; cited another company's filing ({docs}): dropped",
        }
    )


def _invalid(question: object, problem: str, trace: Trace) -> FinalAnswer:
    """The error answer for a question that cannot be asked (empty, too long, not text)."""
    trace.record(Step(name="question", fault="invalid_input", note=problem))
    shown = question[:200] if isinstance(question, str) else ""
    return stopped(shown, "error", f"invalid question ({problem})", trace)


def _failed(question: str, failure: Exception, trace: Trace) -> FinalAnswer:
    """The error answer for a failure outside every guarded step."""
    fault = fault_of("program", failure, None)
    trace.record(Step(name="program", fault=fault.kind, note=fault.describe()))
    return stopped(question, "error", fault.describe(), trace)
