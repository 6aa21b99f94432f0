"""Answers taken from the evidence rather than computed: a looked-up figure or a span quoted
verbatim, a list of such quotes, a count of quoted items, a yes/no decided by a quoted (or
computed) figure, and (when the program quotes explanations) the sentences giving a reason.

quote ──► check it occurs in the evidence, is short, is not a whole passage
   │ rejected: ask again, told why (≤ ``retries``) ──► still rejected: marked, not hidden
   ▼
list: every item checked, duplicates merged · count: the number of quoted items
yes/no: the deciding figure or words checked; a decision they do not support is given marked;
        a comparison a program computed decides the yes or no
"""

from __future__ import annotations

from typing import NamedTuple

import dspy

from filingqa.checks.quotes import MAX_QUOTE_WORDS, CheckedQuote, check_quote, merged
from filingqa.core.numbers import extract_numbers
from filingqa.evidence.render import render
from filingqa.program.draft import Draft
from filingqa.records import Passage
from filingqa.records.answer_form import AnswerForm
from filingqa.signatures.extract import DecideYesNo, QuoteAnswer, QuoteExplanation, QuoteItems

DEFAULT_RETRIES = 1
EXPLANATION_WORDS = 80  # an explanation's quote: a sentence or two
LIST_SEPARATOR = "; "  # how list items are joined in the answer text (TAT-QA's multi-span form)
ROUNDING = 0.005  # a deciding figure may be the computed one rounded, to this share
UNDECIDED = "Undecided"  # opens an answer that gives no yes or no


class Extraction(dspy.Module):
    """Quote, list, count or decide over ``passages``; returns a :class:`Draft` whose
    ``quotes`` hold each accepted quote's location and whose ``problems`` say what stayed
    wrong after ``retries`` more requests."""

    def __init__(self, retries: int = DEFAULT_RETRIES, *, explanations: bool = False) -> None:
        super().__init__()
        self.quote = dspy.Predict(QuoteAnswer)
        self.items = dspy.Predict(QuoteItems)
        self.decide = dspy.Predict(DecideYesNo)
        # only a program that quotes explanations has (and saves) this predictor
        self.explain = dspy.Predict(QuoteExplanation) if explanations else None
        self.retries = retries

    def forward(
        self,
        question: str,
        passages: list[Passage],
        form: AnswerForm,
        *,
        computed: str = "",
        rejected: str = "",
        comparison: Comparison | None = None,
    ) -> Draft:
        """The answer of ``form`` (looked-up, span, list, count or yes/no); ``computed`` is a
        figure a program worked out for a yes/no question, ``comparison`` the truth a
        program computed for it (which then decides the yes or no), ``rejected`` why an
        earlier answer was rejected."""
        if form in ("list", "count"):
            return self._listed(question, passages, counted=form == "count", rejected=rejected)
        if form == "yes_no":
            return self._decided(question, passages, computed, comparison)
        if form == "explanation" and self.explain is not None:
            return self._quoted(question, passages, rejected, self.explain, EXPLANATION_WORDS)
        return self._quoted(question, passages, rejected, self.quote, MAX_QUOTE_WORDS)

    def _quoted(
        self,
        question: str,
        passages: list[Passage],
        rejected: str,
        ask: dspy.Predict,
        max_words: int,
    ) -> Draft:
        """One quote, asked again with the reason while it is rejected."""
        evidence = render(passages)
        checked = CheckedQuote(quote="", problem="empty")
        for _ in range(self.retries + 1):
            quote = ask(question=question, evidence=evidence, rejected=rejected).quote
            checked = check_quote(quote, passages, max_words=max_words)
            if checked.ok:
                break
            rejected = checked.feedback()
        return Draft(
            path="quote",
            answer=checked.quote.strip(),
            passages=passages,
            quotes=[checked] if checked.ok else [],
            problems=[] if checked.ok else [checked.feedback()],
        )

    def _listed(
        self, question: str, passages: list[Passage], *, counted: bool, rejected: str
    ) -> Draft:
        """Every item quoted; items not in the evidence dropped (asked again, told which,
        when none is left); duplicates merged; a count is the number of items."""
        evidence = render(passages)
        kept: list[CheckedQuote] = []
        dropped: list[CheckedQuote] = []
        for _ in range(self.retries + 1):
            out = self.items(question=question, evidence=evidence, rejected=rejected)
            items = out["items"]  # ``Prediction.items`` is the mapping method
            checked = [check_quote(item, passages) for item in items]
            kept = merged(c for c in checked if c.ok)
            dropped = [c for c in checked if not c.ok]
            if kept:
                break
            rejected = "; ".join(c.feedback() for c in dropped) or "no items were given"
        problems = [f"dropped: {c.feedback()}" for c in dropped]
        if not kept:
            problems.append("no item was found in the evidence")
        texts = [c.quote.strip() for c in kept]
        answer = str(len(texts)) if counted else LIST_SEPARATOR.join(texts)
        working = "\n".join(f"- {text}" for text in texts)
        return Draft(
            path="quote",
            answer=answer if kept else "",
            program=f"counted items:\n{working}" if counted else "",
            passages=passages,
            quotes=kept,
            problems=problems,
        )

    def _decided(
        self, question: str, passages: list[Passage], computed: str, comparison: Comparison | None
    ) -> Draft:
        """Yes or no with the deciding figure or words. A decision whose deciding figure is
        neither found in the evidence nor the computed one is still given, marked (a
        problem: the answer is ``unverified``); only "not stated" gives no yes or no. A
        ``comparison`` the program computed decides it: an LM decision contradicting it is
        replaced, with the comparison as its reason."""
        out = self.decide(question=question, evidence=render(passages), computed=computed)
        deciding = out.deciding.strip()
        checked = check_quote(deciding, passages)
        grounded = checked.ok or _states_computed(deciding, computed)
        reason = out.reason.strip()
        if comparison is not None:
            return _follows(comparison, out.decision, reason, checked, passages)
        if out.decision == "not stated":
            return Draft(
                path="decide",
                answer=f"{UNDECIDED}: {reason}" if reason else "",
                passages=passages,
                problems=["the evidence does not decide it"],
            )
        shown = not deciding or _mentions(reason, deciding)
        stated = reason if shown else f"{reason} ({deciding})"
        unchecked = (
            f"the deciding figure could not be checked: {checked.feedback() or 'none given'}"
        )
        return Draft(
            path="decide",
            answer=f"{out.decision.capitalize()}. {stated}".strip(),
            passages=passages,
            quotes=[checked] if checked.ok else [],
            problems=[] if grounded else [unchecked],
        )


