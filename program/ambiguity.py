"""Ambiguity: a question with several reasonable readings is answered once per reading, and
the answers are combined into one reply that names each reading.

ambiguity check (questions with a cue) ──► one run per reading (concurrently) ──► aggregate
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor

import dspy

from filingqa.checks.ambiguity_cues import ambiguity_cue
from filingqa.checks.citations import unique_citations
from filingqa.checks.unsupported_numbers import unsupported_numbers
from filingqa.lm.faults import Fault, attempt
from filingqa.lm.trace import Step, Trace
from filingqa.program.final_answer import FinalAnswer, ReadingAnswer
from filingqa.records import Passage
from filingqa.signatures.ambiguity import (
    AggregateInterpretations,
    AmbiguityReport,
    DetectAmbiguity,
)

REPORT_TOKENS = 512  # an ambiguity report is short: a looping generation stops here

Solve = Callable[[str, Trace], FinalAnswer]
"""Answers one reading of a question, recording its steps on the given trace."""


class AmbiguityCheck(dspy.Module):
    """Calling it returns the question's ambiguity report, asked only of a question with an
    ambiguity cue (:mod:`~filingqa.checks.ambiguity_cues`); None when there is no cue or
    the check fails. :meth:`fan_out` answers each reading of an ambiguous question."""

    def __init__(self) -> None:
        super().__init__()
        self.detect = dspy.Predict(DetectAmbiguity, max_tokens=REPORT_TOKENS)
        self.aggregate = dspy.Predict(AggregateInterpretations)

    def forward(self, question: str, trace: Trace) -> AmbiguityReport | None:
        cue = ambiguity_cue(question)
        if cue is None:
            trace.record(Step(name="ambiguity", note="not asked: no qualifier or term"))
            return None
        report = attempt(
            trace,
            "ambiguity",
            lambda: self.detect(question=question).report,
            note=lambda r: f"{r.kind}: {len(r.interpretations)} readings (cue: {cue})",
        )
        return None if isinstance(report, Fault) else report

    def fan_out(
        self, question: str, report: AmbiguityReport, solve: Solve, trace: Trace
    ) -> FinalAnswer:
        """One run per reading, concurrently, each on its own trace (appended to ``trace``
        in reading order); then one reply naming each reading."""
        readings = report.interpretations
        with ThreadPoolExecutor(max_workers=len(readings)) as pool:
            futures = [
                pool.submit(contextvars.copy_context().run, solve, r.question, Trace())
                for r in readings
            ]
            finals = [future.result() for future in futures]
        for final in finals:
            trace.steps.extend(final.trace.steps)
        answers = [
            ReadingAnswer(axis=r.axis, question=r.question, answer=f.answer)
            for r, f in zip(readings, finals, strict=True)
        ]
        answered = [f for f in finals if f.outcome in ("answered", "unverified")]
        return FinalAnswer(
            question=question,
            answer=self._combined(question, answers, trace),
            working="\n\n".join(
                f"# {a.axis}\n{f.working}" for a, f in zip(answers, finals, strict=True)
            ),
            path=finals[0].path,
            citations=unique_citations(c for f in finals for c in f.citations),
            evidence=_unique_passages(p for f in finals for p in f.evidence),
            interpretations=answers,
            confidence=min((f.confidence for f in answered), default=0.0),
            outcome="answered" if answered else "refused",
            reason=f"{report.kind} ambiguity: {report.reason}".strip(": "),
            trace=trace,
        )

    def _combined(self, question: str, answers: list[ReadingAnswer], trace: Trace) -> str:
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


def _unique_passages(passages: Iterable[Passage]) -> list[Passage]:
    seen: dict[str, Passage] = {}
    for passage in passages:
        seen.setdefault(passage.id, passage)
    return list(seen.values())


def _without_by(axis: str) -> str:
    return axis[3:] if axis.lower().startswith("by ") else axis
