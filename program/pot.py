"""Program-of-Thought: the LM writes Python, the sandbox runs it, errors go back for repair."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any, NamedTuple

import dspy
from pydantic import BaseModel

from filingqa.checks.cell_check import cell_feedback, misreads
from filingqa.checks.sign_check import sign_feedback, sign_repaired, subtracted_negatives
from filingqa.checks.table_rows import linearize_tables
from filingqa.lm.code_adapter import FencedCodeAdapter
from filingqa.lm.parallel_samples import sampled_together
from filingqa.program.worked_examples import WorkedExamples, shown
from filingqa.sandbox import ExecutionResult, SandboxLimits, run_python
from filingqa.sandbox.outcome import Answer
from filingqa.signatures.pot import RepairProgram, ReviseProgram, WriteProgram

DEFAULT_REPAIRS = 2
# Generation stops at the closing fence: small models otherwise go on explaining the code
# up to the token limit.
CODE_CONFIG = {"stop": ["\n```\n"], "max_tokens": 600}
SAMPLE_TEMPERATURE = 0.7


class Attempt(BaseModel):
    """One program, what running it gave, and which sample (0 = greedy) it belongs to."""

    program: str
    execution: ExecutionResult
    sample: int = 0


class ProgramOfThought(dspy.Module):
    """Write a program for the question, run it, and repair it from the sandbox's error.

    Returns a ``dspy.Prediction`` with ``answer`` (text), ``value`` (the program's
    ``result``), ``program`` (the chosen program), ``execution``, ``attempts`` (every
    program run, in order), ``finals`` (the last attempt of each sample) and ``votes``
    (how many samples gave the chosen value).

    With ``tables_as_rows`` pipe tables in the evidence are shown to the model as labelled
    rows (:func:`~filingqa.checks.table_rows.linearize_tables`; off by default, see
    docs/experiments.md). With ``samples`` > 1 (self-consistency)
    further programs are sampled at temperature ``SAMPLE_TEMPERATURE`` beside the greedy one
    (all requested :func:`~filingqa.lm.parallel_samples.sampled_together`, so an engine
    that can decodes them as one batch), each is run, and the value most programs agree on
    wins; ties go to the earliest sample. The greedy program is repaired and revised as
    needed; a sample only while that could still change the winning value.

    Two checks may send a program that ran back for one revision, kept only when it has
    fewer faults: with ``check_signs`` one that subtracts a figure the evidence prints in
    parentheses (:mod:`~filingqa.checks.sign_check`), mended in code when the mended program
    runs (:func:`~filingqa.checks.sign_check.sign_repaired`, no LM call) and by the LM
    otherwise; with ``check_cells`` one whose figures come from rows or year columns the
    question does not ask about, told which cells it should have used
    (:mod:`~filingqa.checks.cell_check`; off by default so that bare PoT stays the bare
    prompt).

    With ``worked_examples`` and ``examples_per_question`` > 0 the first programs are
    written after that many solved questions nearest the question
    (:mod:`~filingqa.program.worked_examples`), shown between the evidence and the question.
    """

    def __init__(
        self,
        max_repairs: int = DEFAULT_REPAIRS,
        limits: SandboxLimits | None = None,
        tables_as_rows: bool = False,
        samples: int = 1,
        check_signs: bool = True,
        check_cells: bool = False,
        worked_examples: WorkedExamples | None = None,
        examples_per_question: int = 0,
    ) -> None:
        super().__init__()
        if samples < 1:
            raise ValueError("samples must be at least 1")
        if examples_per_question < 0:
            raise ValueError("examples_per_question must be at least 0")
        self.write = dspy.Predict(WriteProgram)
        self.repair = dspy.Predict(RepairProgram)
        self.revise_program = dspy.Predict(ReviseProgram)
        self.max_repairs = max_repairs
        self.limits = limits
        self.tables_as_rows = tables_as_rows
        self.samples = samples
        self.check_signs = check_signs
        self.check_cells = check_cells
        self.worked_examples = worked_examples
        self.examples_per_question = examples_per_question

    def forward(
        self,
        question: str,
        evidence: str,
        formula: str | None = None,
        samples: int | None = None,
    ) -> dspy.Prediction:
        """``formula`` (:func:`~filingqa.checks.formulas.formula_note`) is shown after the
        question when given; without it the request is the bare prompt. ``samples`` votes
        for this question instead of the module's."""
        if self.tables_as_rows:
            evidence = linearize_tables(evidence)
        votes = samples or self.samples
        configs = [_sample_config(sample) for sample in range(votes)]
        examples = self._examples(question)
        with dspy.context(adapter=FencedCodeAdapter()):
            with sampled_together(range(1, votes), temperature=SAMPLE_TEMPERATURE):
                programs = [self._write(question, evidence, formula, examples, c) for c in configs]
            tasks = [
                _Task(question, evidence, formula, config, sample)
                for sample, config in enumerate(configs)
            ]
            chains = self._solve_votes(tasks, programs)
        finals = [chain[-1] for chain in chains]
        chosen, votes = _majority(finals)
        return dspy.Prediction(
            answer=answer_text(chosen.execution),
            value=chosen.execution.value,
            program=chosen.program,
            execution=chosen.execution,
            attempts=[attempt for chain in chains for attempt in chain],
            finals=finals,
            votes=votes,
        )

    def revise(
        self,
        question: str,
        evidence: str,
        program: str,
        feedback: str,
        formula: str | None = None,
    ) -> dspy.Prediction:
        """Rewrite ``program`` that ran but was rejected (by the verifier) for ``feedback``.

        Returns the same fields as :meth:`forward`, for the revised program.
        """
        if self.tables_as_rows:
            evidence = linearize_tables(evidence)
        with dspy.context(adapter=FencedCodeAdapter()):
            revised = self.revise_program(
                question=question,
                evidence=evidence,
                formula=formula,
                rejected_program=program,
                reason=feedback,
                config=dict(CODE_CONFIG),
            ).program
            attempt = self._run(revised, 0)
        return dspy.Prediction(
            answer=answer_text(attempt.execution),
            value=attempt.execution.value,
            program=attempt.program,
            execution=attempt.execution,
            attempts=[attempt],
            finals=[attempt],
            votes=int(attempt.execution.ok),
        )

    def _examples(self, question: str) -> str | None:
        """The worked examples shown for ``question`` (None without a pool or with k = 0)."""
        if self.worked_examples is None or not self.examples_per_question:
            return None
        return shown(self.worked_examples.nearest(question, self.examples_per_question))

    def _write(
        self,
        question: str,
        evidence: str,
        formula: str | None,
        examples: str | None,
        config: dict[str, Any],
    ) -> str:
        return self.write(
            question=question,
            evidence=evidence,
            formula=formula,
            examples_from_other_filings=examples,
            config=config,
        ).program

    def _solve_votes(self, tasks: list[_Task], programs: list[str]) -> list[list[Attempt]]:
        """Each program run; the greedy one (the first) repaired and revised as needed, and
        a sample only while its repair or revision could still change the majority value.

        A sample whose program runs and passes the checks needs no LM call. The others are
        solved in order until the leading value is ahead of every other by more than the
        samples left unsolved: whatever they would give, the chosen value stays.
        """
        chains = [
            [self._run(program, task.sample)] for task, program in zip(tasks, programs, strict=True)
        ]
        chains[0] = self._solve(tasks[0], chains[0][0])
        pending = [i for i in range(1, len(tasks)) if not self._settled(tasks[i], chains[i][0])]
        for left, index in enumerate(pending):
            if _lead([chain[-1] for chain in chains], skip=pending[left:]) > len(pending) - left:
                break
            chains[index] = self._solve(tasks[index], chains[index][0])
        return chains

    def _settled(self, task: _Task, attempt: Attempt) -> bool:
        """Whether ``attempt`` ran and every check switched on passes it (no call needed)."""
        ok = attempt.execution.ok
        return ok and not any(
            check.find(attempt.program, task.evidence, task.question)[0] for check in self._checks()
        )

    def _solve(self, task: _Task, first: Attempt) -> list[Attempt]:
        """``first`` and up to ``max_repairs`` repairs of it, then the checks' revisions."""
        attempts = [first]
        while not attempts[-1].execution.ok and len(attempts) <= self.max_repairs:
            failed = attempts[-1]
            program = self.repair(
                question=task.question,
                evidence=task.evidence,
                formula=task.formula,
                failed_program=failed.program,
                error=failed.execution.feedback(),
                config=task.config,
            ).program
            attempts.append(self._run(program, task.sample))
        for check in self._checks():
            attempts += self._checked_revision(task, attempts[-1], check)
        return attempts

    def _checks(self) -> list[_Check]:
        """The checks switched on, in the order they run: signs, then cells."""
        switched = [(self.check_signs, _SIGN_CHECK), (self.check_cells, _CELL_CHECK)]
        return [check for on, check in switched if on]

    def _checked_revision(self, task: _Task, last: Attempt, check: _Check) -> list[Attempt]:
        """One revision of a program that ran but that ``check`` finds fault with: the
        check's own repair in code when it has one, else the LM's given the check's reason;
        kept only when the revision runs and the check finds fewer faults in it."""
        if not last.execution.ok:
            return []
        faults, reason = check.find(last.program, task.evidence, task.question)
        if not faults:
            return []
        repaired = check.repair(last.program, task.evidence, task.question)
        if repaired is not None:
            attempt = self._run(repaired, task.sample)
            if _fewer_faults(attempt, check, task, faults):
                return [attempt]
        program = self.revise_program(
            question=task.question,
            evidence=task.evidence,
            formula=task.formula,
            rejected_program=last.program,
            reason=reason,
            config=task.config,
        ).program
        revised = self._run(program, task.sample)
        return [revised] if _fewer_faults(revised, check, task, faults) else []

    def _run(self, program: str, sample: int) -> Attempt:
        execution = run_python(program, self.limits)
        return Attempt(program=program, execution=execution, sample=sample)


