"""Crash safety of ``eval``: a run SIGKILLed twice at random moments finishes with the same
results as an uninterrupted one, with no duplicate and no lost row.

:func:`drive` runs ``filingqa eval``'s own entry (``run_evaluation``) in a subprocess
(``python -m filingqa.evaluation.robustness.kill_resume <job JSON>``) three ways: once uninterrupted
(the reference), then in a second output folder killed with SIGKILL when its rows file
reaches a random row count (plus a random fraction of a second), killed again later, and
rerun to the end. Each way has its own DSPy cache folder, so the killed run resumes from
its own cached LM calls. Compared: every row (answer, outcome, score, judge reason, working,
citations) and each summary's accuracy, outcomes and errors. Cost fields are reported, not
compared: an LM call served from the cache after a kill costs no tokens. ``lm="scripted"``
is a deterministic fake backbone over a synthetic FinQA split (a program per question,
every fourth one wrong, a fixed delay per call); any other ``lm`` is a backbone spec.
"""

from __future__ import annotations

import json
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import dspy
from dspy.lm15 import Usage
from pydantic import BaseModel, Field

from filingqa.lm.reply_engine import ReplyEngine

COMPARED_ROW_FIELDS = ("answer", "outcome", "score", "judge_reason", "working", "cited")
COMPARED_SUMMARY_FIELDS = ("questions", "accuracy", "outcomes", "errors", "by_answer_type")
SCRIPTED = "scripted"
SCRIPTED_DATASET = "finqa:killresume"
CALL_SECONDS = 0.1
SCRIPTED_CALL_USAGE = Usage(input_tokens=100, output_tokens=10, total_tokens=110)


class Job(BaseModel):
    """One eval run, as a worker subprocess runs it."""

    lm: str
    dataset: str
    data_dir: Path
    mode: str = Field(description="eval modes, comma-separated")
    questions: int
    out: Path
    cache_dir: Path


class Plan(BaseModel):
    """What :func:`drive` runs: the eval, where the kills fall, and how late after them."""

    lm: str = SCRIPTED
    dataset: str = SCRIPTED_DATASET
    data_dir: Path = Path("../shared/datasets")
    mode: str = "pot"
    questions: int = 30
    seed: int = 0
    max_delay: float = Field(default=0.3, description="seconds after the target row count")


# --- the worker: one eval run -------------------------------------------------------------


def worker(job: Job) -> int:
    """Run the evaluation once (what each subprocess does)."""
    from filingqa.evaluation.command import EvalSettings, run_evaluation

    lm = scripted_lm() if job.lm == SCRIPTED else _backbone(job.lm)
    dspy.configure_cache(
        enable_disk_cache=True, enable_memory_cache=True, disk_cache_dir=str(job.cache_dir)
    )
    settings = EvalSettings(
        dataset=job.dataset,
        modes=job.mode.split(","),
        lm=job.lm,
        limit=job.questions,
        context="gold",
        out_dir=job.out,
    )
    run_evaluation(settings, lm=lm, data_dir=str(job.data_dir), progress=False)
    return 0


def _backbone(spec: str) -> dspy.LM:
    from filingqa.lm.backbone import get_lm

    return get_lm(spec)


def scripted_program(prompt: str) -> str:
    """The scripted backbone's reply, after ``CALL_SECONDS``: for "What is A minus B?" the
    program ``result = A - B`` (``A + B`` for every fourth question)."""
    time.sleep(CALL_SECONDS)
    match = re.search(r"Question (\d+): what is ([\d.]+) minus ([\d.]+)", prompt)
    assert match is not None
    number, a, b = match.groups()
    operator = "+" if int(number) % 4 == 3 else "-"
    return f"```python\nresult = {a} {operator} {b}\n```"


def scripted_lm() -> dspy.LM:
    """A cached ``dspy.LM`` answering with :func:`scripted_program`."""
    engine = ReplyEngine(scripted_program, model=SCRIPTED, usage=SCRIPTED_CALL_USAGE)
    return dspy.LM("scripted/kill-resume", engine=engine, cache=True, num_retries=0)


def write_scripted_dataset(data_dir: Path, questions: int) -> None:
    """A FinQA-format split of ``questions`` subtraction questions over small tables."""
    rng = random.Random(questions)
    rows = []
    for n in range(questions):
        a, b = round(rng.uniform(500, 900), 1), round(rng.uniform(100, 400), 1)
        rows.append(
            {
                "id": f"KR/{n}",
                "filename": f"KR/2024/page_{n + 1}.pdf",
                "pre_text": [f"Question {n}: the table gives revenue and costs."],
                "post_text": [],
                "table": [["", "2024"], ["revenue", str(a)], ["costs", str(b)]],
                "qa": {
                    "question": f"Question {n}: what is {a} minus {b}?",
                    "answer": f"{a - b:.1f}",
                    "exe_ans": round(a - b, 1),
                    "program": f"subtract({a}, {b})",
                    "gold_inds": {},
                },
            }
        )
    folder = data_dir / "finqa"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "killresume.original_format.json").write_text(json.dumps(rows))


