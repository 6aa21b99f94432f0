"""What an evidence budget drops from TAT-QA's gold context, with no LM: the passages the
annotators marked as the answer's source (its paragraphs, and the table when the answer
comes from it) that do not reach the reasoning prompt.

    python benchmarks/gold_context_budget.py \
        --out benchmarks/runs/gold-context-budget-tatqa-tuning.json \
        [--slice tatqa-dev-tuning] [--budget 4000 8000]

A context longer than the budget loses passages. Compared, per budget: the passages in
their given order while they fit (``given_order``), and the program's own choice
(``sent_now``: :meth:`QuestionState.start <filingqa.program.question_state.QuestionState.start>`
keeps the tables, then the paragraphs by BM25 against the question). Prints, per budget and answer
type, the questions whose context was cut and those that lost a marked passage; writes
every cut question as JSON.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from filingqa.datasets.gold_context import gold_passages
from filingqa.datasets.registry import load_dataset
from filingqa.evaluation.slices.committed import load_slice, select_slice
from filingqa.evidence.buffer import EvidenceBuffer
from filingqa.evidence.render import within_budget
from filingqa.lm.trace import Trace
from filingqa.program.question_state import QuestionState, Sources
from filingqa.records import Passage, QARecord
from filingqa.router.rule import route_by_rule

DATASET = "tatqa:dev"


def given_order(record: QARecord, budget: int) -> list[Passage]:
    """The gold passages in their given order while they fit ``budget``."""
    buffer = EvidenceBuffer(budget)
    buffer.add(gold_passages(record), 1.0)
    return within_budget(buffer.passages(), record.question, budget)


def sent_now(record: QARecord, budget: int) -> list[Passage]:
    """The gold passages the program's evidence holds for ``record`` within ``budget``."""
    sources = Sources(passages=gold_passages(record), search=None, company=None, carried=None)
    route = route_by_rule(record.question)
    state = QuestionState.start(record.question, route, sources, budget, Trace())
    return within_budget(state.evidence.passages(), record.question, budget)


def marked(record: QARecord) -> set[str]:
    """Ids of the gold passages the annotators marked as the answer's source."""
    table_uid = str(record.meta["table_uid"])
    ids = {f"{table_uid}:par{order}" for item in record.evidence for order in item.text_ids}
    if "table" in str(record.meta["answer_from"]):
        ids.add(f"{table_uid}:tab1")
    return ids


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--slice", default="tatqa-dev-tuning")
    parser.add_argument("--budget", type=int, nargs="+", default=[4000, 8000])
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()

    records = select_slice(load_dataset(DATASET), load_slice(args.slice, dataset=DATASET))
    report: dict[str, list[dict[str, object]]] = {}
    print(f"slice {args.slice}: {len(records)} questions")
    for budget in args.budget:
        rows = []
        for record in records:
            whole = sum(len(p.text) for p in gold_passages(record))
            if whole <= budget:
                continue
            need = marked(record)
            row: dict[str, object] = {
                "id": record.id,
                "answer_type": record.meta["tatqa_answer_type"],
                "context_chars": whole,
            }
            for name, choose in (("given_order", given_order), ("sent_now", sent_now)):
                kept = {p.id for p in choose(record, budget)}
                row[f"{name}_lost"] = sorted(need - kept)
            rows.append(row)
        report[str(budget)] = rows
        for name in ("given_order", "sent_now"):
            lost = Counter(str(r["answer_type"]) for r in rows if r[f"{name}_lost"])
            shown = ", ".join(f"{kind} {n}" for kind, n in sorted(lost.items())) or "none"
            print(
                f"  budget {budget}: {len(rows)} contexts cut; {name:<11} lost a marked passage"
                f" on {sum(lost.values())} ({shown})"
            )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"slice": args.slice, "cut": report}, indent=1) + "\n")


if __name__ == "__main__":
    main()
