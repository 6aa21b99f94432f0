"""Crash safety of ``eval``: a run SIGKILLed twice at random moments finishes with the same
results as an uninterrupted one, with no duplicate and no lost row.

    python benchmarks/kill_resume.py --lm scripted [--questions 30] [--seed 0]
    python benchmarks/kill_resume.py --lm local --dataset finqa:dev_sample200 \\
        --data-dir ../shared/datasets --mode pot [--questions 30]

Runs ``filingqa eval``'s own entry (``run_evaluation``) in a subprocess three ways: once
uninterrupted (the reference), then in a second output folder killed with SIGKILL when its
rows file reaches a random row count (plus a random fraction of a second), killed again
later, and rerun to the end. Each way has its own DSPy cache folder, so the killed run
resumes from its own cached LM calls. Compared: every row (answer, outcome, score, judge
reason, working, citations) and each summary's accuracy, outcomes and errors. Cost fields
are reported, not compared: an LM call served from the cache after a kill costs no tokens.
``--lm scripted`` is a deterministic fake backbone over a synthetic 30-question FinQA split
(a program per question, every fourth one wrong, 0.1 s per call); ``--lm local`` is the
embedded model. Prints the verdict, writes JSON, exits 1 when the results differ.
"""

from __future__ import annotations

import argparse
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

COMPARED_ROW_FIELDS = ("answer", "outcome", "score", "judge_reason", "working", "cited")
COMPARED_SUMMARY_FIELDS = ("questions", "accuracy", "outcomes", "errors", "by_answer_type")
SCRIPTED_DATASET = "finqa:killresume"
CALL_SECONDS = 0.1


# --- the worker: one eval run -----------------------------------------------------------


def worker(args: argparse.Namespace) -> int:
    """Run the evaluation once (what each subprocess does)."""
    import dspy

    from filingqa.evaluation.command import EvalSettings, run_evaluation

    lm = scripted_lm() if args.lm == "scripted" else _backbone(args.lm)
    dspy.configure_cache(
        enable_disk_cache=True, enable_memory_cache=True, disk_cache_dir=str(args.cache_dir)
    )
    settings = EvalSettings(
        dataset=args.dataset,
        modes=args.mode.split(","),
        lm=args.lm,
        limit=args.questions,
        context="gold",
        out_dir=args.out,
    )
    run_evaluation(settings, lm=lm, data_dir=str(args.data_dir), progress=False)
    return 0


def _backbone(spec: str):
    from filingqa.lm.backbone import get_lm

    return get_lm(spec)


class ScriptedEngine:
    """A deterministic backbone: for "What is A minus B?" it writes ``result = A - B`` (or
    ``A + B`` for every fourth question), after ``CALL_SECONDS``."""

    def complete(self, request):
        from dspy.lm15 import Message, Response, TextPart, Usage

        prompt = "\n".join(m.text or "" for m in request.messages)
        time.sleep(CALL_SECONDS)
        number, a, b = re.search(
            r"Question (\d+): what is ([\d.]+) minus ([\d.]+)", prompt
        ).groups()
        operator = "+" if int(number) % 4 == 3 else "-"
        code = f"```python\nresult = {a} {operator} {b}\n```"
        return Response(
            id=None,
            model="scripted",
            message=Message.assistant([TextPart(code)]),
            finish_reason="stop",
            usage=Usage(input_tokens=100, output_tokens=10, total_tokens=110),
        )

    def stream(self, request):
        from dspy.lm15 import response_to_events

        return response_to_events(self.complete(request))

    def close(self) -> None:
        pass


def scripted_lm():
    import dspy

    return dspy.LM("scripted/kill-resume", engine=ScriptedEngine(), cache=True, num_retries=0)


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


def launch(args: argparse.Namespace, out: Path, cache: Path) -> subprocess.Popen:
    command = [
        sys.executable, __file__, "--worker", "--lm", args.lm, "--dataset", args.dataset,
        "--data-dir", str(args.data_dir), "--mode", args.mode,
        "--questions", str(args.questions), "--out", str(out), "--cache-dir", str(cache),
    ]  # fmt: skip
    return subprocess.Popen(command, start_new_session=True, cwd=tempfile.gettempdir())


