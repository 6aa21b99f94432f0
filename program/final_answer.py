"""What the program returns for a question, and how it is made: from the chosen draft
(:func:`from_draft`), for a question that ends without one (:func:`stopped`), or for one
about filings the index lacks (:func:`not_indexed`)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from filingqa.checks.citations import Citation, citation_of, cite, unique_citations
from filingqa.checks.degenerate import degenerate
from filingqa.checks.holdings import NotIndexed
from filingqa.checks.program_result import comparison, decision_of
from filingqa.checks.units import display_value, quoted_figure, scale_slips
from filingqa.checks.unsupported_numbers import unsupported_numbers
from filingqa.evidence.render import render
from filingqa.lm.faults import Fault
from filingqa.lm.trace import Step, Trace
from filingqa.program.anti_refusal import Review
from filingqa.program.draft import Draft
from filingqa.program.extraction import LIST_SEPARATOR, Comparison, decided_by
from filingqa.program.question_state import QuestionState
from filingqa.records import Passage
from filingqa.router.rule import ReasoningPath, RoutingDecision
from filingqa.sandbox.outcome import Answer

Outcome = Literal["answered", "unverified", "refused", "not_indexed", "error"]
NOT_STATED = "not stated in the evidence"
WITHHELD = "no answer: its figures are not in the evidence"
UNUSABLE = "no answer: the reply repeated the request or itself"
MISSCALED = "no answer: its figures are at another scale than the evidence's"


class ReadingAnswer(BaseModel):
    """The answer under one reading of an ambiguous question."""

    axis: str
    question: str
    answer: str


class FinalAnswer(BaseModel):
    """An answer with its value, working, citations, confidence and trace.

    ``outcome`` is ``answered`` when the verifier accepted (or a single pass ran clean),
    ``unverified`` when the loop ran out before an ACCEPT (the best-supported draft is
    returned), ``refused`` when the evidence does not answer the question, ``not_indexed``
    when no indexed filing reports the company (and period) asked about (the answer names
    what the index holds instead), ``error`` when a step failed; ``reason`` says why.
    """

    question: str
    answer: str
    value: Answer | None = None
    unit: str | None = None
    working: str = ""
    path: ReasoningPath = "pot"
    citations: list[Citation] = Field(default_factory=list)
    evidence: list[Passage] = Field(default_factory=list, description="what it was answered from")
    interpretations: list[ReadingAnswer] = Field(default_factory=list)
    confidence: float = 0.0
    outcome: Outcome = "answered"
    reason: str = ""
    trace: Trace = Field(default_factory=Trace)

    @property
    def refused(self) -> bool:
        return self.outcome == "refused"


def stopped(
    question: str,
    outcome: Outcome,
    reason: str,
    trace: Trace,
    evidence: list[Passage] | None = None,
) -> FinalAnswer:
    """A question that ends without a draft answer: refused, or an error with its reason
    (the answer names only the failure's step and kind: a reason may quote numbers)."""
    return FinalAnswer(
        question=question,
        answer=NOT_STATED if outcome == "refused" else f"no answer ({reason.split(' (')[0]})",
        evidence=evidence or [],
        confidence=0.0,
        outcome=outcome,
        reason=reason,
        trace=trace,
    )


def not_indexed(question: str, ruling: NotIndexed, trace: Trace) -> FinalAnswer:
    """A question about filings the index lacks: the answer says what it holds instead."""
    return FinalAnswer(
        question=question,
        answer=ruling.answer,
        confidence=0.0,
        outcome="not_indexed",
        reason=ruling.reason,
        trace=trace,
    )


def from_draft(state: QuestionState, draft: Draft, review: Review | Fault | None) -> FinalAnswer:
    """The chosen draft as the answer: the anti-refusal ``review`` of a refusing draft
    decides its text, a value is shown with its unit or scale, citations are traced from the
    program, and an answer that is no answer (:data:`UNUSABLE`), or quotes a number found
    neither in the evidence nor among the computed values, or states an evidence figure at
    another scale, is withheld."""
    answer, (outcome, reason) = draft.answer, _outcome(state.route, draft)
    if isinstance(review, Fault):
        answer = draft.answer.strip() or NOT_STATED
        outcome, reason = "refused", f"the refusal stands: {review.describe()}"
    elif review is not None:
        answer, outcome, reason = review.answer, _reviewed(review), review.reason
    citations = _citations(draft)
    cited_ids = {c.passage_id for c in citations}
    cited = [p for p in draft.passages if citation_of(p).passage_id in cited_ids]
    shown = _shown(state, draft, answer, cited)
    unusable = degenerate(shown) if isinstance(review, Review) else draft.unusable
    withheld: tuple[str, str] | None = (UNUSABLE, f"no answer: {unusable}")
    if not unusable:
        shown, withheld = _number_checked(state, draft, shown)
    if withheld is not None:
        text, why = withheld
        shown = NOT_STATED if outcome == "refused" else text
        outcome = "refused" if outcome == "refused" else "unverified"
        reason = f"{reason}; {why}"
    return FinalAnswer(
        question=state.question,
        answer=shown,
        value=draft.value if outcome != "refused" and withheld is None else None,
        working=draft.program,
        path=draft.path,
        citations=citations,
        evidence=draft.passages,
        confidence=_confidence(outcome, draft),
        outcome=outcome,
        reason=reason,
        trace=state.trace,
    )


def _number_checked(
    state: QuestionState, draft: Draft, shown: str
) -> tuple[str, tuple[str, str] | None]:
    """``shown`` after the number checks, and what is said instead and why when they
    withhold it: it quotes a number found neither in the evidence nor among the computed
    values (a decided yes/no whose program is traced is then stated from its computation,
    :func:`_from_computation`), or an evidence figure at another scale."""
    evidence = f"{state.question}\n{render(draft.passages)}"
    invented = unsupported_numbers(shown, evidence, draft.computed())
    if invented:
        listed = ", ".join(f"{n:g}" for n in invented)
        stated = _from_computation(draft)
        if stated is not None:
            note = f"withheld: {listed}; stated from the computation: {stated}"
            state.trace.record(Step(name="number check", note=note))
            return stated, None
        state.trace.record(
            Step(name="number check", fault="unsupported_number", note=f"withheld: {listed}")
        )
        return shown, (WITHHELD, f"answer withheld: {listed} not in the evidence nor computed")
    slips = scale_slips(shown, draft.passages)
    if slips:
        listed = "; ".join(slips)
        state.trace.record(
            Step(name="scale check", fault="unsupported_number", note=f"withheld: {listed}")
        )
        return shown, (MISSCALED, f"answer withheld: {listed}, at another scale than the evidence")
    return shown, None


def _from_computation(draft: Draft) -> str | None:
    """The yes or no of a decided draft stated from its computation alone ("Yes. Computed:
    margin > earlier_margin is True."), when its program is traced to the evidence; None
    otherwise."""
    holds = decision_of(draft.value)
    traced = draft.checks is not None and not draft.checks.problems
    if draft.path != "decide" or holds is None or not draft.program or not traced:
        return None
    return decided_by(Comparison(holds, comparison(draft.program) or ""), "", "")


def _shown(state: QuestionState, draft: Draft, answer: str, cited: list[Passage]) -> str:
    """The answer as shown: a computed comparison as yes or no, a computed value rounded
    with its unit or scale, a quoted bare figure (or list item) with the scale its passage
    states, words as they are."""
    if draft.path == "pot" and state.route.asks == "value":
        holds = decision_of(draft.value)
        if holds is not None:
            return "Yes" if holds else "No"
        return display_value(answer, state.question, draft.value, cited, draft.program)
    if draft.path == "quote":
        return _scaled_quotes(answer, draft, state.question)
    return answer


def _scaled_quotes(answer: str, draft: Draft, question: str) -> str:
    """A quoted answer (one quote, or list items) whose bare figures take the scale their
    own passages state, in the unit ``question`` asks when it asks one; a count, or an
    answer no longer the quotes, unchanged."""
    passages = {p.id: p for p in draft.passages}
    found = [(q.quote.strip(), q.location) for q in draft.quotes if q.location is not None]
    if not found or LIST_SEPARATOR.join(quote for quote, _ in found) != answer:
        return answer
    return LIST_SEPARATOR.join(
        quoted_figure(
            quote, [passages[at.passage_id]] if at.passage_id in passages else [], question
        )
        for quote, at in found
    )


def _outcome(route: RoutingDecision, draft: Draft) -> tuple[Outcome, str]:
    verdict = draft.verdict
    if verdict is not None and verdict.verdict == "ACCEPT":
        return "answered", "verified: " + "; ".join(verdict.reasons)
    if verdict is not None:
        return "unverified", "no ACCEPT within the rounds: " + "; ".join(verdict.reasons)
    if draft.faults:
        return "unverified", "not verified: " + "; ".join(f.describe() for f in draft.faults)
    if draft.problems:
        return "unverified", "single pass; checks: " + "; ".join(draft.problems)
    return "answered", f"single pass ({route.reason}); automatic checks passed"


def _reviewed(review: Review) -> Outcome:
    return "refused" if review.refused else "unverified"


def _confidence(outcome: Outcome, draft: Draft) -> float:
    if outcome == "answered":
        return 0.9 if draft.verdict is not None else 0.7
    return 0.4 if outcome == "unverified" else 0.0


def _citations(draft: Draft) -> list[Citation]:
    if draft.quotes:
        located = [q.location for q in draft.quotes if q.location is not None]
        ids = list(dict.fromkeys(location.passage_id for location in located))
        by_id = {p.id: p for p in draft.passages}
        return unique_citations(citation_of(by_id[i]) for i in ids if i in by_id)
    if draft.path in ("pot", "decide") and draft.program:
        return cite(draft.program, draft.passages)
    return unique_citations(citation_of(p) for p in draft.passages[:3])
