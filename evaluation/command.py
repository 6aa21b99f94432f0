"""``filingqa eval``: settings × one dataset split (or a committed slice of it), judged,
summarised, written to disk.

Each setting is a mode over a context: the record's gold context, or passages retrieved
from the dataset's index (``naive-rag`` always retrieves; FinanceBench defaults to
retrieved, the datasets that carry context to gold). Rows go to ``<out>/<setting>.jsonl``
as they finish (a rerun resumes), the summaries and settings to ``<out>/results.json``
(and to ``json_out`` when given).
"""

from __future__ import annotations

import json
import time
from collections import Counter
from contextlib import ExitStack
from functools import partial
from pathlib import Path
from typing import Any

import dspy
from pydantic import BaseModel

from filingqa.core.cache import use_fresh_dspy_cache
from filingqa.datasets import load_dataset
from filingqa.evaluation.modes import COMPILED_MODES, MODES, RETRIEVED_ONLY, build_mode
from filingqa.evaluation.open_corpus import (
    Context,
    OpenCorpus,
    default_context,
    index_location,
    index_spec,
    open_corpus,
    require_index,
)
from filingqa.evaluation.paired import Paired, compare_all
from filingqa.evaluation.published import append_published, restore_missing, write_published
from filingqa.evaluation.report import write_html_report
from filingqa.evaluation.runner import Row, read_rows, run_mode
from filingqa.evaluation.slices.committed import load_slice, select_slice
from filingqa.evaluation.summary import Summary, summarize
from filingqa.metrics.judge import StrictJudge
from filingqa.records import QARecord

REPORT_FILE = "report.html"


class EvalSettings(BaseModel):
    """What one ``eval`` run compares, on what, with which backbone.

    ``slice`` names a committed slice of the dataset (:mod:`~filingqa.evaluation.slices`)
    whose questions alone run, before ``where``, ``per_type`` (the first N questions of each
    answer type), ``skip`` (leave out the first N) and ``limit``; ``context`` None means the
    dataset's default; ``index`` None means the dataset's default index directory;
    ``regrade`` grades the rows already written again;
    ``program`` is the compiled artifact the ``compiled`` settings run; ``fresh_cache``
    starts every setting from an empty in-memory LM cache, so no setting reuses replies
    from earlier runs or from another setting (two settings can send identical prompts,
    e.g. a compiled program's first round with and without its router); ``publish`` is a
    folder that keeps a copy of every setting's rows without the dataset's text, to commit,
    and from which a run restores the rows its out dir lacks
    (:mod:`~filingqa.evaluation.published`); ``search`` holds the ``SearchSettings``
    changes the retrieved settings search with (the remote rerank stage, say).
    """

    dataset: str
    modes: list[str]
    lm: str
    judge_lm: str | None = None
    regrade: bool = False
    skip: int = 0
    limit: int | None = None
    per_type: int | None = None
    slice: str | None = None
    where: dict[str, str] = {}
    concurrency: int = 1
    context: Context | None = None
    index: Path | None = None
    program: Path | None = None
    out_dir: Path
    json_out: Path | None = None
    fresh_cache: bool = False
    publish: Path | None = None
    search: dict[str, Any] = {}


class Setting(BaseModel):
    """One mode over one context; ``label`` names its rows file and summary."""

    mode: str
    context: Context

    @property
    def label(self) -> str:
        plain = self.context == "gold" or self.mode in RETRIEVED_ONLY
        return self.mode if plain else f"{self.mode}@retrieved"


def plan_settings(settings: EvalSettings) -> list[Setting]:
    """The settings to run, in order; a clear error for unknown modes and impossible pairs."""
    unknown = [m for m in settings.modes if m not in MODES]
    if unknown:
        raise ValueError(f"unknown eval mode(s) {unknown}; available: {', '.join(MODES)}")
    compiled = [m for m in settings.modes if m in COMPILED_MODES]
    if compiled and settings.program is None:
        raise ValueError(f"{', '.join(compiled)} runs a compiled artifact: add --program DIR")
    if settings.program is not None and not compiled:
        raise ValueError(
            "--program DIR is run by the compiled settings: add --mode compiled and/or "
            "compiled+router (program is the uncompiled FinancialQA)"
        )
    retrieving = [m for m in settings.modes if m in RETRIEVED_ONLY]
    if retrieving and settings.context == "gold":
        raise ValueError(f"{', '.join(retrieving)} retrieves its evidence: drop --context gold")
    context = settings.context or default_context(settings.dataset)
    return [
        Setting(mode=m, context="retrieved" if m in RETRIEVED_ONLY else context)
        for m in settings.modes
    ]


def check_index(settings: EvalSettings) -> None:
    """Fail now (before an LM loads) if a setting retrieves and its index is not built.

    Raises:
        IndexMissingError: the message names the command that builds it.
    """
    if _retrieves(plan_settings(settings)):
        require_index(index_spec(settings.dataset), settings.index)


def check_slice(settings: EvalSettings) -> None:
    """Fail now (before an LM loads) if ``slice`` names no slice of the dataset.

    Raises:
        ValueError: the message lists the dataset's slices.
    """
    if settings.slice is not None:
        load_slice(settings.slice, dataset=settings.dataset)