def rows_written(out: Path) -> int:
    return sum(
        path.read_text(encoding="utf-8", errors="replace").count("\n")
        for path in out.glob("*.jsonl")
    )


def killed_run(args: argparse.Namespace, out: Path, cache: Path, target: int, rng) -> dict:
    """Start a run and SIGKILL it once ``target`` rows are written (plus a random delay)."""
    process = launch(args, out, cache)
    while process.poll() is None and rows_written(out) < target:
        time.sleep(0.02)
    if process.poll() is not None:
        return {"target_rows": target, "killed": False, "rows_at_kill": rows_written(out)}
    time.sleep(rng.uniform(0, args.max_delay))
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    return {"target_rows": target, "killed": True, "rows_at_kill": rows_written(out)}


def load_results(out: Path) -> dict:
    """Rows by setting and id, and summaries, of one output folder."""
    rows = {}
    for path in sorted(out.glob("*.jsonl")):
        lines = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        rows[path.stem] = lines
    return {"rows": rows, "results": json.loads((out / "results.json").read_text())}


def compare(reference: dict, resumed: dict) -> list[str]:
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


def cost(results: dict) -> dict:
    return {
        name: {"lm_calls": s["lm_calls"], "tokens": s["tokens"]}
        for name, s in results["results"]["summaries"].items()
    }


def drive(args: argparse.Namespace) -> dict:
    rng = random.Random(args.seed)
    work = Path(tempfile.mkdtemp(prefix="kill-resume-"))
    if args.lm == "scripted":
        args.data_dir, args.dataset = work / "data", SCRIPTED_DATASET
        write_scripted_dataset(args.data_dir, args.questions)
    started = time.perf_counter()
    if launch(args, work / "reference", work / "cache-reference").wait() != 0:
        raise SystemExit("the uninterrupted run failed")
    reference_seconds = time.perf_counter() - started
    total = args.questions * len(args.mode.split(","))
    first = rng.randint(1, max(1, total // 2))
    second = rng.randint(min(first + 1, total - 1), max(first + 1, total - 1))
    kills = [
        killed_run(args, work / "resumed", work / "cache-resumed", target, rng)
        for target in (first, second)
    ]
    if launch(args, work / "resumed", work / "cache-resumed").wait() != 0:
        raise SystemExit("the resumed run failed")
    reference, resumed = load_results(work / "reference"), load_results(work / "resumed")
    problems = compare(reference, resumed)
    return {
        "lm": args.lm,
        "dataset": args.dataset,
        "mode": args.mode,
        "questions": args.questions,
        "reference_seconds": round(reference_seconds, 1),
        "kills": kills,
        "identical": not problems,
        "differences": problems,
        "cost_reference": cost(reference),
        "cost_resumed": cost(resumed),
        "work_dir": str(work),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lm", default="scripted", help="scripted, local, or a litellm string")
    parser.add_argument("--dataset", default=SCRIPTED_DATASET)
    parser.add_argument("--data-dir", type=Path, default=Path("../shared/datasets"))
    parser.add_argument("--mode", default="pot", help="eval modes, comma-separated")
    parser.add_argument("--questions", type=int, default=30)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-delay", type=float, default=0.3, help="seconds after the target")
    parser.add_argument("--json", type=Path, default=Path("results/kill_resume.json"))
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--cache-dir", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        return worker(args)
    args.data_dir = args.data_dir.resolve()
    report = drive(args)
    for number, kill in enumerate(report["kills"], 1):
        state = "SIGKILL" if kill["killed"] else "finished before the kill"
        print(
            f"kill {number}: {state} at {kill['rows_at_kill']} rows (target {kill['target_rows']})"
        )
    verdict = (
        "identical" if report["identical"] else "DIFFERENT: " + "; ".join(report["differences"][:5])
    )
    print(f"{report['questions']} questions, --lm {report['lm']}: results {verdict}")
    print(f"cost reference {report['cost_reference']} / resumed {report['cost_resumed']}")
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(report, indent=2))
    return 0 if report["identical"] else 1


if __name__ == "__main__":
    sys.exit(main())
