"""Curation laid out as the evidence block vs over numbered passages (issue 21), on the
FinanceBench dev *tuning* slice: the same candidates curated both ways in one process.

    python benchmarks/curation_layout.py --out benchmarks/runs/curation_layout.json [--limit 12]

For each tuning question whose filings are present, the index's 8 best passages for the
question as written (no LM) are curated twice:

- ``numbered``: the earlier request, DSPy's JSON layout (a system message, then the
  question, then the passages under ``[n] page p, kind`` headers);
- ``evidence``: :class:`~filingqa.program.curation.Curator` as the program runs it, the
  candidates rendered as the reasoning steps' evidence block, a numbered list after the
  question.

Prints per layout: passages kept, questions whose kept passages hold a gold evidence page
(of those whose candidates hold one), answerable, failed calls, prompt tokens evaluated,
seconds per question; the questions where the two disagree on keeping a gold page; and,
for ``evidence``, the share of the candidates' characters before the first passage dropped
(what the reasoning request can reuse). Writes every question's figures as JSON.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from statistics import mean
from typing import Any

import dspy
from tqdm import tqdm

from filingqa.core.config import data_dir
from filingqa.evaluation.open_corpus import gold_pages, open_corpus, pages
from filingqa.evaluation.robustness import fast_inference as fi
from filingqa.evaluation.slices.committed import load_slice
from filingqa.lm.backbone import adapter_for
from filingqa.lm.trace import Trace
from filingqa.models.store import ensure_llm
from filingqa.program.curation import OUTPUT_TOKENS, Curator
from filingqa.records import Passage, QARecord
from filingqa.retrieval.search.pipeline import FilingSearch

SLICE = "financebench-dev-tuning"
CANDIDATES = 8


class NumberedCuration(dspy.Signature):
    """Choose the retrieved passages needed to answer the question and judge whether they
    suffice. If something is missing, write one search query for the missing part only.
    """

    question: str = dspy.InputField()
    passages: str = dspy.InputField(desc="retrieved passages, each under a numbered header")
    keep: list[int] = dspy.OutputField(desc="numbers of the passages to keep")
    answerable: bool = dspy.OutputField(desc="true if the kept passages answer the question")
    missing: str = dspy.OutputField(desc="what is still needed, or empty")
    complementary_query: str = dspy.OutputField(desc="a query for the missing part, or empty")


def numbered(passages: list[Passage]) -> str:
    """The earlier layout's passages: ``[n] page p, kind`` headers, 1-based."""
    return "\n\n".join(
        f"[{number}] page {p.page}, {p.kind}\n{p.text}" for number, p in enumerate(passages, 1)
    )


def curate_numbered(question: str, candidates: list[Passage]) -> tuple[list[Passage], bool]:
    """The earlier curation request; its selection applied as the curator applies it."""
    predict = dspy.Predict(NumberedCuration, max_tokens=OUTPUT_TOKENS)
    with dspy.context(adapter=dspy.JSONAdapter()):
        out = predict(question=question, passages=numbered(candidates))
    chosen = sorted({n for n in out.keep if 1 <= n <= len(candidates)})
    return [candidates[n - 1] for n in chosen] or list(candidates), bool(out.answerable)


def curate_evidence(question: str, candidates: list[Passage]) -> tuple[list[Passage], bool]:
    """The program's curator."""
    with dspy.context(adapter=adapter_for(dspy.settings.lm)):
        out = Curator()(question, candidates)
    return out.kept, out.answerable


LAYOUTS = {"numbered": curate_numbered, "evidence": curate_evidence}


def shared_chars(candidates: list[Passage], kept: list[Passage]) -> float:
    """The share of the candidates' characters before the first passage dropped."""
    kept_ids = {p.id for p in kept}
    total = sum(len(p.text) for p in candidates)
    before = 0
    for passage in candidates:
        if passage.id not in kept_ids:
            break
        before += len(passage.text)
    return before / total if total else 0.0


def measure(record: QARecord, search: FilingSearch) -> dict[str, Any]:
    """Both layouts over the question's candidates."""
    candidates = search.search(record.question, k=CANDIDATES)
    gold = set(gold_pages(record))
    row: dict[str, Any] = {
        "id": record.id,
        "candidates": len(candidates),
        "gold_in_candidates": bool(gold & set(pages(candidates))),
    }
    for name, curate in LAYOUTS.items():
        trace = Trace()
        with trace.step(name) as step:
            try:
                kept, answerable = curate(record.question, candidates)
                failed = False
            except Exception as error:  # a failed step keeps every passage, as in the program
                kept, answerable, failed = list(candidates), False, True
                step.note = f"{type(error).__name__}: {error}"
        row[name] = {
            "kept": len(kept),
            "gold_kept": bool(gold & set(pages(kept))),
            "answerable": answerable,
            "failed": failed,
            "prompt_tokens_evaluated": step.prompt_tokens_evaluated,
            "seconds": step.seconds,
            "shared_chars": shared_chars(candidates, kept),
        }
    return row


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Per layout totals and means, and the questions where they disagree."""
    with_gold = [r for r in rows if r["gold_in_candidates"]]
    out: dict[str, Any] = {
        "questions": len(rows),
        "gold_in_candidates": len(with_gold),
    }
    for name in LAYOUTS:
        figures = [r[name] for r in rows]
        out[name] = {
            "mean_kept": round(mean(f["kept"] for f in figures), 2),
            "gold_kept": sum(r[name]["gold_kept"] for r in with_gold),
            "answerable": sum(f["answerable"] for f in figures),
            "failed": sum(f["failed"] for f in figures),
            "prompt_tokens_evaluated": round(mean(f["prompt_tokens_evaluated"] for f in figures)),
            "seconds": round(mean(f["seconds"] for f in figures), 1),
            "shared_chars": round(mean(f["shared_chars"] for f in figures), 3),
        }
    out["gold_kept_only_by"] = {
        name: [r["id"] for r in with_gold if r[name]["gold_kept"] and not r[other]["gold_kept"]]
        for name, other in (("numbered", "evidence"), ("evidence", "numbered"))
    }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path("benchmarks/runs/curation_layout.json"))
    parser.add_argument("--limit", type=int, default=12, help="the first N present questions")
    args = parser.parse_args()
    root = data_dir()
    present = fi.financebench_questions(root, count=10_000)
    tuning = set(load_slice(SLICE, dataset="financebench:dev").ids)
    records = [r for r in present if r.id in tuning][: args.limit]
    lm = fi.local_lm(ensure_llm(), fi.ON)
    rows = []
    with open_corpus("financebench:dev") as corpus, dspy.context(lm=lm):
        for record in tqdm(records, desc="curation layouts"):
            rows.append(measure(record, corpus.search))
    report = {"slice": SLICE, "summary": summary(rows), "rows": rows}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1) + "\n")
    print(json.dumps(report["summary"], indent=1))


if __name__ == "__main__":
    main()