class Comparison(NamedTuple):
    """The truth a program computed for a yes/no question, and the comparison it evaluated
    (``ratio > 1``; empty when the program gave only the truth)."""

    holds: bool
    expression: str = ""


def decided_by(comparison: Comparison, decision: str, reason: str) -> str:
    """The answer to a yes/no question whose program computed ``comparison``: its yes or
    no, with the LM's ``reason`` when its ``decision`` agrees, else with the comparison."""
    said = "yes" if comparison.holds else "no"
    if decision == said and reason:
        return f"{said.capitalize()}. {reason}"
    if comparison.expression:
        return f"{said.capitalize()}. Computed: {comparison.expression} is {comparison.holds}."
    return f"{said.capitalize()}."


def _follows(
    comparison: Comparison,
    decision: str,
    reason: str,
    checked: CheckedQuote,
    passages: list[Passage],
) -> Draft:
    """The yes/no draft the computed ``comparison`` decides (no problem: the program's
    checks stand for it); the LM's deciding quote is kept only when it decided the same."""
    agrees = decision == ("yes" if comparison.holds else "no")
    return Draft(
        path="decide",
        answer=decided_by(comparison, decision, reason),
        passages=passages,
        quotes=[checked] if agrees and checked.ok else [],
    )


def _states_computed(deciding: str, computed: str) -> bool:
    """Whether every figure ``deciding`` gives is one of the ``computed`` result's, as
    written or rounded (to 0.5%)."""
    given = [abs(n.magnitude) for n in extract_numbers(deciding)]
    known = [abs(n.magnitude) for n in extract_numbers(computed)]
    return bool(given) and all(
        any(abs(g - k) <= ROUNDING * max(k, 1e-9) for k in known) for g in given
    )


def _mentions(reason: str, deciding: str) -> bool:
    """Whether ``reason`` already states ``deciding``: its figures, or its words."""
    figures = {round(abs(n.magnitude), 4) for n in extract_numbers(deciding)}
    if figures:
        return figures <= {round(abs(n.magnitude), 4) for n in extract_numbers(reason)}
    return deciding.lower() in reason.lower()
