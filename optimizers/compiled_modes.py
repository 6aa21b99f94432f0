"""Compiled modules as eval modes (record → answer) over the record's gold context, so
``compile`` scores and labels with :func:`filingqa.evaluation.runner.run_mode`."""

from __future__ import annotations

import dspy

from filingqa.datasets.gold_context import gold_passages
from filingqa.evaluation.modes import Mode, ModeAnswer
from filingqa.evidence.render import render
from filingqa.lm.backbone import adapter_for
from filingqa.program.financial_qa import FinancialQA
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


def program_mode(qa: FinancialQA) -> Mode:
    """``qa`` over the gold passages, with the adapter its LM parses best with."""

    def answer(record: QARecord) -> ModeAnswer:
        with dspy.context(adapter=adapter_for(dspy.settings.lm)):
            final = qa(question=record.question, passages=gold_passages(record)).final
        return ModeAnswer(
            answer=final.answer, outcome=final.outcome, working=final.working, note=final.reason
        )

    return answer
