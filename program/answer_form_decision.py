"""The answer form of a question: the wording's first guess
(:mod:`~filingqa.router.answer_form_guess`) and, where the wording leaves it open, the LM's
decision over the evidence."""

from __future__ import annotations

from typing import Literal

import dspy

from filingqa.checks.formulas import unstated_metrics
from filingqa.evidence.render import render, within_budget
from filingqa.lm.faults import Fault, attempt
from filingqa.lm.trace import Step, Trace
from filingqa.program.question_state import QuestionState
from filingqa.records.answer_form import AnswerForm
from filingqa.router.answer_form_guess import guess_answer_form, with_form
from filingqa.router.rule import RoutingDecision
from filingqa.signatures.decide_answer_form import DecideAnswerForm

FormChoice = Literal["off", "guess", "decide"]
"""How the form is chosen: not at all (PoT or CoT by the keyword rule), by the wording's
guess alone, or by the guess and, where it is unsure, the LM."""
FORM_TOKENS = 24  # one word in a JSON object


class AnswerFormDecision(dspy.Module):
    """Sends a question down its answer form's path: the wording's guess when it is sure,
    else (with ``choice="decide"``) the LM's decision over the evidence; every decision is
    a step of the trace."""

    def __init__(self, choice: FormChoice = "decide") -> None:
        super().__init__()
        self.choice = choice
        self.decide = dspy.Predict(DecideAnswerForm, max_tokens=FORM_TOKENS)

    def guessed(self, question: str, route: RoutingDecision, trace: Trace) -> RoutingDecision:
        """``route`` with the wording's guess (unchanged when forms are off)."""
        if self.choice == "off":
            return route
        guess = guess_answer_form(question)
        sure = "sure" if guess.confident else "unsure"
        trace.record(Step(name="answer form", note=f"guess {guess.form} ({sure}): {guess.reason}"))
        return with_form(route, guess.form, guess.asks, f"guess: {guess.reason}")

    def forward(self, state: QuestionState) -> None:
        """Where the guess is unsure: a question naming a metric that no table row of the
        evidence states (:func:`~filingqa.checks.formulas.unstated_metrics`) is computed,
        without asking, since a figure the evidence does not state cannot be quoted; else,
        with ``choice="decide"``, the LM decides the form over the evidence (a failed
        decision keeps the guess)."""
        guess = guess_answer_form(state.question)
        if self.choice == "off" or guess.confident:
            return
        passages = within_budget(
            state.evidence.passages(), state.question, state.evidence.capacity_chars
        )
        unstated = unstated_metrics(state.question, render(passages))
        if unstated:
            metric = unstated[0][0]
            state.trace.record(
                Step(name="answer form", note=f"computed: no table row states {metric}")
            )
            state.route = with_form(state.route, "computed", guess.asks, f"{metric} unstated")
            return
        if self.choice != "decide":
            return
        decided = attempt(
            state.trace,
            "answer form",
            lambda: (
                self.decide(
                    evidence=render(passages), question=state.question, first_guess=guess.form
                ).form
            ),
            note=lambda form: f"decided {form} over the evidence (first guess {guess.form})",
        )
        if not isinstance(decided, Fault) and decided != guess.form:
            form: AnswerForm = decided
            state.route = with_form(state.route, form, guess.asks, "decided by the LM")
