"""Do bootstrapped demos help the PoT writer? Zero-shot against k demos, paired, on TAT-QA.

Questions are TAT-QA dev arithmetic questions outside the benchmark's contexts (the first
100 arithmetic questions, which never train or select anything), drawn as ``compile`` draws
them; train and dev share no context. For each demo count the writer is compiled with
DSPy's ``BootstrapFewShot`` (strict judge as metric) from train questions whose rendered
evidence is at most ``--max-demo-chars`` long, then answers the dev questions with their gold
context. Prints accuracy, seconds and tokens per question, and wins/losses against
zero-shot; writes JSON.

    python benchmarks/pot_demos.py [--train 24] [--dev 60] [--demos 0,2] [--max-demo-chars 2500]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import dspy

from filingqa.datasets.gold_context import gold_passages
from filingqa.evaluation.command import select_records
from filingqa.evaluation.runner import Row, run_mode
from filingqa.evaluation.summary import summarize
from filingqa.evidence.render import render
from filingqa.lm.backbone import adapter_for, get_lm
from filingqa.metrics.dspy_metric import JudgeMetric
from filingqa.metrics.judge import StrictJudge
from filingqa.optimizers import compile_data
from filingqa.optimizers.compile_data import SplitSpec
from filingqa.optimizers.compiled_modes import pot_mode
from filingqa.optimizers.selection import paired_outcomes
from filingqa.program.pot import ProgramOfThought
from filingqa.records import QARecord

ARITHMETIC = {"tatqa_answer_type": "arithmetic"}
"""The TAT-QA questions whose answer is computed (what PoT is for)."""


def short_evidence(records: list[QARecord], max_chars: int) -> list[QARecord]:
    """The records whose gold context, as the PoT writer sees it, is at most ``max_chars``."""
    return [r for r in records if len(render(gold_passages(r))) <= max_chars]


def draw_questions(train_n: int, dev_n: int) -> tuple[list[QARecord], list[QARecord]]:
    """Train and dev TAT-QA arithmetic questions, no shared context, no benchmark context."""
    spec = [SplitSpec.parse("tatqa:dev")]
    train = select_records(compile_data.draw(spec, target="pot", seed=0), ARITHMETIC)[:train_n]
    used = {d for r in train for d in r.documents}
    drawn = compile_data.draw(spec, target="pot", exclude_documents=used, seed=1)
    dev = select_records(drawn, ARITHMETIC)
    return train, dev[:dev_n]


def compiled_writer(demos: int, pool: list[QARecord], metric: JudgeMetric) -> ProgramOfThought:
    """The PoT module with ``demos`` demos bootstrapped from the ``pool`` questions."""
    if demos == 0:
        return ProgramOfThought()
    examples = [compile_data.to_example(r, "pot") for r in pool]
    optimizer = dspy.BootstrapFewShot(
        metric=metric, max_bootstrapped_demos=demos, max_labeled_demos=0, max_rounds=1
    )
    return optimizer.compile(ProgramOfThought(), trainset=examples)


def summary(rows: list[Row], baseline: list[Row] | None) -> dict[str, float]:
    """Accuracy, cost, and (given the zero-shot rows) paired wins and losses."""
    s = summarize(rows)
    out = {
        "questions": s.questions,
        "accuracy": round(s.accuracy, 4),
        "seconds": round(s.seconds, 2),
        "tokens": round(s.tokens, 1),
    }
    if baseline is not None:
        out["wins"], out["losses"] = paired_outcomes(baseline, rows)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lm", default="local")
    parser.add_argument("--train", type=int, default=24)
    parser.add_argument("--dev", type=int, default=60)
    parser.add_argument("--demos", default="0,2", help="comma-separated demo counts")
    parser.add_argument("--max-demo-chars", type=int, default=2500)
    parser.add_argument("--out", type=Path, default=Path("results/pot_demos"))
    args = parser.parse_args()

    lm = get_lm(args.lm)
    judge, metric = StrictJudge(lm=lm), JudgeMetric(lm)
    train, dev = draw_questions(args.train, args.dev)
    pool = short_evidence(train, args.max_demo_chars)
    limit = args.max_demo_chars
    print(f"train {len(train)} ({len(pool)} with evidence <= {limit} chars), dev {len(dev)}")
    results: dict[str, dict] = {}
    baseline: list[Row] | None = None
    with dspy.context(lm=lm, adapter=adapter_for(lm)):
        for demos in (int(k) for k in args.demos.split(",")):
            writer = compiled_writer(demos, pool, metric)
            shown = [d.get("question", "")[:70] for d in writer.write.demos]
            rows = run_mode(
                dev, pot_mode(writer), judge=judge, rows_path=args.out / f"demos{demos}.jsonl"
            )
            results[f"{demos} demos"] = summary(rows, baseline) | {"demo_questions": shown}
            baseline = rows if baseline is None else baseline
            print(f"{demos} demos: {json.dumps(results[f'{demos} demos'])}")
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "results.json").write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