class _Task(NamedTuple):
    """What every request about one question's program shares."""

    question: str
    evidence: str
    formula: str | None
    config: dict[str, Any]
    sample: int


class _Check(NamedTuple):
    """A check on a program that ran: ``find`` gives its faults (a count) and the reason to
    give the LM; ``repair`` the program mended in code, or None when code cannot mend it.
    Both take the program, the evidence and the question."""

    find: Callable[[str, str, str], tuple[int, str]]
    repair: Callable[[str, str, str], str | None]


def _sample_config(sample: int) -> dict[str, Any]:
    """The request settings of sample ``sample``: greedy for 0, else sampled at its seed."""
    config = dict(CODE_CONFIG)
    if sample:
        config.update(temperature=SAMPLE_TEMPERATURE, seed=sample)
    return config


def _sign_slips(program: str, evidence: str, question: str) -> tuple[int, str]:
    """The sign check (:mod:`~filingqa.checks.sign_check`): 1 when the program subtracts
    parenthesised figures it made negative (a revision is kept only when it no longer does
    so at all), and the reason to give."""
    magnitudes = subtracted_negatives(program, evidence, question)
    return (1, sign_feedback(magnitudes)) if magnitudes else (0, "")


def _cell_misreads(program: str, evidence: str, question: str) -> tuple[int, str]:
    """The cell check (:mod:`~filingqa.checks.cell_check`): figures from rows or year
    columns the question does not ask about, and the reason to give."""
    found = misreads(program, evidence, question)
    return len(found), cell_feedback(found) if found else ""


