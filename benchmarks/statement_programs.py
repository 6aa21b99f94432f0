"""Programs written from the statement records, on FinanceBench dev questions, without an LM.

For each question of a committed slice: the company the holdings rule scopes it to, the
statement records the evidence gatherer looks up for it over the real index, the program
:func:`~filingqa.program.statement_program.statement_program` writes from them (if any), its
result run in the sandbox, and that result judged against the gold by the deterministic
judge (the number a program's value states; a yes/no for a comparison). Prints, per
question type, how many questions got a program and how many of those it answers right, and
every program's question, value and verdict; writes ids, values and verdicts only.

    python benchmarks/statement_programs.py --slice financebench-dev-tuning [--index DIR]
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path
from typing import Any

from filingqa.checks.holdings import CompanyScope, check_holdings
from filingqa.datasets.registry import load_dataset
from filingqa.evaluation.slices.committed import load_slice
from filingqa.metrics.judge import StrictJudge
from filingqa.program.evidence_gatherer import row_concepts, row_periods
from filingqa.program.pot import answer_text
from filingqa.program.statement_program import statement_program
from filingqa.records.qa_record import QARecord
from filingqa.records.search_handle import Holdings, holdings_of, statement_records_of
from filingqa.retrieval.index.locations import default_index_dir
from filingqa.retrieval.search.pipeline import FilingSearch
from filingqa.sandbox import run_python

RUNS = Path(__file__).parent / "runs"


def main() -> None:
    """Write, run and judge a program for every question of the slice; print and save."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--slice", required=True, help="a committed financebench:dev slice")
    parser.add_argument("--index", type=Path, default=default_index_dir("financebench"))
    parser.add_argument("--data-dir", type=Path)
    parser.add_argument("--out", type=Path, help="JSON (default: runs/statement-programs-<slice>)")
    args = parser.parse_args()
    search = FilingSearch.open(args.index)
    ids = set(load_slice(args.slice, dataset="financebench:dev").ids)
    records = [r for r in load_dataset("financebench:dev", args.data_dir) if r.id in ids]
    holdings = holdings_of(search)
    if holdings is None:
        raise SystemExit(f"{args.index} holds no document metadata: rebuild it with filingqa index")
    rows = [_row(search, holdings, record) for record in records]
    search.close()
    _print(rows)
    out = args.out or RUNS / f"statement-programs-{args.slice}.json"
    out.write_text(json.dumps({"slice": args.slice, "rows": rows}, indent=1) + "\n")
    print(f"wrote {out}")


def _row(search: FilingSearch, holdings: Holdings, record: QARecord) -> dict[str, Any]:
    """The question's program (if any), its value and the judge's verdict."""
    question_type = str(record.meta.get("question_type", ""))
    row: dict[str, Any] = {"id": record.id, "question_type": question_type, "program": False}
    scope = check_holdings(record.question, holdings)
    if not isinstance(scope, CompanyScope) or len(scope.companies) != 1:
        return row
    company = scope.companies[0].name
    periods = row_periods(record.question)
    concepts, prior = row_concepts(record.question)
    found = statement_records_of(search, company, concepts, periods) or []
    if prior and len(periods) == 1:
        found += statement_records_of(search, company, prior, periods, prior=True) or []
    decides = record.answer_type == "yes_no"
    program = statement_program(record.question, found, decides=decides)
    if program is None:
        return row
    execution = run_python(program)
    answer = _stated(answer_text(execution))
    verdict = StrictJudge().judge(record.question, record.answer, answer, answer_type=None)
    return row | {"program": True, "value": answer, "score": verdict.score, "stage": verdict.stage}


def _stated(value: str) -> str:
    """A comparison's value as the yes or no it decides; a figure as it is."""
    return {"True": "Yes", "False": "No"}.get(value, value)


def _print(rows: list[dict[str, Any]]) -> None:
    programs = Counter(r["question_type"] for r in rows if r["program"])
    right = Counter(r["question_type"] for r in rows if r.get("score") == 1)
    totals = Counter(r["question_type"] for r in rows)
    print(f"{'question type':<20} {'questions':>9} {'programs':>9} {'right':>6}")
    for kind in sorted(totals):
        print(f"{kind:<20} {totals[kind]:>9} {programs[kind]:>9} {right[kind]:>6}")
    print(f"{'all':<20} {len(rows):>9} {sum(programs.values()):>9} {sum(right.values()):>6}")
    for r in rows:
        if r["program"]:
            print(f"  {r['id']}  {r['question_type']:<18} {r['value']!s:<22} score {r['score']}")


if __name__ == "__main__":
    main()
