"""TAT-QA dev arithmetic with gold context: direct answer vs Program-of-Thought in the sandbox.

Same backbone, same questions, one run. Each answer is scored by the strict judge's
deterministic numeric stage against the gold (answer and scale). ``bare_prompt`` is the
reference the foundation issue names: one plain user message (context, question, "write
Python that stores the answer in `result`"), no signature, no repair. PoT is reported on its
first program, after up to two self-repair rounds fed the sandbox's error (``pot``: one
greedy sample, what ``filingqa ask`` runs), and as a self-consistency vote over
``--samples`` programs (``pot_voteN``; sample 0 is the greedy one, so one run measures both).
Each question's row is appended to ``<json>.rows.jsonl`` as it finishes; rerunning with the
same settings resumes there.

    python benchmarks/tatqa_baseline.py [--lm local] [--limit 100] [--samples N] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from datetime import datetime
from pathlib import Path
from typing import Any

import dspy
from tqdm import tqdm

from filingqa.datasets import load_dataset
from filingqa.lm.backbone import adapter_for, get_lm
from filingqa.lm.code_adapter import extract_code
from filingqa.metrics.judge import StrictJudge
from filingqa.program.pot import CODE_CONFIG, ProgramOfThought, answer_text
from filingqa.records import QARecord
from filingqa.sandbox import run_python
from filingqa.signatures.direct import AnswerDirectly


def arithmetic_questions(limit: int, data_dir: str | None) -> list[QARecord]:
    """The first ``limit`` TAT-QA dev questions whose answer type is arithmetic."""
    records = load_dataset("tatqa:dev", data_dir=data_dir)
    return [r for r in records if r.meta.get("tatqa_answer_type") == "arithmetic"][:limit]


def _cost(lm: dspy.LM, before: int, started: float) -> dict[str, Any]:
    calls = lm.history[before:]
    return {
        "lm_calls": len(calls),
        "tokens": sum((c.get("usage") or {}).get("total_tokens") or 0 for c in calls),
        "seconds": time.perf_counter() - started,
    }


def run_direct(record: QARecord, lm: dspy.LM) -> dict[str, Any]:
    before, started = len(lm.history), time.perf_counter()
    try:
        with dspy.context(adapter=adapter_for(lm)):
            answer = dspy.Predict(AnswerDirectly)(
                question=record.question, evidence=record.context_text()
            ).answer
    except Exception as problem:  # a parse failure is a wrong answer, not a crash
        answer = f"<error: {type(problem).__name__}>"
    return {"answer": answer, **_cost(lm, before, started)}


BARE_PROMPT = (
    "{evidence}\n\nQuestion: {question}\n\n"
    "Write Python code that computes the answer and stores it in a variable named `result`."
)


def run_bare_prompt(record: QARecord, lm: dspy.LM) -> dict[str, Any]:
    """The reference bare prompt: one user message, the reply's code run in the sandbox."""
    before, started = len(lm.history), time.perf_counter()
    prompt = BARE_PROMPT.format(evidence=record.context_text(), question=record.question)
    completion = lm(prompt, **CODE_CONFIG)[0]  # one user message
    text = completion if isinstance(completion, str) else completion.get("text", "")
    program = extract_code(text)
    execution = run_python(program)
    return {"answer": answer_text(execution), "program": program, **_cost(lm, before, started)}


def run_pot(record: QARecord, lm: dspy.LM, tables_as_rows: bool, samples: int) -> dict[str, Any]:
    before, started, started_at = len(lm.history), time.perf_counter(), datetime.now()
    pot = ProgramOfThought(tables_as_rows=tables_as_rows, samples=samples)
    prediction = pot(question=record.question, evidence=record.context_text())
    return {
        "answer": prediction.answer,
        "votes": prediction.votes,
        "first_answer": answer_text(prediction.attempts[0].execution),
        "greedy_answer": answer_text(prediction.finals[0].execution),
        "program": prediction.program,
        "attempts": len(prediction.attempts),
        "error": prediction.execution.error.kind if prediction.execution.error else None,
        "result_source": prediction.execution.result_source,
        "first_cost": _cost_of_calls(lm, before, 1, started_at),
        "greedy": _cost_of_calls(
            lm, before, sum(a.sample == 0 for a in prediction.attempts), started_at
        ),
        **_cost(lm, before, started),
    }


def _cost_of_calls(lm: dspy.LM, before: int, count: int, started_at: datetime) -> dict[str, Any]:
    """Cost of the first ``count`` calls since ``before``: sample 0 (greedy) runs first, so
    this is exactly what a one-sample run, or its first program alone, spends."""
    calls = lm.history[before : before + count]
    finished = datetime.fromisoformat(calls[-1]["timestamp"]) if calls else started_at
    return {
        "lm_calls": len(calls),
        "tokens": sum((c.get("usage") or {}).get("total_tokens") or 0 for c in calls),
        "seconds": (finished - started_at).total_seconds(),
    }


