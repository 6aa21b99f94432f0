"""The embedded model in process vs the same GGUF on a llama.cpp server on loopback.

Starts ``python -m llama_cpp.server`` on 127.0.0.1 with the embedded model (same context
size; ``filingqa.lm.server_launch.served_model``), loads the program twice — with ``local``
and with ``local@http://127.0.0.1:PORT/v1`` (a compiled artifact via ``filingqa.load`` when
``--artifact`` is given, else the uncompiled ``FinancialQA``) — asks both the first
``--questions`` TAT-QA dev arithmetic questions with their gold context, and compares the
answers. Prints a table and the count of equal answers, writes JSON, exits 1 when any
answer differs.

    python benchmarks/served_vs_in_process.py [--artifact artifacts/qwen-local] [--questions 5]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import dspy

from filingqa.datasets import load_dataset
from filingqa.datasets.gold_context import gold_passages
from filingqa.lm.backbone import adapter_for, get_lm
from filingqa.lm.llama_engine import DEFAULT_CONTEXT_TOKENS
from filingqa.lm.server_launch import served_model
from filingqa.models.store import ensure_llm
from filingqa.program.financial_qa import FinancialQA
from filingqa.records import QARecord


def program_for(spec: str, artifact: Path | None) -> tuple[FinancialQA, dspy.LM]:
    if artifact is not None:
        from filingqa import load

        qa = load(artifact, lm=spec)
        return qa, dspy.settings.lm
    return FinancialQA(), get_lm(spec)


def answer_all(qa: FinancialQA, lm: dspy.LM, records: list[QARecord]) -> list[dict]:
    answers = []
    with dspy.context(lm=lm, adapter=adapter_for(lm)):
        for record in records:
            started = time.perf_counter()
            final = qa(question=record.question, passages=gold_passages(record)).final
            answers.append(
                {
                    "answer": final.answer,
                    "outcome": final.outcome,
                    "working": final.working,
                    "seconds": round(time.perf_counter() - started, 1),
                }
            )
    return answers


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--artifact", type=Path)
    parser.add_argument("--questions", type=int, default=5)
    parser.add_argument("--data-dir")
    parser.add_argument("--json", type=Path, default=Path("results/served_vs_in_process.json"))
    args = parser.parse_args()
    records = [
        r
        for r in load_dataset("tatqa:dev", data_dir=args.data_dir)
        if r.meta.get("tatqa_answer_type") == "arithmetic"
    ][: args.questions]
    in_process = answer_all(*program_for("local", args.artifact), records)
    with served_model(ensure_llm(), n_ctx=DEFAULT_CONTEXT_TOKENS, cache=False) as server:
        served = answer_all(*program_for(f"local@{server.url}", args.artifact), records)
    same = 0
    print(f"{'question':60} {'in process':>16} {'served':>16}")
    for record, here, there in zip(records, in_process, served, strict=True):
        equal = here["answer"] == there["answer"] and here["working"] == there["working"]
        same += equal
        mark = "" if equal else "  DIFFERENT"
        answers = f"{here['answer'][:16]:>16} {there['answer'][:16]:>16}"
        print(f"{record.question[:60]:60} {answers}{mark}")
    print(f"{same}/{len(records)} same answers and programs (artifact: {args.artifact or 'none'})")
    args.json.parent.mkdir(parents=True, exist_ok=True)
    rows = [
        {"question": r.question, "in_process": a, "served": b}
        for r, a, b in zip(records, in_process, served, strict=True)
    ]
    summary = {"artifact": str(args.artifact) if args.artifact else None, "same": same}
    args.json.write_text(json.dumps({**summary, "questions": rows}, indent=2))
    return 0 if same == len(records) else 1


if __name__ == "__main__":
    sys.exit(main())
