"""FinancialQA: the whole program, question → retrieval → reasoning → verification → answer.

ambiguity check (questions with a cue) ──► one run per reading (concurrently) ──► aggregate
      │ none
      ▼
route (PoT or CoT; single pass or the full loop)
      ▼
evidence: given passages (gold context) or Multi-HyDE search + curation
      ▼
reason (PoT in the sandbox / CoT) ──► verify ──► REJECT: refine, retrieve, again (≤ K)
      ▼
anti-refusal review ──► FinalAnswer (value, working, citations, confidence, trace)

Every LM-backed step runs under :func:`~filingqa.lm.faults.attempt`: a failure is a
:class:`~filingqa.lm.faults.Fault` on that step of the trace, and the question degrades
instead of raising — optional steps (ambiguity, decomposition, curation, refinement) are
skipped, HyDE retrieval falls back to the question alone, a context overflow shrinks the
evidence and retries, a failed verification leaves the answer ``unverified``, and a failed
reasoning step ends the question with outcome ``error`` and the fault as its reason. No
answer leaves with a number found neither in the evidence nor among the computed values.
The program writer is also told the formula convention the question's wording calls for
(:mod:`~filingqa.checks.formulas`); bare PoT is not.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from typing import Any, Literal

import dspy
from pydantic import BaseModel, Field

from filingqa.checks.ambiguity_cues import ambiguity_cue
from filingqa.checks.answer_checks import CheckReport, automatic_checks
from filingqa.checks.citations import Citation, cite
from filingqa.checks.formulas import formula_note
from filingqa.checks.inputs import clean_question, question_problem
from filingqa.checks.refusal import is_refusal, unsupported_numbers
from filingqa.checks.screening import ScreenedSearch, screen
from filingqa.checks.units import display_value
from filingqa.lm.faults import Fault, attempt, fault_of
from filingqa.lm.trace import Step, Trace
from filingqa.program.anti_refusal import AntiRefusal
from filingqa.program.curation import Curator
from filingqa.program.final_answer import FinalAnswer, Outcome, ReadingAnswer
from filingqa.program.multi_hyde import MultiHydeRetriever, Retrieved
from filingqa.program.pot import ProgramOfThought
from filingqa.program.verification import Verdict, Verifier
from filingqa.retrieval import Passage
from filingqa.retrieval.evidence import render, within_budget
from filingqa.retrieval.evidence_buffer import EvidenceBuffer
from filingqa.retrieval.handle import SearchHandle
from filingqa.router.rule import RoutingDecision, route_by_rule
from filingqa.sandbox.outcome import Answer
from filingqa.signatures.ambiguity import (
    AggregateInterpretations,
    AmbiguityReport,
    DetectAmbiguity,
)
from filingqa.signatures.cot import AnswerFromEvidence
from filingqa.signatures.decompose import Decompose
from filingqa.signatures.verify import RefineQuestions

DEFAULT_ROUNDS = 3
EVIDENCE_CHARS = 8000  # about 2,000 tokens: leaves room in the local model's context
SHRINKS = 3  # a context overflow halves the evidence and retries, at most this many times
# Cap for the steps whose output is a short structure (ambiguity report: ~100 tokens;
# decomposition, refinement queries), so a looping generation stops early.
SHORT_OUTPUT_TOKENS = 512
NOT_STATED = "not stated in the evidence"
WITHHELD = "no answer: its figures are not in the evidence"
_CURATED, _RETRIEVED, _COMPLEMENTARY, _REFINED, _CARRIED = 1.0, 0.5, 0.75, 0.6, 0.3
_REPEAT_NOTE = "not asked: the revision repeats the draft verified before, over the same evidence"


@dataclass(frozen=True)
class Sources:
    """Where a question's evidence comes from: given passages or a search handle, plus
    the company to search within and passages carried from earlier turns."""

    passages: list[Passage] | None
    search: SearchHandle | None
    company: str | None
    carried: list[Passage] | None


@dataclass(frozen=True)
class Gathered:
    """What evidence gathering ended with: the company searched, or why it stopped (a
    refusal, such as a company the index does not hold, or a fault)."""

    company: str | None
    refusal: str = ""
    fault: Fault | None = None


class Draft(BaseModel):
    """One answer attempt with what supports it."""

    path: Literal["pot", "cot"]
    answer: str
    value: Answer | None = None
    program: str = ""
    passages: list[Passage]
    checks: CheckReport | None = None
    verdict: Verdict | None = None
    problems: list[str] = Field(default_factory=list)
    faults: list[Fault] = Field(default_factory=list)

    def support(self) -> int:
        """Higher is better supported: accepted > clean checks > has an answer.

        On a tie the loop keeps the earlier draft: the small verifier often rejects correct
        programs (on TAT-QA it rejected -12.6 for "the change in Other", which was right),
        and a revision it rejected too is no better supported than what it revised.
        """
        if self.verdict is not None and self.verdict.verdict == "ACCEPT":
            return 3
        if not self.problems and not self.faults and not is_refusal(self.answer):
            return 2
        return 1 if self.answer.strip() else 0


class FinancialQA(dspy.Module):
    """Answer questions about filings; see the module docstring for the flow.

    Call with ``question`` and either ``passages`` (gold context) or ``search`` (a
    :class:`~filingqa.retrieval.handle.SearchHandle` over an index); ``company``
    narrows the search; ``carried`` passages (earlier turns of a conversation) join the
    evidence buffer at low priority. Returns a ``dspy.Prediction`` with ``answer`` (text)
    and ``final`` (:class:`~filingqa.program.final_answer.FinalAnswer`).
    """

    def __init__(
        self,
        *,
        max_rounds: int = DEFAULT_ROUNDS,
        hypotheses: int = 3,
        k: int = 8,
        samples: int = 1,
        evidence_chars: int = EVIDENCE_CHARS,
        detect_ambiguity: bool = True,
        router: Callable[[str], RoutingDecision] = route_by_rule,
    ) -> None:
        super().__init__()
        if max_rounds < 1:
            raise ValueError("max_rounds must be at least 1")
        self.detect = dspy.Predict(DetectAmbiguity, max_tokens=SHORT_OUTPUT_TOKENS)
        self.aggregate = dspy.Predict(AggregateInterpretations)
        self.decomposer = dspy.Predict(Decompose, max_tokens=SHORT_OUTPUT_TOKENS)
        self.retriever = MultiHydeRetriever(hypotheses=hypotheses, k=k)
        self.curator = Curator()
        self.pot = ProgramOfThought(samples=samples, check_cells=True)
        self.cot = dspy.Predict(AnswerFromEvidence)
        self.verifier = Verifier()
        self.refine = dspy.Predict(RefineQuestions, max_tokens=SHORT_OUTPUT_TOKENS)
        self.anti_refusal = AntiRefusal()
        self.max_rounds = max_rounds
        self.evidence_chars = evidence_chars
        self.detect_ambiguity = detect_ambiguity
        self.router = router

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
            trace.steps.append(Step(name="question", fault="invalid_input", note=problem))
            shown = question[:200] if isinstance(question, str) else ""
            final = _stopped(shown, "error", f"invalid question ({problem})", trace)
            return dspy.Prediction(answer=final.answer, final=final)
        question = clean_question(question)
        sources = _screened_sources(passages, search, company, carried, trace)
        try:
            report = self._ambiguity(question, trace) if self.detect_ambiguity else None
            if report is not None and report.interpretations:
                final = self._fan_out(question, report, sources, trace)
            else:
                final = self._solve(question, sources, trace)
        except Exception as failure:  # a failure outside every guarded step: still marked
            fault = fault_of("program", failure, None)
            trace.steps.append(Step(name="program", fault=fault.kind, note=fault.describe()))
            final = _stopped(question, "error", fault.describe(), trace)
        return dspy.Prediction(answer=final.answer, final=final)

    async def aforward(self, question: str, **inputs: Any) -> dspy.Prediction:
        """The same as :meth:`forward`, off the event loop (generation is blocking)."""
        context = contextvars.copy_context()
        return await asyncio.to_thread(context.run, self.forward, question, **inputs)

    def _ambiguity(self, question: str, trace: Trace) -> AmbiguityReport | None:
        """The ambiguity report, asked only of a question with an ambiguity cue; a failed
        check is treated as no ambiguity."""
        cue = ambiguity_cue(question)
        if cue is None:
            trace.steps.append(Step(name="ambiguity", note="not asked: no qualifier or term"))
            return None
        report = attempt(
            trace,
            "ambiguity",
            lambda: self.detect(question=question).report,
            note=lambda r: f"{r.kind}: {len(r.interpretations)} readings (cue: {cue})",
        )
        return None if isinstance(report, Fault) else report

    def _fan_out(
        self,
        question: str,
        report: AmbiguityReport,
        sources: Sources,
        trace: Trace,
    ) -> FinalAnswer:
        """One sub-run per reading, concurrently; then one reply naming each reading."""
        readings = report.interpretations

        def run(reading_question: str) -> FinalAnswer:
            return self._solve(reading_question, sources, Trace())

        with ThreadPoolExecutor(max_workers=len(readings)) as pool:
            futures = [
                pool.submit(contextvars.copy_context().run, run, r.question) for r in readings
            ]
            finals = [future.result() for future in futures]
        for final in finals:
            trace.steps.extend(final.trace.steps)
        answers = [
            ReadingAnswer(axis=r.axis, question=r.question, answer=f.answer)
            for r, f in zip(readings, finals, strict=True)
        ]
        text = self._aggregate(question, answers, trace)
        answered = [f for f in finals if f.outcome in ("answered", "unverified")]
        return FinalAnswer(
            question=question,
            answer=text,
            working="\n\n".join(
                f"# {a.axis}\n{f.working}" for a, f in zip(answers, finals, strict=True)
            ),
            path=finals[0].path,
            citations=_unique_citations(c for f in finals for c in f.citations),
            evidence=_unique_passages(p for f in finals for p in f.evidence),
            interpretations=answers,
            confidence=min((f.confidence for f in answered), default=0.0),
            outcome="answered" if answered else "refused",
            reason=f"{report.kind} ambiguity: {report.reason}".strip(": "),
            trace=trace,
        )

    def _aggregate(self, question: str, answers: list[ReadingAnswer], trace: Trace) -> str:
        """The LM's combined reply if it keeps every reading's answer and adds no number;
        else (or when it fails) a plain join."""
        plain = "; ".join(f"By {_without_by(a.axis)}: {a.answer}" for a in answers)
        readings = [f"{a.axis}: {a.answer}" for a in answers]
        text = attempt(
            trace,
            "aggregate",
            lambda: self.aggregate(question=question, readings=readings).answer,
        )
        if isinstance(text, Fault) or unsupported_numbers(text, "\n".join([question, plain])):
            return plain
        return text if all(a.answer in text for a in answers) else plain

    def _solve(self, question: str, sources: Sources, trace: Trace) -> FinalAnswer:
        route = self.router(question)
        trace.steps.append(
            Step(name="route", note=f"{route.path}, full loop: {route.full_loop}; {route.reason}")
        )
        buffer = EvidenceBuffer(self.evidence_chars)
        tried: list[str] = []
        buffer.add(sources.carried or [], _CARRIED)
        search, company = sources.search, sources.company
        if sources.passages is not None:
            buffer.add(sources.passages, _CURATED)
        else:
            assert search is not None
            gathered = self._gather(question, route, search, company, buffer, tried, trace)
            if gathered.fault is not None:
                return _stopped(question, "error", gathered.fault.describe(), trace)
            if gathered.refusal:
                return _stopped(question, "refused", gathered.refusal, trace)
            company = gathered.company
        if not len(buffer):
            return _stopped(question, "refused", "no evidence: the search found no passages", trace)
        rounds = self.max_rounds if route.full_loop else 1
        best: Draft | None = None
        draft: Draft | None = None
        feedback = ""
        for round_ in range(rounds):
            previous = draft
            draft = self._reason_step(
                round_ + 1, route.path, question, buffer, draft, feedback, trace
            )
            if previous is not None and _repeats(previous, draft):
                trace.steps.append(Step(name=f"verify {round_ + 1}", note=_REPEAT_NOTE))
                break  # its verification, and every later round, would resend the same requests
            if route.full_loop and not draft.faults:
                verdict = attempt(
                    trace,
                    f"verify {round_ + 1}",
                    partial(self._verify, question, draft),
                    note=lambda v: f"{v.verdict}: {'; '.join(v.reasons)}",
                )
                if isinstance(verdict, Fault):
                    draft.faults.append(verdict)
                else:
                    draft.verdict = verdict
            if best is None or draft.support() > best.support():
                best = draft  # ties keep the earlier draft: a rejected revision is no better
            if draft.faults or not route.full_loop or best.support() == 3 or round_ + 1 == rounds:
                break
            assert draft.verdict is not None
            feedback = "; ".join(draft.verdict.reasons) or draft.verdict.missing
            if search is not None:
                attempt(
                    trace,
                    f"refine {round_ + 1}",
                    partial(self._refine, question, draft.verdict, search, company, buffer, tried),
                )
        assert best is not None
        return self._finish(question, route, best, trace)

    def _reason_step(
        self,
        number: int,
        path: Literal["pot", "cot"],
        question: str,
        buffer: EvidenceBuffer,
        previous: Draft | None,
        feedback: str,
        trace: Trace,
    ) -> Draft:
        """One reasoning round over the buffer's evidence; a context overflow halves the
        evidence and retries (at most ``SHRINKS`` times), any other fault ends the round
        with an empty draft carrying the fault."""
        budget = self.evidence_chars
        for shrink in range(SHRINKS + 1):
            passages = within_budget(buffer.passages(), question, budget)
            draft = attempt(
                trace,
                f"reason {number}",
                partial(self._reason, path, question, passages, previous, feedback),
                typed=path == "cot",
            )
            if not isinstance(draft, Fault):
                return draft
            if draft.kind != "context_overflow" or shrink == SHRINKS:
                return Draft(path=path, answer="", passages=passages, faults=[draft])
            budget //= 2
            trace.steps[-1].note += f"; retrying with the evidence cut to {budget:,} characters"
        raise AssertionError("unreachable")

    def _gather(
        self,
        question: str,
        route: RoutingDecision,
        search: SearchHandle,
        company: str | None,
        buffer: EvidenceBuffer,
        tried: list[str],
        trace: Trace,
    ) -> Gathered:
        """Decomposition (full loop only), Multi-HyDE retrieval (the question alone if that
        fails), curation, and one complementary search if something is missing.

        Stops with a refusal when the handle says it holds no filings of the company.
        """
        if company and not _covers(search, company):
            return Gathered(company, refusal=_not_indexed(company))
        sub_questions = self._decompose(question, trace) if route.full_loop else []
        found = attempt(
            trace,
            "retrieve",
            partial(self.retriever, question, search, company, sub_questions),
            note=lambda f: f"{len(f.passages)} passages from {len(f.queries)} queries",
        )
        if isinstance(found, Fault):
            found = self._plain_search(question, sub_questions, search, company, trace)
            if isinstance(found, Fault):
                return Gathered(company, fault=found)
        if found.company and not _covers(search, found.company):
            return Gathered(found.company, refusal=_not_indexed(found.company))
        tried += found.queries
        buffer.add(found.passages, _RETRIEVED)
        curated = attempt(
            trace,
            "curate",
            partial(self.curator, question, found.passages),
            note=lambda c: f"kept {len(c.kept)}; answerable: {c.answerable}",
        )
        if isinstance(curated, Fault):  # the retrieved passages stay, uncurated
            return Gathered(found.company)
        buffer.add(curated.kept, _CURATED)
        if not curated.answerable and curated.complementary_query:
            query = curated.complementary_query
            more = attempt(
                trace,
                "complementary search",
                partial(self.retriever.search_all, [query], search, found.company, found.period),
                typed=False,
            )
            if not isinstance(more, Fault):
                tried.append(query)
                buffer.add(more, _COMPLEMENTARY)
        return Gathered(found.company)

    def _plain_search(
        self,
        question: str,
        sub_questions: list[str],
        search: SearchHandle,
        company: str | None,
        trace: Trace,
    ) -> Retrieved | Fault:
        """Search with the question (and sub-questions) as written: no LM involved."""
        queries = [question, *sub_questions]
        passages = attempt(
            trace,
            "retrieve (question only)",
            partial(self.retriever.search_all, queries, search, company, None),
            typed=False,
            note=lambda found: f"{len(found)} passages",
        )
        if isinstance(passages, Fault):
            return passages
        return Retrieved(passages=passages, queries=queries, company=company, period=None)

    def _decompose(self, question: str, trace: Trace) -> list[str]:
        """The retrieval steps of the question's decomposition ([] if it fails)."""
        steps = attempt(
            trace,
            "decompose",
            lambda: self.decomposer(question=question).steps,
            note=lambda found: "; ".join(f"{s.kind}/{s.formula}: {s.question}" for s in found),
        )
        if isinstance(steps, Fault):  # retrieval still runs on the question itself
            return []
        return [s.question for s in steps if s.kind == "retrieval"]

    def _reason(
        self,
        path: Literal["pot", "cot"],
        question: str,
        passages: list[Passage],
        previous: Draft | None,
        feedback: str,
    ) -> Draft:
        evidence = render(passages)
        if path == "cot":
            asked = (
                f"{question}\n(An earlier answer was rejected: {feedback})"
                if feedback
                else question
            )
            out = self.cot(question=asked, evidence=evidence)
            checks = automatic_checks("", None, passages, answer=out.answer)
            return Draft(
                path="cot",
                answer=out.answer,
                passages=passages,
                checks=checks,
                problems=checks.problems,
            )
        formula = formula_note(question, evidence)
        if feedback and previous is not None and previous.program:
            out = self.pot.revise(question, evidence, previous.program, feedback, formula)
        else:
            out = self.pot(question=question, evidence=evidence, formula=formula)
        checks = automatic_checks(out.program, out.value, passages)
        problems = [] if out.execution.ok else [out.execution.feedback()]
        return Draft(
            path="pot",
            answer=out.answer,
            value=out.value,
            program=out.program,
            passages=passages,
            checks=checks,
            problems=_unique([*problems, *checks.problems]),
        )

    def _verify(self, question: str, draft: Draft) -> Verdict:
        return self.verifier(
            question=question,
            evidence=render(draft.passages),
            answer=draft.answer,
            program=draft.program,
            value=draft.value,
            passages=draft.passages,
            checks=draft.checks,
        )

    def _refine(
        self,
        question: str,
        verdict: Verdict,
        search: SearchHandle,
        company: str | None,
        buffer: EvidenceBuffer,
        tried: list[str],
    ) -> None:
        missing = verdict.missing or "; ".join(verdict.reasons)
        queries = self.refine(question=question, missing=missing, tried=tried).queries
        fresh = [q for q in queries if q.strip() and q not in tried][:3]
        if fresh:
            buffer.add(self.retriever.search_all(fresh, search, company, None), _REFINED)
            tried += fresh

    def _finish(
        self, question: str, route: RoutingDecision, draft: Draft, trace: Trace
    ) -> FinalAnswer:
        failed = next((f for f in draft.faults if f.step.startswith("reason")), None)
        if failed is not None and not draft.answer.strip():
            outcome: Outcome = "refused" if failed.kind == "refusal" else "error"
            return _stopped(question, outcome, failed.describe(), trace, draft.passages)
        evidence = render(draft.passages)
        computed = _computed(draft.value)
        answer, outcome, reason = draft.answer, *_outcome(route, draft)
        if is_refusal(draft.answer):
            review = attempt(
                trace,
                "anti-refusal",
                partial(
                    self.anti_refusal, question, evidence, draft.answer or NOT_STATED, computed
                ),
                note=lambda r: r.reason,
            )
            if isinstance(review, Fault):
                answer = draft.answer.strip() or NOT_STATED
                outcome, reason = "refused", f"the refusal stands: {review.describe()}"
            else:
                answer = review.answer
                outcome, reason = (
                    ("refused", review.reason) if review.refused else ("unverified", review.reason)
                )
        citations = _citations(draft)
        cited = [p for p in draft.passages if p.id in {c.passage_id for c in citations}]
        shown = (
            display_value(answer, question, draft.value, cited) if draft.path == "pot" else answer
        )
        invented = unsupported_numbers(shown, f"{question}\n{evidence}", computed)
        if invented:
            listed = ", ".join(f"{n:g}" for n in invented)
            trace.steps.append(
                Step(name="number check", fault="unsupported_number", note=f"withheld: {listed}")
            )
            shown = NOT_STATED if outcome == "refused" else WITHHELD
            outcome, reason = (
                ("refused" if outcome == "refused" else "unverified"),
                f"{reason}; answer withheld: {listed} not in the evidence nor computed",
            )
        return FinalAnswer(
            question=question,
            answer=shown,
            value=draft.value if outcome != "refused" and not invented else None,
            working=draft.program,
            path=draft.path,
            citations=citations,
            evidence=draft.passages,
            confidence=_confidence(outcome, draft),
            outcome=outcome,
            reason=reason,
            trace=trace,
        )


