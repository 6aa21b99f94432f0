"""Router labels: each calibration question answered by the compiled program (its state,
structure and worked examples) over its gold context, once in a single pass and once with
the full loop (ambiguity detection off in both: it is not what the router decides). Both
runs are rows in ``single.jsonl`` / ``full.jsonl`` (written by
:func:`filingqa.evaluation.runner.run_mode`, so an interrupted labelling resumes).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from filingqa.evaluation.modes import gold_program
from filingqa.evaluation.runner import Row, run_mode
from filingqa.metrics.judge import StrictJudge
from filingqa.program.financial_qa import FinancialQA
from filingqa.program.worked_examples import WorkedExamples
from filingqa.records import QARecord
from filingqa.router.rule import fixed_router
from filingqa.router.training import RouterLabel


def label_questions(
    records: Sequence[QARecord],
    program_state: dict[str, Any],
    *,
    judge: StrictJudge,
    out_dir: Path,
    options: dict[str, Any] | None = None,
    worked_examples: WorkedExamples | None = None,
    progress: bool = True,
) -> list[RouterLabel]:
    """Run ``records`` single-pass and full-loop with the compiled ``program_state`` and
    its structure's ``options``; rows are checkpointed in ``out_dir`` (``single.jsonl``,
    ``full.jsonl``)."""
    runs: dict[str, list[Row]] = {}
    for name, full_loop in (("single", False), ("full", True)):
        qa = FinancialQA(
            **((options or {}) | {"detect_ambiguity": False}),
            router=fixed_router(full_loop, "calibration"),
            worked_examples=worked_examples,
        )
        qa.load_state(program_state)
        runs[name] = run_mode(
            records,
            gold_program(qa),
            judge=judge,
            rows_path=out_dir / f"{name}.jsonl",
            progress=progress,
        )
    return [
        RouterLabel(
            id=single.id,
            question=single.question,
            single_score=single.score,
            full_score=full.score,
            single_calls=single.lm_calls,
            full_calls=full.lm_calls,
        )
        for single, full in zip(runs["single"], runs["full"], strict=True)
    ]