# --- the driver ---------------------------------------------------------------------------


def launch(job: Job) -> subprocess.Popen:
    """Start a worker subprocess on ``job`` in its own session (so it can be killed whole)."""
    command = [sys.executable, "-m", __name__, job.model_dump_json()]
    return subprocess.Popen(command, start_new_session=True, cwd=tempfile.gettempdir())


def rows_written(out: Path) -> int:
    """Rows the run in ``out`` has written so far, over every setting."""
    return sum(
        path.read_text(encoding="utf-8", errors="replace").count("\n")
        for path in out.glob("*.jsonl")
    )


def killed_run(job: Job, target: int, max_delay: float, rng: random.Random) -> dict[str, Any]:
    """Start a run and SIGKILL it once ``target`` rows are written (plus a random delay)."""
    process = launch(job)
    while process.poll() is None and rows_written(job.out) < target:
        time.sleep(0.02)
    if process.poll() is not None:
        return {"target_rows": target, "killed": False, "rows_at_kill": rows_written(job.out)}
    time.sleep(rng.uniform(0, max_delay))
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    return {"target_rows": target, "killed": True, "rows_at_kill": rows_written(job.out)}


def load_results(out: Path) -> dict[str, Any]:
    """Rows by setting and id, and summaries, of one output folder."""
    rows = {}
    for path in sorted(out.glob("*.jsonl")):
        lines = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        rows[path.stem] = lines
    return {"rows": rows, "results": json.loads((out / "results.json").read_text())}


def compare(reference: dict[str, Any], resumed: dict[str, Any]) -> list[str]:
    """Differences in compared fields; duplicates and missing rows included."""
    problems = []
    for setting, lines in reference["rows"].items():
        theirs = resumed["rows"].get(setting, [])
        ids = [row["id"] for row in theirs]
        if len(ids) != len(set(ids)):
            problems.append(f"{setting}: duplicate rows")
        ours = {row["id"]: row for row in lines}
        mine = {row["id"]: row for row in theirs}
        if set(ours) != set(mine):
            problems.append(f"{setting}: rows differ ({len(ours)} vs {len(mine)})")
        for row_id, row in ours.items():
            other = mine.get(row_id, {})
            for name in COMPARED_ROW_FIELDS:
                if row.get(name) != other.get(name):
                    problems.append(f"{setting} {row_id}: {name} differs")
    for setting, summary in reference["results"]["summaries"].items():
        other = resumed["results"]["summaries"].get(setting, {})
        for name in COMPARED_SUMMARY_FIELDS:
            if summary.get(name) != other.get(name):
                problems.append(f"summary {setting}: {name} differs")
    return problems


def cost(results: dict[str, Any]) -> dict[str, Any]:
    """LM calls and tokens of each setting of a loaded output folder."""
    return {
        name: {"lm_calls": s["lm_calls"], "tokens": s["tokens"]}
        for name, s in results["results"]["summaries"].items()
    }


def drive(plan: Plan) -> dict[str, Any]:
    """Run the reference, the twice-killed run and its completion; compare them.

    Raises:
        RuntimeError: the uninterrupted or the final resumed run failed.
    """
    rng = random.Random(plan.seed)
    work = Path(tempfile.mkdtemp(prefix="kill-resume-"))
    data_dir, dataset = plan.data_dir.resolve(), plan.dataset
    if plan.lm == SCRIPTED:
        data_dir, dataset = work / "data", SCRIPTED_DATASET
        write_scripted_dataset(data_dir, plan.questions)

    def job(name: str) -> Job:
        return Job(
            lm=plan.lm,
            dataset=dataset,
            data_dir=data_dir,
            mode=plan.mode,
            questions=plan.questions,
            out=work / name,
            cache_dir=work / f"cache-{name}",
        )

    started = time.perf_counter()
    if launch(job("reference")).wait() != 0:
        raise RuntimeError("the uninterrupted run failed")
    reference_seconds = time.perf_counter() - started
    total = plan.questions * len(plan.mode.split(","))
    first = rng.randint(1, max(1, total // 2))
    second = rng.randint(min(first + 1, total - 1), max(first + 1, total - 1))
    kills = [killed_run(job("resumed"), target, plan.max_delay, rng) for target in (first, second)]
    if launch(job("resumed")).wait() != 0:
        raise RuntimeError("the resumed run failed")
    reference, resumed = load_results(work / "reference"), load_results(work / "resumed")
    problems = compare(reference, resumed)
    return {
        "lm": plan.lm,
        "dataset": dataset,
        "mode": plan.mode,
        "questions": plan.questions,
        "reference_seconds": round(reference_seconds, 1),
        "kills": kills,
        "identical": not problems,
        "differences": problems,
        "cost_reference": cost(reference),
        "cost_resumed": cost(resumed),
        "work_dir": str(work),
    }


if __name__ == "__main__":
    sys.exit(worker(Job.model_validate_json(sys.argv[1])))
