"""TAT-QA dev arithmetic with gold context: direct answer vs Program-of-Thought in the sandbox.

Same backbone, same questions, one run. Each answer is scored by the strict judge's
deterministic numeric stage against the gold (answer and scale). PoT is reported both on
its first program and after up to two self-repair rounds fed the sandbox's error.

    python benchmarks/tatqa_baseline.py [--lm local] [--limit 100] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path
from typing import Any

import dspy
from tqdm import tqdm

from filingqa.datasets import QARecord, load_dataset
from filingqa.metrics.judge import StrictJudge
from filingqa.program.lm import adapter_for, get_lm
from filingqa.program.pot import ProgramOfThought, answer_text
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


def run_pot(record: QARecord, lm: dspy.LM) -> dict[str, Any]:
    before, started = len(lm.history), time.perf_counter()
    prediction = ProgramOfThought()(question=record.question, evidence=record.context_text())
    first = prediction.attempts[0]
    return {
        "answer": prediction.answer,
        "first_answer": answer_text(first.execution),
        "program": prediction.program,
        "attempts": len(prediction.attempts),
        "error": prediction.execution.error.kind if prediction.execution.error else None,
        "result_source": prediction.execution.result_source,
        **_cost(lm, before, started),
    }


def _summary(rows: list[dict[str, Any]], key: str, correct: str) -> dict[str, Any]:
    return {
        "accuracy": sum(r[key][correct] for r in rows) / len(rows),
        "mean_seconds": statistics.mean(r[key]["seconds"] for r in rows),
        "mean_tokens": statistics.mean(r[key]["tokens"] for r in rows),
        "mean_lm_calls": statistics.mean(r[key]["lm_calls"] for r in rows),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lm", default="local")
    parser.add_argument("--api-base")
    parser.add_argument("--limit", type=int, default=100)
    parser.add_argument("--data-dir")
    parser.add_argument("--json", type=Path, default=Path("results/tatqa_baseline.json"))
    args = parser.parse_args()

    lm = get_lm(args.lm, api_base=args.api_base, cache=False)
    judge = StrictJudge(lm=None)
    rows = []
    with dspy.context(lm=lm):
        for record in tqdm(arithmetic_questions(args.limit, args.data_dir), desc="tatqa"):

            def score(answer: str, record: QARecord = record) -> float:
                return judge.judge(
                    record.question, record.answer, answer, answer_type="number", scale=record.scale
                ).score

            direct, pot = run_direct(record, lm), run_pot(record, lm)
            direct["correct"] = score(direct["answer"])
            pot["correct"] = score(pot["answer"])
            pot["first_correct"] = score(pot["first_answer"])
            rows.append(
                {
                    "id": record.id,
                    "question": record.question,
                    "gold": record.answer,
                    "scale": record.scale,
                    "direct": direct,
                    "pot": pot,
                }
            )
    report = {
        "lm": args.lm,
        "questions": len(rows),
        "direct": _summary(rows, "direct", "correct"),
        "pot_first_program": _summary(rows, "pot", "first_correct"),
        "pot_with_repair": _summary(rows, "pot", "correct"),
        "pot_execution_failures": sum(r["pot"]["error"] is not None for r in rows),
        "pot_result_inferred": sum(r["pot"]["result_source"] not in (None, "result") for r in rows),
        "rows": rows,
    }
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(report, indent=2))
    print(f"TAT-QA dev arithmetic, first {len(rows)}, gold context, lm={args.lm}")
    print(f"{'mode':<20}{'accuracy':>10}{'s/question':>12}{'tokens/q':>10}{'calls/q':>9}")
    for name in ("direct", "pot_first_program", "pot_with_repair"):
        s = report[name]
        print(
            f"{name:<20}{s['accuracy']:>10.1%}{s['mean_seconds']:>12.1f}"
            f"{s['mean_tokens']:>10.0f}{s['mean_lm_calls']:>9.2f}"
        )
    print(
        f"PoT programs that still failed after repair: {report['pot_execution_failures']}; "
        f"result inferred from the last expression/assignment: {report['pot_result_inferred']}"
    )
    print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
