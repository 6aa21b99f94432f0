"""Judge a JSONL file of answers: one result line per input line, then a summary line.

Input lines are objects with ``question``, ``gold`` and ``prediction`` (optional
``answer_type``, ``scale``, ``unit``, ``id``); a list gold is judged joined with ``"; "`` (a line
without ``scale``: see :meth:`~filingqa.metrics.judge.StrictJudge.judge`).
Each result line has ``score``, ``reason`` and ``stage`` (and ``id`` when given); a line
that cannot be judged gets an ``error`` field instead. The last line is
``{"summary": {...}}``; its mean is over the judged lines.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from typing import Any, TextIO

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from filingqa.metrics.judge import StrictJudge
from filingqa.metrics.verdict import Verdict


class JudgeRecord(BaseModel):
    """One input line."""

    model_config = ConfigDict(extra="ignore")

    question: str
    gold: str | float | list[str]
    prediction: str | float | None
    answer_type: str | None = None
    scale: str | None = None
    unit: str | None = None
    id: str | int | None = None

    @field_validator("gold")
    @classmethod
    def _join_spans(cls, gold: str | float | list[str]) -> str | float:
        """A multi-span gold (a list) is judged as its items joined by ``"; "``."""
        return "; ".join(gold) if isinstance(gold, list) else gold


class JudgeSummary(BaseModel):
    """Totals over a judged file."""

    count: int = 0
    judged: int = 0
    errors: int = 0
    mean_score: float = 0.0
    scores: dict[str, int] = Field(default_factory=lambda: {"1": 0, "0.5": 0, "0": 0})
    stages: dict[str, int] = Field(default_factory=dict)


def _score_key(score: float) -> str:
    return f"{score:g}"


def _judge_line(line: str, judge: StrictJudge) -> tuple[dict[str, Any], Verdict | None]:
    """The result object for one line, with its verdict (None for an error line)."""
    try:
        record = JudgeRecord.model_validate_json(line)
    except ValidationError as error:
        return {"error": f"malformed line: {error.errors()[0]['msg']}"}, None
    identity = {"id": record.id} if record.id is not None else {}
    assert not isinstance(record.gold, list)  # _join_spans joined the spans
    try:
        verdict = judge.judge(
            record.question,
            record.gold,
            record.prediction,
            answer_type=record.answer_type,
            scale=record.scale,
            unit=record.unit,
        )
    except Exception as error:  # one failed judgement (e.g. an unparsable LLM reply) is reported
        return {**identity, "error": f"judge failed: {error}"}, None
    return {**identity, **verdict.model_dump()}, verdict


def judge_jsonl(lines: Iterable[str], judge: StrictJudge, out: TextIO) -> JudgeSummary:
    """Judge each non-blank JSONL line, writing results and a summary line to ``out``."""
    summary = JudgeSummary()
    stages: Counter[str] = Counter()
    total = 0.0
    for line in lines:
        if not line.strip():
            continue
        result, verdict = _judge_line(line, judge)
        summary.count += 1
        if verdict is None:
            summary.errors += 1
        else:
            summary.judged += 1
            total += verdict.score
            summary.scores[_score_key(verdict.score)] += 1
            stages[verdict.stage] += 1
        out.write(json.dumps(result) + "\n")
    summary.stages = dict(stages)
    summary.mean_score = total / summary.judged if summary.judged else 0.0
    out.write(json.dumps({"summary": summary.model_dump()}) + "\n")
    return summary
