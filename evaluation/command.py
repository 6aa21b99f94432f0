"""``filingqa eval``: settings × one dataset split, judged, summarised, written to disk.

Rows go to ``<out>/<setting>.jsonl`` as they finish (a rerun resumes), the summaries and
settings to ``<out>/results.json``.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import dspy
from pydantic import BaseModel

from filingqa.datasets import QARecord, load_dataset
from filingqa.evaluation.modes import GOLD_CONTEXT_MODES
from filingqa.evaluation.runner import run_mode
from filingqa.evaluation.summary import Summary, summarize
from filingqa.metrics.judge import StrictJudge


class EvalSettings(BaseModel):
    """What one ``eval`` run compares, on what, with which backbone."""

    dataset: str
    modes: list[str]
    lm: str
    judge_lm: str | None = None
    limit: int | None = None
    where: dict[str, str] = {}
    concurrency: int = 1
    out_dir: Path


def select_records(records: list[QARecord], where: dict[str, str]) -> list[QARecord]:
    """Records whose field or ``meta`` entry equals each ``where`` value (as text)."""

    def value(record: QARecord, key: str) -> str:
        found = getattr(record, key, None) if key in QARecord.model_fields else None
        return str(record.meta.get(key) if found is None else found)

    return [r for r in records if all(value(r, k) == v for k, v in where.items())]


def run_evaluation(
    settings: EvalSettings,
    *,
    lm: dspy.BaseLM,
    judge_lm: dspy.BaseLM | None = None,
    data_dir: str | None = None,
    progress: bool = True,
) -> dict[str, Summary]:
    """Run every setting on the same records with the same LM; write rows and results."""
    unknown = [m for m in settings.modes if m not in GOLD_CONTEXT_MODES]
    if unknown:
        raise ValueError(
            f"unknown eval mode(s) {unknown}; available: {', '.join(GOLD_CONTEXT_MODES)}"
        )
    records = select_records(load_dataset(settings.dataset, data_dir=data_dir), settings.where)
    records = records[: settings.limit] if settings.limit else records
    if not records:
        raise ValueError(f"no records in {settings.dataset} match {settings.where}")
    judge = StrictJudge(lm=judge_lm)
    summaries: dict[str, Summary] = {}
    started = time.perf_counter()
    with dspy.context(lm=lm):
        for mode in settings.modes:
            rows = run_mode(
                records,
                GOLD_CONTEXT_MODES[mode],
                judge=judge,
                rows_path=settings.out_dir / f"{mode}.jsonl",
                concurrency=settings.concurrency,
                progress=progress,
            )
            summaries[mode] = summarize(rows)
    _write_results(settings, summaries, time.perf_counter() - started)
    return summaries


def _write_results(settings: EvalSettings, summaries: dict[str, Summary], seconds: float) -> None:
    results = {
        "settings": settings.model_dump(mode="json"),
        "wall_seconds": round(seconds, 1),
        "summaries": {name: s.model_dump() for name, s in summaries.items()},
    }
    settings.out_dir.mkdir(parents=True, exist_ok=True)
    (settings.out_dir / "results.json").write_text(json.dumps(results, indent=2))