def _resume(checkpoint: Path, settings: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Rows of an interrupted run with the same settings (the first line records them).

    A checkpoint written with other settings is started afresh; a torn last line is dropped.
    """
    lines = checkpoint.read_text(encoding="utf-8").splitlines() if checkpoint.exists() else []
    if not lines or json.loads(lines[0]) != {"settings": settings}:
        checkpoint.parent.mkdir(parents=True, exist_ok=True)
        checkpoint.write_text(json.dumps({"settings": settings}) + "\n", encoding="utf-8")
        return {}
    rows = {}
    for line in lines[1:]:
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            break
        rows[row["id"]] = row
    kept = [json.dumps({"settings": settings}), *(json.dumps(r) for r in rows.values())]
    checkpoint.write_text("\n".join(kept) + "\n", encoding="utf-8")
    return rows


def _summary(rows: list[dict[str, Any]], mode: str) -> dict[str, Any]:
    results = [row["modes"][mode] for row in rows]
    return {
        "accuracy": sum(r["correct"] for r in results) / len(results),
        "mean_seconds": statistics.mean(r["seconds"] for r in results),
        "mean_tokens": statistics.mean(r["tokens"] for r in results),
        "mean_lm_calls": statistics.mean(r["lm_calls"] for r in results),
    }


def _modes(
    direct: dict[str, Any], bare: dict[str, Any], pot: dict[str, Any], samples: int
) -> dict[str, Any]:
    """Each reported setting with its answer and cost; ``pot`` is the greedy sample alone."""
    modes = {
        "direct": direct,
        "bare_prompt": bare,
        "pot_first_program": {"answer": pot["first_answer"], **pot["first_cost"]},
        "pot": {"answer": pot["greedy_answer"], **pot["greedy"]},
    }
    if samples > 1:
        cost = {key: pot[key] for key in ("seconds", "tokens", "lm_calls")}
        modes[f"pot_vote{samples}"] = {"answer": pot["answer"], **cost}
    return modes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lm", default="local")
    parser.add_argument("--api-base")
    parser.add_argument("--limit", type=int, default=100)
    parser.add_argument("--data-dir")
    parser.add_argument(
        "--tables",
        choices=("rows", "pipes"),
        default="pipes",
        help="how PoT sees tables: the pipe table (default, as ProgramOfThought) or labelled rows",
    )
    parser.add_argument(
        "--samples",
        type=int,
        default=1,
        help="PoT samples; above 1 adds a self-consistency vote (pot_voteN) beside the greedy "
        "sample (default 1, greedy only; docs/experiments.md has how a vote compared)",
    )
    parser.add_argument("--json", type=Path, default=Path("results/tatqa_baseline.json"))
    args = parser.parse_args()

    lm = get_lm(args.lm, api_base=args.api_base, cache=False)
    judge = StrictJudge(lm=None)
    records = arithmetic_questions(args.limit, args.data_dir)
    checkpoint = args.json.with_suffix(".rows.jsonl")
    settings = {"lm": args.lm, "tables": args.tables, "samples": args.samples, "bare": True}
    done = _resume(checkpoint, settings)
    with dspy.context(lm=lm):
        todo = [record for record in records if record.id not in done]
        for record in tqdm(todo, desc="tatqa", initial=len(done), total=len(records)):

            def score(answer: str, record: QARecord = record) -> float:
                return judge.judge(
                    record.question, record.answer, answer, answer_type="number", scale=record.scale
                ).score

            direct = run_direct(record, lm)
            bare = run_bare_prompt(record, lm)
            pot = run_pot(record, lm, args.tables == "rows", args.samples)
            modes = _modes(direct, bare, pot, args.samples)
            for result in modes.values():
                result["correct"] = score(result["answer"])
            row = {
                "id": record.id,
                "question": record.question,
                "gold": record.answer,
                "scale": record.scale,
                "modes": modes,
                "pot_trace": pot,
            }
            with checkpoint.open("a", encoding="utf-8") as out:
                out.write(json.dumps(row) + "\n")
            done[record.id] = row
    rows = [done[record.id] for record in records]
    names = list(rows[0]["modes"]) if rows else []
    report = {
        "lm": args.lm,
        "pot_tables": args.tables,
        "pot_samples": args.samples,
        "questions": len(rows),
        "summary": {name: _summary(rows, name) for name in names},
        "pot_execution_failures": sum(r["pot_trace"]["error"] is not None for r in rows),
        "pot_result_inferred": sum(
            r["pot_trace"]["result_source"] not in (None, "result") for r in rows
        ),
        "rows": rows,
    }
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(report, indent=2))
    print(
        f"TAT-QA dev arithmetic, first {len(rows)}, gold context, lm={args.lm}, "
        f"PoT tables as {args.tables}"
    )
    print(f"{'mode':<20}{'accuracy':>10}{'s/question':>12}{'tokens/q':>10}{'calls/q':>9}")
    for name in names:
        s = report["summary"][name]
        print(
            f"{name:<20}{s['accuracy']:>10.1%}{s['mean_seconds']:>12.1f}"
            f"{s['mean_tokens']:>10.0f}{s['mean_lm_calls']:>9.2f}"
        )
    print(
        f"chosen PoT programs that still failed after repair: {report['pot_execution_failures']}; "
        f"result inferred from the last expression/assignment: {report['pot_result_inferred']}"
    )
    print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
