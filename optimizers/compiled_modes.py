"""A compiled program writer as an eval mode (record → answer) over the record's gold
context, so ``compile`` scores it with :func:`filingqa.evaluation.runner.run_mode` (the
whole program's mode is :func:`filingqa.evaluation.modes.gold_program`)."""

from __future__ import annotations

from filingqa.datasets.gold_context import gold_passages
from filingqa.evaluation.modes import Mode, ModeAnswer
from filingqa.evidence.render import render
from filingqa.program.pot import ProgramOfThought
from filingqa.records import QARecord


def pot_mode(pot: ProgramOfThought) -> Mode:
    """``pot`` (e.g. with compiled demos) over the rendered gold context."""

    def answer(record: QARecord) -> ModeAnswer:
        out = pot(question=record.question, evidence=render(gold_passages(record)))
        error = out.execution.error
        return ModeAnswer(
            answer=out.answer,
            outcome="answered" if error is None else "error",
            working=out.program,
            note=f"{error.kind}: {error.message}" if error else "",
        )

    return answer