def _no_repair(program: str, evidence: str, question: str) -> None:
    """A check with no repair in code: the LM revises."""
    return None


_SIGN_CHECK = _Check(_sign_slips, sign_repaired)
_CELL_CHECK = _Check(_cell_misreads, _no_repair)


def _fewer_faults(attempt: Attempt, check: _Check, task: _Task, faults: int) -> bool:
    """Whether ``attempt`` ran and ``check`` finds fewer than ``faults`` faults in it."""
    found = check.find(attempt.program, task.evidence, task.question)[0]
    return attempt.execution.ok and found < faults


def _majority(finals: list[Attempt]) -> tuple[Attempt, int]:
    """The attempt whose value most successful attempts share (earliest on ties)."""
    keys = [_vote_key(a.execution.value) if a.execution.ok else None for a in finals]
    counts = Counter(key for key in keys if key is not None)
    if not counts:
        return finals[0], 0
    best = max(counts.values())
    winner = next(key for key in keys if key is not None and counts[key] == best)
    return finals[keys.index(winner)], best


def _lead(finals: list[Attempt], skip: list[int]) -> int:
    """How many more votes the leading value has than the next, leaving out ``skip``."""
    counts = Counter(
        _vote_key(a.execution.value)
        for i, a in enumerate(finals)
        if a.execution.ok and i not in skip
    )
    top = [*sorted(counts.values(), reverse=True), 0, 0]
    return top[0] - top[1]


def _vote_key(value: Answer | None) -> str:
    """Values that agree to 4 significant digits vote together."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return repr(value)
    return f"{value:.4g}"


def answer_text(execution: ExecutionResult) -> str:
    """The program's result as answer text; empty when the program failed."""
    if not execution.ok or execution.value is None:
        return ""
    value = execution.value
    if isinstance(value, bool | str):
        return str(value)
    if isinstance(value, float):
        return f"{value:.6g}" if abs(value) < 1e6 else f"{value:,.2f}"
    if isinstance(value, dict):
        return "; ".join(f"{name}: {item}" for name, item in value.items())
    return str(value)
