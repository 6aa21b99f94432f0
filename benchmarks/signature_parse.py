"""Parse-failure rate of every agentic signature on a backbone (JSONAdapter + constrained
decoding for the local model), over FinanceBench dev questions and their evidence pages.

A call fails when the adapter cannot turn the reply into the typed outputs (JSON, enums,
pydantic validators such as "an ambiguity needs at least two readings"). Caching is off.

    python benchmarks/signature_parse.py [--lm local] [--calls 10] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import dspy
from tqdm import tqdm

from filingqa.datasets import load_dataset
from filingqa.evidence.render import render
from filingqa.lm.backbone import adapter_for, get_lm
from filingqa.program.curation import passage_list
from filingqa.records import Passage, QARecord
from filingqa.signatures.ambiguity import AggregateInterpretations, DetectAmbiguity
from filingqa.signatures.conversation import MakeStandalone
from filingqa.signatures.cot import AnswerFromEvidence
from filingqa.signatures.curate import CurateEvidence
from filingqa.signatures.decompose import Decompose
from filingqa.signatures.hyde import WriteHypotheticalPassages
from filingqa.signatures.review import ReviewRefusal
from filingqa.signatures.rewrite import RewriteQuery
from filingqa.signatures.verify import RefineQuestions, VerifyAnswer

EVIDENCE_CHARS = 2500


def _pages(record: QARecord) -> list[Passage]:
    return [
        Passage(
            id=f"{e.doc_name}:p{(e.page or 0) + 1}",
            doc_id=e.doc_name,
            page=(e.page or 0) + 1,
            kind="text",
            text=e.text[:EVIDENCE_CHARS],
        )
        for e in record.evidence
    ]


def _evidence(record: QARecord) -> str:
    return "\n\n".join(p.text for p in _pages(record))[:EVIDENCE_CHARS]


INPUTS: dict[type[dspy.Signature], Callable[[QARecord], dict[str, Any]]] = {
    Decompose: lambda r: {"question": r.question},
    RewriteQuery: lambda r: {"question": r.question},
    WriteHypotheticalPassages: lambda r: {"question": r.question, "count": 3},
    CurateEvidence: lambda r: {
        "evidence": render(_pages(r)),
        "question": r.question,
        "passage_list": passage_list(_pages(r)),
    },
    DetectAmbiguity: lambda r: {"question": r.question},
    AnswerFromEvidence: lambda r: {"question": r.question, "evidence": _evidence(r)},
    VerifyAnswer: lambda r: {
        "question": r.question,
        "evidence": _evidence(r),
        "answer": r.answer,
        "working": "",
        "checks": "all automatic checks passed",
    },
    RefineQuestions: lambda r: {
        "question": r.question,
        "missing": "the figure for the prior year",
        "tried": [r.question],
    },
    ReviewRefusal: lambda r: {
        "question": r.question,
        "evidence": _evidence(r),
        "draft": "The evidence does not provide this.",
    },
    MakeStandalone: lambda r: {
        "conversation": [f"Q: {r.question} A: {r.answer}"],
        "question": "And what about the year before?",
    },
    AggregateInterpretations: lambda r: {
        "question": r.question,
        "readings": [f"as reported: {r.answer}", "adjusted: not stated"],
    },
}


def measure(signature: type[dspy.Signature], records: list[QARecord]) -> dict[str, Any]:
    """Calls, parse failures and mean seconds of ``signature`` over ``records``."""
    predict = dspy.Predict(signature)
    failures, seconds, examples = 0, [], []
    for record in tqdm(records, desc=signature.__name__, leave=False):
        started = time.perf_counter()
        try:
            predict(**INPUTS[signature](record))
        except Exception as problem:  # AdapterParseError or a pydantic validation error
            failures += 1
            examples.append(f"{type(problem).__name__}: {str(problem)[:200]}")
        seconds.append(time.perf_counter() - started)
    return {
        "calls": len(records),
        "parse_failures": failures,
        "failure_rate": failures / len(records),
        "mean_seconds": statistics.mean(seconds),
        "failure_examples": examples[:3],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lm", default="local")
    parser.add_argument("--api-base")
    parser.add_argument("--calls", type=int, default=10, help="calls per signature")
    parser.add_argument("--data-dir")
    parser.add_argument("--json", type=Path, default=Path("results/signature_parse.json"))
    args = parser.parse_args()

    lm = get_lm(args.lm, api_base=args.api_base, cache=False)
    records = load_dataset("financebench:dev", data_dir=args.data_dir, limit=args.calls)
    results: dict[str, Any] = {}
    with dspy.context(lm=lm, adapter=adapter_for(lm)):
        for signature in tqdm(INPUTS, desc="signatures"):
            results[signature.__name__] = measure(signature, records)
    total = sum(r["parse_failures"] for r in results.values())
    calls = sum(r["calls"] for r in results.values())
    report = {"lm": args.lm, "signatures": results, "parse_failures": total, "calls": calls}
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(report, indent=2))
    print(f"parse failures per signature, lm={args.lm}, {args.calls} calls each")
    print(f"{'signature':<28}{'failures':>10}{'rate':>8}{'s/call':>8}")
    for name, r in results.items():
        print(
            f"{name:<28}{r['parse_failures']:>10}{r['failure_rate']:>8.0%}{r['mean_seconds']:>8.1f}"
        )
    print(f"{'all':<28}{total:>10}{total / calls:>8.1%}")
    print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
