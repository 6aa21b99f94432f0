"""FinancialQA: the whole program, question → retrieval → reasoning → verification → answer.

ambiguity check ──► one run per reading (concurrently) ──► aggregate
      │ none
      ▼
route (PoT or CoT; single pass or the full loop)
      ▼
evidence: given passages (gold context) or Multi-HyDE search + curation
      ▼
reason (PoT in the sandbox / CoT) ──► verify ──► REJECT: refine, retrieve, again (≤ K)
      ▼
anti-refusal review ──► FinalAnswer (value, working, citations, confidence, trace)
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Literal

import dspy
from pydantic import BaseModel, Field

from filingqa.program.citations import Citation, cite
from filingqa.program.curation import Curator
from filingqa.program.evidence_buffer import EvidenceBuffer
from filingqa.program.final_answer import FinalAnswer, Outcome, ReadingAnswer
from filingqa.program.multi_hyde import MultiHydeRetriever
from filingqa.program.passages import render
from filingqa.program.pot import ProgramOfThought
from filingqa.program.refusal import AntiRefusal, is_refusal
from filingqa.program.router import RoutingDecision, route_by_rule
from filingqa.program.search_handle import SearchHandle
from filingqa.program.trace import Step, Trace
from filingqa.program.units import display_value
from filingqa.program.verification import CheckReport, Verdict, Verifier, automatic_checks
from filingqa.retrieval import Passage
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
_CURATED, _RETRIEVED, _COMPLEMENTARY, _REFINED, _CARRIED = 1.0, 0.5, 0.75, 0.6, 0.3


@dataclass(frozen=True)
class Sources:
    """Where a question's evidence comes from: given passages or a search handle, plus
    the company to search within and passages carried from earlier turns."""

    passages: list[Passage] | None
    search: SearchHandle | None
    company: str | None
    carried: list[Passage] | None


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

    def support(self) -> int:
        """Higher is better supported: accepted > clean checks > has an answer."""
        if self.verdict is not None and self.verdict.verdict == "ACCEPT":
            return 3
        if not self.problems and not is_refusal(self.answer):
            return 2
        return 1 if self.answer.strip() else 0


class FinancialQA(dspy.Module):
    """Answer questions about filings; see the module docstring for the flow.

    Call with ``question`` and either ``passages`` (gold context) or ``search`` (a
    :class:`~filingqa.program.search_handle.SearchHandle` over an index); ``company``
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
        self.detect = dspy.Predict(DetectAmbiguity)
        self.aggregate = dspy.Predict(AggregateInterpretations)
        self.decomposer = dspy.Predict(Decompose)
        self.retriever = MultiHydeRetriever(hypotheses=hypotheses, k=k)
        self.curator = Curator()
        self.pot = ProgramOfThought(samples=samples)
        self.cot = dspy.Predict(AnswerFromEvidence)
        self.verifier = Verifier()
        self.refine = dspy.Predict(RefineQuestions)
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
        if not question.strip():
            raise ValueError("the question is empty")
        if passages is None and search is None:
            raise ValueError("give the evidence: passages (gold context) or a search handle")
        trace = Trace()
        report = self._ambiguity(question, trace) if self.detect_ambiguity else None
        sources = Sources(passages=passages, search=search, company=company, carried=carried)
        if report is not None and report.interpretations:
            final = self._fan_out(question, report, sources, trace)
        else:
            final = self._solve(question, sources, trace)
        return dspy.Prediction(answer=final.answer, final=final)

    async def aforward(self, question: str, **inputs: Any) -> dspy.Prediction:
        """The same as :meth:`forward`, off the event loop (generation is blocking)."""
        context = contextvars.copy_context()
        return await asyncio.to_thread(context.run, self.forward, question, **inputs)

    def _ambiguity(self, question: str, trace: Trace) -> AmbiguityReport | None:
        with trace.step("ambiguity") as step:
            try:
                report = self.detect(question=question).report
            except Exception as problem:  # an unparseable report is treated as no ambiguity
                step.note = f"no usable report ({type(problem).__name__}); treated as none"
                return None
            step.note = f"{report.kind}: {len(report.interpretations)} readings"
            return report

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
        with trace.step("aggregate"):
            text = self._aggregate(question, answers)
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

    def _aggregate(self, question: str, answers: list[ReadingAnswer]) -> str:
        """The LM's combined reply if it keeps every reading's answer; else a plain join."""
        plain = "; ".join(f"By {_without_by(a.axis)}: {a.answer}" for a in answers)
        try:
            text = self.aggregate(
                question=question, readings=[f"{a.axis}: {a.answer}" for a in answers]
            ).answer
        except Exception:  # the plain join says the same thing
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
            company = self._gather(question, route, search, company, buffer, tried, trace)
        rounds = self.max_rounds if route.full_loop else 1
        best: Draft | None = None
        draft: Draft | None = None
        feedback = ""
        for round_ in range(rounds):
            with trace.step(f"reason {round_ + 1}"):
                draft = self._reason(route.path, question, buffer.passages(), draft, feedback)
            if route.full_loop:
                with trace.step(f"verify {round_ + 1}") as step:
                    draft.verdict = self._verify(question, draft)
                    step.note = f"{draft.verdict.verdict}: {'; '.join(draft.verdict.reasons)}"
            if best is None or draft.support() >= best.support():
                best = draft
            if not route.full_loop or best.support() == 3 or round_ + 1 == rounds:
                break
            assert draft.verdict is not None
            feedback = "; ".join(draft.verdict.reasons) or draft.verdict.missing
            if search is not None:
                with trace.step(f"refine {round_ + 1}"):
                    self._refine(question, draft.verdict, search, company, buffer, tried)
        assert best is not None
        return self._finish(question, route, best, trace)

    def _gather(
        self,
        question: str,
        route: RoutingDecision,
        search: SearchHandle,
        company: str | None,
        buffer: EvidenceBuffer,
        tried: list[str],
        trace: Trace,
    ) -> str | None:
        """Decomposition (full loop only), Multi-HyDE retrieval, curation, and one
        complementary search if something is missing."""
        sub_questions = self._decompose(question, trace) if route.full_loop else []
        with trace.step("retrieve") as step:
            found = self.retriever(question, search, company, sub_questions)
            step.note = f"{len(found.passages)} passages from {len(found.queries)} queries"
        tried += found.queries
        buffer.add(found.passages, _RETRIEVED)
        with trace.step("curate") as step:
            curated = self.curator(question, found.passages)
            step.note = f"kept {len(curated.kept)}; answerable: {curated.answerable}"
        buffer.add(curated.kept, _CURATED)
        if not curated.answerable and curated.complementary_query:
            with trace.step("complementary search"):
                query = curated.complementary_query
                more = self.retriever.search_all([query], search, found.company, found.period)
            tried.append(query)
            buffer.add(more, _COMPLEMENTARY)
        return found.company

    def _decompose(self, question: str, trace: Trace) -> list[str]:
        """The retrieval steps of the question's decomposition ([] if it cannot be parsed)."""
        with trace.step("decompose") as step:
            try:
                steps = self.decomposer(question=question).steps
            except Exception as problem:  # retrieval still runs on the question itself
                step.note = f"no usable decomposition ({type(problem).__name__})"
                return []
            step.note = "; ".join(f"{s.kind}/{s.formula}: {s.question}" for s in steps)
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
            return Draft(path="cot", answer=out.answer, passages=passages)
        if feedback and previous is not None and previous.program:
            out = self.pot.revise(question, evidence, previous.program, feedback)
        else:
            out = self.pot(question=question, evidence=evidence)
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
        evidence = render(draft.passages)
        answer, outcome, reason = draft.answer, *_outcome(route, draft)
        if is_refusal(draft.answer):
            with trace.step("anti-refusal") as step:
                computed = [draft.value] if isinstance(draft.value, int | float) else []
                review = self.anti_refusal(
                    question, evidence, draft.answer or "not stated", computed
                )
                step.note = review.reason
            answer = review.answer
            outcome, reason = (
                ("refused", review.reason) if review.refused else ("unverified", review.reason)
            )
        citations = _citations(draft)
        cited = [p for p in draft.passages if p.id in {c.passage_id for c in citations}]
        shown = (
            display_value(answer, question, draft.value, cited) if draft.path == "pot" else answer
        )
        return FinalAnswer(
            question=question,
            answer=shown,
            value=draft.value if outcome != "refused" else None,
            working=draft.program,
            path=draft.path,
            citations=citations,
            evidence=draft.passages,
            confidence=_confidence(outcome, draft),
            outcome=outcome,
            reason=reason,
            trace=trace,
        )


def _outcome(route: RoutingDecision, draft: Draft) -> tuple[Outcome, str]:
    if draft.verdict is not None and draft.verdict.verdict == "ACCEPT":
        return "answered", "verified: " + "; ".join(draft.verdict.reasons)
    if draft.verdict is not None:
        return "unverified", "no ACCEPT within the rounds: " + "; ".join(draft.verdict.reasons)
    if draft.problems:
        return "unverified", "single pass; checks: " + "; ".join(draft.problems)
    return "answered", f"single pass ({route.reason}); automatic checks passed"


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
