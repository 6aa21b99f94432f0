"""Parse-failure rate of a backbone over N calls of a typed signature (the judge's).

Each call grades a FinanceBench dev question's gold answer against either the same gold
(expected score 1) or another question's gold (expected 0), through ``JudgeAnswer``: typed
outputs ``reason: str`` and ``score: Literal[0, 0.5, 1]``. A call fails to parse when the
adapter cannot turn the LM's text into those fields. Caching is off so every call runs.

    python benchmarks/parse_failures.py [--lm local] [--calls 50] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import dspy
from dspy.utils.exceptions import AdapterParseError
from tqdm import tqdm

from filingqa.core.config import data_dir
from filingqa.datasets import load_dataset
from filingqa.lm.backbone import adapter_for, get_lm
from filingqa.metrics.judge_signature import JudgeAnswer


def _triples(calls: int, folder: Path) -> list[tuple[str, str, str, int]]:
    """(question, gold, prediction, expected score) — alternating matched and mismatched."""
    records = load_dataset("financebench:dev", data_dir=folder)
    triples = []
    for index in range(calls):
        record = records[index % len(records)]
        other = records[(index + 7) % len(records)]
        matched = index % 2 == 0
        triples.append(
            (
                record.question,
                record.answer,
                record.answer if matched else other.answer,
                1 if matched else 0,
            )
        )
    return triples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lm", default="local")
    parser.add_argument("--api-base")
    parser.add_argument("--calls", type=int, default=50)
    parser.add_argument("--data-dir")
    parser.add_argument("--json", type=Path, default=Path("results/parse_failures.json"))
    args = parser.parse_args()

    lm = get_lm(args.lm, api_base=args.api_base, cache=False)
    grade = dspy.Predict(JudgeAnswer)
    failures, agreements, seconds, errors, rows = 0, 0, [], [], []
    with dspy.context(lm=lm, adapter=adapter_for(lm)):
        for question, gold, prediction, expected in tqdm(
            _triples(args.calls, data_dir(args.data_dir))
        ):
            started = time.perf_counter()
            try:
                graded = grade(
                    question=question,
                    gold_answer=gold,
                    predicted_answer=prediction,
                    answer_category="explanation",
                )
                agreements += int(float(graded.score) == expected)
                rows.append(
                    {"expected": expected, "score": float(graded.score), "reason": graded.reason}
                )
            except AdapterParseError as problem:
                failures += 1
                errors.append(str(problem)[:300])
            seconds.append(time.perf_counter() - started)
    report = {
        "lm": args.lm,
        "adapter": type(adapter_for(lm)).__name__,
        "signature": "JudgeAnswer(reason: str, score: Literal[0, 0.5, 1])",
        "calls": args.calls,
        "parse_failures": failures,
        "parse_failure_rate": failures / args.calls,
        "judge_agreement_with_expected": agreements / args.calls,
        "mean_seconds_per_call": sum(seconds) / len(seconds),
        "errors": errors,
        "rows": rows,
    }
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(report, indent=2))
    print(
        f"{args.lm} via {report['adapter']}: {failures}/{args.calls} parse failures "
        f"({report['parse_failure_rate']:.1%}); judge agreed with the expected score on "
        f"{agreements}/{args.calls}; {report['mean_seconds_per_call']:.1f} s/call"
    )
    print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