def evaluation_records(settings: EvalSettings, data_dir: str | None = None) -> list[QARecord]:
    """The records a run answers: the slice's (if any), then ``where``, then the first
    ``per_type`` of each answer type, then all but the first ``skip``, then ``limit``; in
    dataset order.

    Raises:
        ValueError: no record is left, or the slice is not the dataset's.
    """
    records = load_dataset(settings.dataset, data_dir=data_dir)
    if settings.slice is not None:
        records = select_slice(records, load_slice(settings.slice, dataset=settings.dataset))
    records = select_records(records, settings.where)
    records = first_of_each_type(records, settings.per_type) if settings.per_type else records
    records = records[settings.skip :]
    records = records[: settings.limit] if settings.limit else records
    if not records:
        within = f" (slice {settings.slice})" if settings.slice else ""
        skipped = f" after skipping {settings.skip}" if settings.skip else ""
        raise ValueError(
            f"no records in {settings.dataset}{within} match {settings.where}{skipped}"
        )
    return records


def first_of_each_type(records: list[QARecord], count: int) -> list[QARecord]:
    """The first ``count`` records of each answer type (all of a type with fewer), in order."""
    taken: Counter[str] = Counter()
    chosen = []
    for record in records:
        if taken[record.answer_type] < count:
            taken[record.answer_type] += 1
            chosen.append(record)
    return chosen


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
    corpus: OpenCorpus | None = None,
    data_dir: str | None = None,
    progress: bool = True,
) -> dict[str, Summary]:
    """Run every setting on the same records with the same LM; write rows and results.

    Retrieved-context settings search ``corpus``; when None, the dataset's index is opened
    for the run.
    """
    plan = plan_settings(settings)
    records = evaluation_records(settings, data_dir)
    judge = StrictJudge(lm=judge_lm)
    summaries: dict[str, Summary] = {}
    answered: dict[str, list[Row]] = {}
    started = time.perf_counter()
    with ExitStack() as stack, dspy.context(lm=lm):
        if corpus is None and _retrieves(plan):
            corpus = stack.enter_context(
                open_corpus(settings.dataset, settings.index, search=settings.search)
            )
        for setting in plan:
            if settings.fresh_cache:
                use_fresh_dspy_cache()
            rows_path = settings.out_dir / f"{setting.label}.jsonl"
            published = settings.publish / rows_path.name if settings.publish else None
            if published is not None:
                _restore(published, rows_path, records, progress)
            rows = run_mode(
                records,
                build_mode(
                    setting.mode,
                    corpus if setting.context == "retrieved" else None,
                    settings.program,
                ),
                judge=judge,
                rows_path=rows_path,
                concurrency=settings.concurrency,
                regrade=settings.regrade,
                progress=progress,
                on_row=partial(append_published, published) if published else None,
            )
            if published is not None:  # the regraded and relabelled rows too
                write_published(published, rows)
            summaries[setting.label] = summarize(rows)
            answered[setting.label] = rows
    paired = compare_all(answered)
    _write_results(settings, plan, summaries, paired, time.perf_counter() - started)
    return summaries


def paired_results(settings: EvalSettings) -> list[Paired]:
    """Every setting of ``settings`` against each one listed before it, from the rows its
    run wrote (on the questions both have)."""
    plan = plan_settings(settings)
    rows = {s.label: read_rows(settings.out_dir / f"{s.label}.jsonl") for s in plan}
    return compare_all(rows)


def shared_path(path: Path | None) -> str | None:
    """``path`` without the machine's part: as given when relative, else its folder and
    name (``artifacts/qwen-local``)."""
    if path is None:
        return None
    return (Path(*path.parts[-2:]) if path.is_absolute() else path).as_posix()


def _restore(published: Path, rows_path: Path, records: list[QARecord], progress: bool) -> None:
    """Bring ``rows_path`` the published rows it lacks, then publish the rows only it had."""
    restored = restore_missing(published, rows_path, records)
    if restored and progress:
        print(f"{rows_path.stem}: {restored} row(s) restored from {published}")
    write_published(published, read_rows(rows_path))


def _retrieves(plan: list[Setting]) -> bool:
    return any(s.context == "retrieved" for s in plan)


def _write_results(
    settings: EvalSettings,
    plan: list[Setting],
    summaries: dict[str, Summary],
    paired: list[Paired],
    seconds: float,
) -> None:
    retrieving = _retrieves(plan)
    index = index_location(index_spec(settings.dataset), settings.index) if retrieving else None
    results = {
        "settings": settings.model_dump(mode="json"),
        "contexts": {s.label: s.context for s in plan},
        "index": str(index) if index else None,
        "wall_seconds": round(seconds, 1),
        "summaries": {name: s.model_dump() for name, s in summaries.items()},
        "paired": [p.model_dump() for p in paired],
    }
    text = json.dumps(results, indent=2)
    settings.out_dir.mkdir(parents=True, exist_ok=True)
    (settings.out_dir / "results.json").write_text(text)
    write_html_report(settings.out_dir / "results.json", settings.out_dir / REPORT_FILE)
    if settings.json_out is not None:
        settings.json_out.parent.mkdir(parents=True, exist_ok=True)
        settings.json_out.write_text(text)
    if settings.publish is not None:  # no machine paths
        shared = {key: results[key] for key in ("contexts", "summaries", "paired")}
        local = {"out_dir", "json_out", "index", "publish"}
        shared_settings = settings.model_dump(mode="json", exclude=local)
        shared["settings"] = shared_settings | {"program": shared_path(settings.program)}
        (settings.publish / "results.json").write_text(json.dumps(shared, indent=2))
