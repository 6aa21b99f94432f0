"""Run one setting over records: judged rows appended to a JSONL file as they finish, so an
interrupted run resumes where it stopped (rows already written are not run again). Rows
graded by exact match because no judge LM was given are graded again, answers unchanged,
when a later run has one; ``regrade`` grades every written row again. Every written row's
official metrics, question type and whether its filings are in the corpus are brought up
to date (no LM needed)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from contextvars import copy_context
from pathlib import Path
from typing import Any

import dspy
from dspy.utils.callback import BaseCallback
from pydantic import BaseModel
from tqdm import tqdm

from filingqa.datasets.question_types import question_type
from filingqa.evaluation.modes import Mode, ModeAnswer
from filingqa.evaluation.official import official_scores
from filingqa.evaluation.open_corpus import PageRef
from filingqa.lm.trace import CallLog, Step, call_costs
from filingqa.metrics.judge import StrictJudge, Verdict
from filingqa.records import QARecord


class Row(BaseModel):
    """One judged answer with its cost, the (doc, page) pairs it cited and retrieved, and
    the program's steps (each with its LM calls, tokens, seconds and note).

    ``cached_calls`` of the ``lm_calls`` were answered from DSPy's response cache: they cost
    no tokens and almost no time, so a row with some is not a cold run's latency.
    ``prompt_tokens``, ``prompt_tokens_evaluated``, ``generated_tokens``, ``prefill_seconds``
    and ``generation_seconds`` total the question's calls that reached the model
    (:func:`~filingqa.lm.trace.call_costs`); None in a row written before they were recorded,
    and seconds None when the backbone reports none.

    ``retrieved`` is None over gold context; ``gold_retrieved`` says whether a gold evidence
    page was among the retrieved pages (None: not retrieved, or no gold page known);
    ``given`` and ``gold_given`` the same of the pages the answer was read from (None in a
    row written before they were recorded).

    ``official`` holds the dataset's own metric(s) of the answer, by name (empty where the
    dataset has none; see :mod:`~filingqa.evaluation.official`); ``question_type`` is the
    dataset's label of the question (:mod:`~filingqa.datasets.question_types`);
    ``in_corpus`` whether the filings its gold evidence comes from are in the dataset's
    corpus (FinanceBench: their PDFs are; None where the dataset does not say).
    """

    id: str
    question: str
    gold: str
    answer: str
    outcome: str
    score: float
    judge_reason: str
    judge_stage: str
    answer_type: str
    lm_calls: int
    tokens: int
    seconds: float
    cached_calls: int = 0
    working: str = ""
    note: str = ""
    error: str | None = None
    cited: list[PageRef] = []
    retrieved: list[PageRef] | None = None
    gold_retrieved: bool | None = None
    given: list[PageRef] | None = None
    gold_given: bool | None = None
    steps: list[Step] = []
    official: dict[str, float] = {}
    question_type: str = ""
    in_corpus: bool | None = None
    prompt_tokens: int | None = None
    prompt_tokens_evaluated: int | None = None
    generated_tokens: int | None = None
    prefill_seconds: float | None = None
    generation_seconds: float | None = None


def run_mode(
    records: Iterable[QARecord],
    mode: Mode,
    *,
    judge: StrictJudge,
    rows_path: Path,
    concurrency: int = 1,
    regrade: bool = False,
    progress: bool = True,
    on_row: Callable[[Row], None] | None = None,
) -> list[Row]:
    """Answer and judge every record not yet in ``rows_path``; return all rows in order.

    Rows already written are graded again (answers kept) when ``regrade``, or when they
    were graded by exact match and ``judge`` has an LM. ``on_row`` gets each new row once
    it is written.
    """
    records = list(records)
    done = {row.id: row for row in read_rows(rows_path)}
    todo = [r for r in records if r.id not in done]
    rows_path.parent.mkdir(parents=True, exist_ok=True)
    _drop_torn_tail(rows_path)
    _regrade(records, done, judge, rows_path, regrade=regrade, progress=progress)
    lock = threading.Lock()
    bar = tqdm(
        total=len(records),
        initial=len(records) - len(todo),
        desc=rows_path.stem,  # the setting's label
        disable=not progress,
    )

    stop = threading.Event()

    def work(record: QARecord) -> None:
        if stop.is_set():
            return
        try:
            row = answer_and_judge(record, mode, judge)
        except BaseException:  # ctrl-C: no new question starts
            stop.set()
            raise
        with lock:
            with rows_path.open("a", encoding="utf-8") as out:
                out.write(row.model_dump_json() + "\n")
            if on_row is not None:
                on_row(row)
            done[row.id] = row
            bar.update()

    pool = ThreadPoolExecutor(max_workers=max(1, concurrency))
    try:
        for future in [pool.submit(copy_context().run, work, r) for r in todo]:
            future.result()
    finally:  # on ctrl-C, questions not started are dropped; rows written so far are kept
        stop.set()
        pool.shutdown(wait=True, cancel_futures=True)
        bar.close()
    return [done[r.id] for r in records]


class CallCounter(BaseCallback):
    """Counts the LM calls made in its context, answered from DSPy's cache or not (the
    usage tracker sees only the calls that reached the model)."""

    def __init__(self) -> None:
        self.calls = 0
        self._lock = threading.Lock()

    def on_lm_end(
        self, call_id: str, outputs: object, exception: BaseException | None = None
    ) -> None:
        with self._lock:
            self.calls += 1


def answer_and_judge(record: QARecord, mode: Mode, judge: StrictJudge) -> Row:
    """One record through ``mode``; a failure is a wrong answer with the error kept.

    ``lm_calls`` counts every call the mode made, cached ones included (what the question
    costs when nothing is cached); ``tokens`` are those the model processed in this run, and
    the calls that reached the model are those that reported usage.
    """
    counter = CallCounter()
    log = CallLog()
    started = time.perf_counter()
    error = None
    callbacks = [*dspy.settings.get("callbacks", []), counter]
    with dspy.context(callbacks=callbacks), log.recording():
        try:
            answer = mode(record)
        except Exception as problem:
            error = f"{type(problem).__name__}: {problem}"
            answer = ModeAnswer(answer="", outcome="error", note=error)
    seconds = time.perf_counter() - started
    reached = sum(bool(entry.get("usage")) for entry in log.history)
    verdict = _verdict(judge, record, answer.answer)
    return Row(
        id=record.id,
        question=record.question,
        gold=record.answer,
        answer=answer.answer,
        outcome=answer.outcome,
        score=verdict.score,
        judge_reason=verdict.reason,
        judge_stage=verdict.stage,
        answer_type=record.answer_type,
        lm_calls=counter.calls,
        seconds=round(seconds, 3),
        cached_calls=max(0, counter.calls - reached),
        working=answer.working,
        note=answer.note,
        error=error,
        cited=answer.cited,
        retrieved=answer.retrieved,
        gold_retrieved=answer.gold_retrieved,
        given=answer.given,
        gold_given=answer.gold_given,
        steps=answer.steps,
        **_labels(record, answer.answer),
        **call_costs(log.history),
    )


def _labels(record: QARecord, answer: str) -> dict[str, Any]:
    """The row fields read from the record and answer alone: official metrics, question type,
    whether its filings are in the corpus."""
    missing = record.meta.get("missing_pdfs")
    return {
        "official": official_scores(record, answer),
        "question_type": question_type(record),
        "in_corpus": None if missing is None else not missing,
    }


def _regrade(
    records: list[QARecord],
    done: dict[str, Row],
    judge: StrictJudge,
    path: Path,
    *,
    regrade: bool,
    progress: bool,
) -> None:
    """Grade again every written row (``regrade``), or, when the judge has an LM, those
    graded by exact match or whose judging failed; bring every row's official metrics and
    question type up to date (no LM). The answers stay as they were; the file is rewritten
    once, if anything changed."""
    only_unjudged = judge.lm is not None and not regrade
    written = [r for r in records if r.id in done]
    stale = [
        r
        for r in written
        if regrade or (only_unjudged and done[r.id].judge_stage in ("exact", "failed"))
    ]
    changed = False
    desc = f"{path.stem}: grading again with the judge LM"
    for record in tqdm(stale, desc=desc, disable=not progress):
        verdict = _verdict(judge, record, done[record.id].answer)
        graded = {
            "score": verdict.score,
            "judge_reason": verdict.reason,
            "judge_stage": verdict.stage,
        }
        done[record.id] = done[record.id].model_copy(update=graded)
        changed = True
    for record in written:
        row = done[record.id]
        labels = _labels(record, row.answer)
        if any(getattr(row, field) != value for field, value in labels.items()):
            done[record.id] = row.model_copy(update=labels)
            changed = True
    if changed:
        temporary = path.with_suffix(".regraded")
        temporary.write_text("".join(row.model_dump_json() + "\n" for row in done.values()))
        temporary.replace(path)


def _verdict(judge: StrictJudge, record: QARecord, answer: str) -> Verdict:
    """The judge's verdict; a judge that fails (an unparsable LLM reply) scores 0 with stage
    ``failed``, and a later run with a judge LM grades that row again."""
    try:
        return judge.judge(
            record.question,
            record.answer,
            answer,
            answer_type=record.answer_type,
            scale=record.scale or None,
            unit=record.unit,
        )
    except Exception as failure:
        reason = f"judge failed: {type(failure).__name__}: {str(failure)[:300]}"
        return Verdict(score=0, reason=reason, stage="failed")


def read_rows(path: Path) -> list[Row]:
    """Rows already written to ``path``; a torn last line (a killed run) is skipped."""
    if not path.exists():
        return []
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            rows.append(Row.model_validate(json.loads(line)))
        except (json.JSONDecodeError, ValueError):
            continue
    return rows


def _drop_torn_tail(path: Path) -> None:
    """Cut a last line left unfinished by a killed run, so appends start on a new line."""
    if not path.exists():
        return
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        path.write_bytes(data[: data.rfind(b"\n") + 1])