def _repeats(previous: Draft, draft: Draft) -> bool:
    """Whether a revision gave back the answer and program of the draft it revised, over the
    same evidence: verifying it would repeat the earlier verdict, and revising it again
    would repeat the same revision request."""
    return (
        draft.answer == previous.answer
        and draft.program == previous.program
        and [p.id for p in draft.passages] == [p.id for p in previous.passages]
    )


def _outcome(route: RoutingDecision, draft: Draft) -> tuple[Outcome, str]:
    if draft.verdict is not None and draft.verdict.verdict == "ACCEPT":
        return "answered", "verified: " + "; ".join(draft.verdict.reasons)
    if draft.verdict is not None:
        return "unverified", "no ACCEPT within the rounds: " + "; ".join(draft.verdict.reasons)
    if draft.faults:
        return "unverified", "not verified: " + "; ".join(f.describe() for f in draft.faults)
    if draft.problems:
        return "unverified", "single pass; checks: " + "; ".join(draft.problems)
    return "answered", f"single pass ({route.reason}); automatic checks passed"


def _stopped(
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


def _screened_sources(
    passages: list[Passage] | None,
    search: SearchHandle | None,
    company: str | None,
    carried: list[Passage] | None,
    trace: Trace,
) -> Sources:
    """The question's sources with every passage screened (:mod:`~filingqa.checks.screening`);
    each time lines are withheld, a ``screen`` step in the trace lists them."""

    def withheld(lines: list[str]) -> None:
        shown = "; ".join(repr(line[:120]) for line in lines)
        trace.steps.append(Step(name="screen", note=f"withheld {len(lines)} line(s): {shown}"))

    def screened(given: list[Passage] | None) -> list[Passage] | None:
        if given is None:
            return None
        screening = screen(given)
        if screening.withheld:
            withheld(screening.withheld)
        return screening.passages

    return Sources(
        passages=screened(passages),
        search=ScreenedSearch(search, withheld) if search is not None else None,
        company=company,
        carried=screened(carried),
    )


def _covers(search: SearchHandle, company: str) -> bool:
    """Whether the handle holds filings of ``company``; handles that cannot tell (no
    ``covers`` method) are assumed to."""
    covers = getattr(search, "covers", None)
    return not callable(covers) or bool(covers(company))


def _not_indexed(company: str) -> str:
    return f"the index holds no filings of {company}; not answering from another company's"


def _computed(value: Answer | None) -> list[float]:
    """The numbers an executed program produced (a dict's numeric items included)."""
    items = value.values() if isinstance(value, dict) else [value]
    return [float(v) for v in items if isinstance(v, int | float) and not isinstance(v, bool)]


def _confidence(outcome: Outcome, draft: Draft) -> float:
    if outcome == "answered":
        return 0.9 if draft.verdict is not None else 0.7
    return 0.4 if outcome == "unverified" else 0.0


def _citations(draft: Draft) -> list[Citation]:
    if draft.path == "pot" and draft.program:
        return cite(draft.program, draft.passages)
    return [
        Citation(doc=p.doc_id, page=p.page, passage_id=p.id, kind=p.kind)
        for p in draft.passages[:3]
    ]


def _unique_citations(citations) -> list[Citation]:
    seen: dict[str, Citation] = {}
    for citation in citations:
        seen.setdefault(citation.passage_id, citation)
    return list(seen.values())


def _unique_passages(passages) -> list[Passage]:
    seen: dict[str, Passage] = {}
    for passage in passages:
        seen.setdefault(passage.id, passage)
    return list(seen.values())


def _without_by(axis: str) -> str:
    return axis[3:] if axis.lower().startswith("by ") else axis


def _unique(items: list[str]) -> list[str]:
    return list(dict.fromkeys(items))
