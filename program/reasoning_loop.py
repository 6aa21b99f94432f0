"""The reason-verify-revise loop: draft an answer over the question's evidence, verify it,
and revise it with the verifier's reasons, up to ``max_rounds`` rounds.

reason (PoT in the sandbox / CoT / quotes / yes-no) ──► verify ──► REJECT: refine, revise (≤ K)

A single pass drafts once and does not verify. A context overflow halves the evidence and
retries the round; any other reasoning fault ends the loop with a draft carrying the fault;
a failed verification leaves the draft unverified. An answer echoing the request's wording
or repeating itself is asked for once more, then marked unusable.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Literal

import dspy

from filingqa.checks.answer_checks import CheckReport, automatic_checks
from filingqa.checks.degenerate import degenerate
from filingqa.checks.formulas import formula_note
from filingqa.checks.program_result import comparison, decision_of
from filingqa.checks.unsupported_numbers import unsupported_numbers
from filingqa.evidence.render import render, within_budget
from filingqa.lm.faults import Fault, attempt
from filingqa.lm.trace import Step
from filingqa.program.draft import Draft
from filingqa.program.extraction import UNDECIDED, Comparison, Extraction
from filingqa.program.pot import ProgramOfThought, answer_text
from filingqa.program.question_state import QuestionState
from filingqa.program.statement_program import statement_program
from filingqa.program.verification import Verdict, Verifier
from filingqa.program.worked_examples import WorkedExamples
from filingqa.records import Passage
from filingqa.records.refusal import is_refusal
from filingqa.router.answer_form_guess import guess_answer_form, names_computation
from filingqa.sandbox import run_python
from filingqa.signatures.cot import AnswerFromEvidence
from filingqa.signatures.extract import StateComputedAnswer

DEFAULT_ROUNDS = 3
STATEMENT_TOKENS = 96  # one sentence stating a computed direction
CHOICE_NOTE = (
    "The question asks which one: compare the figures in the program and set result to the "
    "winner's name or year as a string (result = '2019'), not to its value."
)
DECIDE_NOTE = (
    "The question asks yes or no: compute the figures that decide it and set result to the "
    "comparison the question asks, True or False, not to a figure: against zero for positive "
    "or negative (result = working_capital > 0), against the threshold it names or implies "
    "(result = quick_ratio >= 1), between periods only for a change over time "
    "(result = margin_2024 > margin_2023)."
)
SHRINKS = 3  # a context overflow halves the evidence and retries, at most this many times
REPEAT_NOTE = "not asked: the revision repeats the draft verified before, over the same evidence"

Explanations = Literal["free", "quoted"]
"""How a question asking why or how is answered: in free words (CoT), or with the filing's
own sentences, checked like any quote."""

Refine = Callable[[QuestionState, Verdict], None]
"""Searches more evidence into the state for what a verdict found missing."""


class ReasoningLoop(dspy.Module):
    """Reason, verify, revise; returns the best-supported draft.

    With ``sign_check`` and ``cell_check`` PoT revises a program that subtracts a figure
    printed in parentheses or takes its figures from rows or years the question does not
    ask about (:mod:`~filingqa.checks.sign_check`, :mod:`~filingqa.checks.cell_check`);
    with ``formula_notes`` the program writer is told the formula convention the question's
    wording calls for (:mod:`~filingqa.checks.formulas`). PoT votes ``samples`` times, or
    ``searched_samples`` times over evidence that was searched for. With
    ``statement_programs`` a question whose figure the statement records settle gets its
    first program written from them, not by the LM
    (:mod:`~filingqa.program.statement_program`).
    """

    def __init__(
        self,
        *,
        max_rounds: int = DEFAULT_ROUNDS,
        samples: int = 1,
        searched_samples: int | None = None,
        sign_check: bool = True,
        cell_check: bool = True,
        formula_notes: bool = True,
        worked_examples: WorkedExamples | None = None,
        examples_per_question: int = 0,
        explanations: Explanations = "free",
        statement_programs: bool = True,
    ) -> None:
        super().__init__()
        if max_rounds < 1:
            raise ValueError("max_rounds must be at least 1")
        self.pot = ProgramOfThought(
            samples=samples,
            check_signs=sign_check,
            check_cells=cell_check,
            worked_examples=worked_examples,
            examples_per_question=examples_per_question,
        )
        self.cot = dspy.Predict(AnswerFromEvidence)
        self.extract = Extraction(explanations=explanations == "quoted")
        self.state_answer = dspy.Predict(StateComputedAnswer, max_tokens=STATEMENT_TOKENS)
        self.verifier = Verifier()
        if searched_samples is not None and searched_samples < 1:
            raise ValueError("searched_samples must be at least 1")
        self.searched_samples = searched_samples
        self.max_rounds = max_rounds
        self.formula_notes = formula_notes
        self.explanations = explanations
        self.statement_programs = statement_programs

    def forward(self, state: QuestionState, refine: Refine) -> Draft:
        """The loop over ``state``'s evidence; ``refine`` runs between rounds when the
        question has a search handle."""
        full_loop = state.route.full_loop
        rounds = self.max_rounds if full_loop else 1
        best: Draft | None = None
        draft: Draft | None = None
        for number in range(1, rounds + 1):
            previous, draft = draft, self._round(number, state, draft)
            if previous is not None and draft.repeats(previous):
                state.trace.record(Step(name=f"verify {number}", note=REPEAT_NOTE))
                break  # its verification, and every later round, would resend the same requests
            if full_loop and not draft.faults and not draft.unusable:
                self._verify(number, state, draft)
            if best is None or draft.support() > best.support():
                best = draft  # ties keep the earlier draft: a rejected revision is no better
            if draft.faults or draft.unusable or not full_loop or best.accepted or number == rounds:
                break
            if state.search is not None and draft.verdict is not None:
                attempt(state.trace, f"refine {number}", partial(refine, state, draft.verdict))
        assert best is not None
        return best

    def _round(self, number: int, state: QuestionState, previous: Draft | None) -> Draft:
        """One reasoning round; an answer that echoes the request's wording or repeats
        itself (:func:`~filingqa.checks.degenerate.degenerate`) is asked for once more, told
        why, and marked unusable when the second answer is no better."""
        draft = self._reasoned(number, state, previous)
        why = self._degenerate(draft)
        if why is None:
            return draft
        state.trace.record(Step(name=f"answer check {number}", note=f"asked again: {why}"))
        draft = self._reasoned(number, state, _rejected(draft, why))
        why = self._degenerate(draft)
        if why is None:
            return draft
        state.trace.record(Step(name=f"answer check {number}", note=f"no answer: {why}"))
        return draft.model_copy(update={"unusable": why, "problems": [*draft.problems, why]})

    def _degenerate(self, draft: Draft) -> str | None:
        """Why the draft's answer is no answer (an echo of the loop's wording, or
        repetition); a refusal or an undecided yes/no declines in its own words and is
        reviewed or marked as such instead."""
        if is_refusal(draft.answer) or draft.answer.startswith(UNDECIDED):
            return None
        return degenerate(draft.answer, self._wording())

    def _wording(self) -> list[str]:
        """The instructions and output descriptions of every request the loop makes: the
        wording a degenerate answer echoes."""
        texts = []
        for _, predictor in self.named_predictors():
            signature = predictor.signature
            texts.append(signature.instructions)
            texts += [
                str(field.json_schema_extra["desc"])
                for field in signature.fields.values()
                if field.json_schema_extra and "desc" in field.json_schema_extra
            ]
        return [text for text in texts if text and not text.startswith("${")]

    def _reasoned(self, number: int, state: QuestionState, previous: Draft | None) -> Draft:
        """One reasoning attempt over the buffer's evidence; a context overflow halves the
        evidence and retries (at most ``SHRINKS`` times), any other fault ends the round
        with an empty draft carrying the fault."""
        path = state.route.path
        reason = {"pot": self._pot, "cot": self._cot, "quote": self._quote, "decide": self._decide}
        budget = state.evidence.capacity_chars
        for shrink in range(SHRINKS + 1):
            passages = within_budget(state.evidence.passages(), state.question, budget)
            draft = attempt(
                state.trace,
                f"reason {number}",
                partial(reason[path], state, passages, previous),
                typed=path != "pot",
            )
            if not isinstance(draft, Fault):
                return draft
            if draft.kind != "context_overflow" or shrink == SHRINKS:
                return Draft(path=path, answer="", passages=passages, faults=[draft])
            budget //= 2
            retried = f"; retrying with the evidence cut to {budget:,} characters"
            state.trace.steps[-1].note += retried
        raise AssertionError("unreachable")

    def _pot(self, state: QuestionState, passages: list[Passage], previous: Draft | None) -> Draft:
        """A program for the question, or a revision of the previous one for what the
        verifier held against it; run in the sandbox and checked. A question asking which
        one wins has the program name it; one asking a direction gets it stated; a yes/no
        question has it compute the deciding comparison."""
        question, evidence = state.question, render(passages)
        written = self._written(state, passages) if previous is None else None
        if written is not None:
            return written
        notes = [formula_note(question, evidence) if self.formula_notes else None]
        notes.append(CHOICE_NOTE if state.route.asks == "choice" else None)
        notes.append(DECIDE_NOTE if state.route.path == "decide" else None)
        formula = " ".join(note for note in notes if note) or None
        feedback = previous.feedback() if previous is not None else ""
        if feedback and previous is not None and previous.program:
            out = self.pot.revise(question, evidence, previous.program, feedback, formula)
        else:
            votes = self.searched_samples if state.search is not None else None
            out = self.pot(question=question, evidence=evidence, formula=formula, samples=votes)
        checks = automatic_checks(out.program, out.value, passages)
        problems = [] if out.execution.ok else [out.execution.feedback()]
        answer = out.answer
        if state.route.asks == "direction" and out.execution.ok and answer:
            answer = self.state_answer(question=question, working=out.program, result=answer).answer
        return Draft(
            path="pot",
            answer=answer,
            value=out.value,
            program=out.program,
            figures=out.execution.figures,
            passages=passages,
            checks=checks,
            problems=list(dict.fromkeys([*problems, *checks.problems])),
        )

    def _written(self, state: QuestionState, passages: list[Passage]) -> Draft | None:
        """The draft of the program written from the question's statement records, run in
        the sandbox and checked; None when none is written or it does not run."""
        if not self.statement_programs or not state.records or state.route.asks != "value":
            return None
        decides = state.route.path == "decide"
        program = statement_program(state.question, state.records, decides=decides)
        if program is None:
            return None
        execution = run_python(program, self.pot.limits)
        state.trace.record(Step(name="statement program", note=program.strip()))
        if not execution.ok:
            return None
        checks = automatic_checks(program, execution.value, passages)
        return Draft(
            path="pot",
            answer=answer_text(execution),
            value=execution.value,
            program=program,
            figures=execution.figures,
            passages=passages,
            checks=checks,
            problems=checks.problems,
        )

    def _cot(self, state: QuestionState, passages: list[Passage], previous: Draft | None) -> Draft:
        """An answer in words, told why the previous one was rejected; with quoted
        explanations, a question asking why or how is answered with the filing's sentences."""
        question = state.question
        feedback = previous.feedback() if previous is not None else ""
        if self.explanations == "quoted" and _asks_why(state):
            return self.extract(question, passages, "explanation", rejected=feedback)
        asked = (
            f"{question}\n(An earlier answer was rejected: {feedback})" if feedback else question
        )
        out = self.cot(question=asked, evidence=render(passages))
        checks = automatic_checks("", None, passages, answer=out.answer)
        return Draft(
            path="cot",
            answer=out.answer,
            passages=passages,
            checks=checks,
            problems=checks.problems,
        )

    def _quote(
        self, state: QuestionState, passages: list[Passage], previous: Draft | None
    ) -> Draft:
        """Quoted from the evidence (a figure, a span, a list, a count), told why the
        previous answer was rejected; a stated figure the statement records settle is
        computed from them instead (:meth:`_written`)."""
        figure = previous is None and state.route.form == "looked_up"
        written = self._written(state, passages) if figure else None
        if written is not None:
            return written
        form = state.route.form or "span"
        rejected = previous.feedback() if previous is not None else ""
        return self.extract(state.question, passages, form, rejected=rejected)

    def _decide(
        self, state: QuestionState, passages: list[Passage], previous: Draft | None
    ) -> Draft:
        """Yes or no from a deciding figure: computed by a program first when the question
        names a computation, else quoted (told why, when the previous answer was no answer).
        A comparison the program computed decides the yes or no."""
        if not names_computation(state.question):
            unusable = previous.unusable if previous is not None else ""
            asked = f"{state.question}\n(An earlier answer was rejected: {unusable})"
            return self.extract(asked if unusable else state.question, passages, "yes_no")
        computed = self._pot(state, passages, previous)
        if not computed.answer:
            return computed
        result = f"{computed.answer} (computed by: {computed.program.strip()})"
        decided = self.extract(
            state.question,
            passages,
            "yes_no",
            computed=result,
            comparison=_computed_comparison(computed, state.question),
        )
        return decided.model_copy(
            update={
                "value": computed.value,
                "program": computed.program,
                "figures": computed.figures,
                "checks": computed.checks,
            }
        )

    def _verify(self, number: int, state: QuestionState, draft: Draft) -> None:
        """The verifier's verdict on the draft, or the fault that stopped it."""
        verdict = attempt(
            state.trace,
            f"verify {number}",
            lambda: self.verifier(
                question=state.question,
                evidence=render(draft.passages),
                answer=draft.answer,
                program=draft.program,
                value=draft.value,
                passages=draft.passages,
                checks=draft.checks,
            ),
            note=lambda v: f"{v.verdict}: {'; '.join(v.reasons)}",
        )
        if isinstance(verdict, Fault):
            draft.faults.append(verdict)
        else:
            draft.verdict = verdict


def _computed_comparison(computed: Draft, question: str) -> Comparison | None:
    """The yes or no the program computed (a bool, or true/false in words), with the
    comparison it evaluated when every figure of that is in the question or the evidence."""
    holds = decision_of(computed.value)
    if holds is None:
        return None
    expression = comparison(computed.program) or ""
    known = f"{question}\n{render(computed.passages)}"
    shown = expression if not unsupported_numbers(expression, known) else ""
    return Comparison(holds=holds, expression=shown)


def _rejected(draft: Draft, why: str) -> Draft:
    """``draft`` as unusable for ``why``, and rejected for it: what the next attempt is told
    (a verdict's reasons reach every path's revision)."""
    checks = draft.checks or CheckReport(problems=[], untraced=[])
    verdict = Verdict(verdict="REJECT", reasons=[why], missing="", checks=checks)
    return draft.model_copy(update={"verdict": verdict, "unusable": why})


def _asks_why(state: QuestionState) -> bool:
    """Whether the question asks for an explanation: its route's form, else the wording's
    guess (the form is not decided when answer forms are off)."""
    form = state.route.form or guess_answer_form(state.question).form
    return form == "explanation"
