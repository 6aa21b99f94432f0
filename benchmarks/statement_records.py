"""Statement records from every FinanceBench PDF: coverage, and gold single-figure questions.

    .venv/bin/python benchmarks/statement_records.py [--data-dir D] [--limit N] [--json PATH]

Reads every PDF in ``financebench/pdfs`` (parsed pages cached on disk by the ingest cache),
builds each company's fiscal calendar from the filings' cover pages, and makes the
statement records of each filing (:mod:`filingqa.retrieval.ingest.statements`). Prints, per
filing type (10k, 10q, 8k, Earnings), the share of filings whose income statement, balance
sheet and cash-flow statement were all found, and how many records (and concept-labelled
records) they gave. Then, for the FinanceBench dev questions whose answer is one statement
figure (metrics-generated, one concept named, a USD amount, no ratio or arithmetic), whether
the records on the gold evidence pages hold that figure for that concept and period, and
the misses by id; and for every metrics-generated question, whether each statement figure
it names (a concept for a fiscal year named) is among those records at all. Writes figures
and ids only to ``benchmarks/runs/statement-records-financebench.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
from collections.abc import Iterable
from decimal import Decimal
from pathlib import Path
from typing import Any

from tqdm import tqdm

from filingqa.datasets.registry import load_dataset
from filingqa.records.documents import Document
from filingqa.records.qa_record import QARecord
from filingqa.records.statements import StatementBook, StatementRecord
from filingqa.retrieval.ingest.cover_page import read_cover_texts
from filingqa.retrieval.ingest.filings import read_pdf_cached
from filingqa.retrieval.ingest.metadata import build_records, load_document_info
from filingqa.retrieval.ingest.statements import statement_records
from filingqa.retrieval.vocabulary.fiscal import FiscalCalendar, fiscal_period_of, period_bounds
from filingqa.retrieval.vocabulary.line_items import question_concepts

REPO = Path(__file__).resolve().parents[1]
DEFAULT_JSON = REPO / "benchmarks" / "runs" / "statement-records-financebench.json"
DEFAULT_DATA = REPO.parent / "shared" / "datasets"
DOC_INFO = "financebench/financebench_document_information.jsonl"
TYPES = ("10k", "10q", "8k", "Earnings")
STATEMENTS = ("income", "balance", "cash_flow")
_NOT_ONE_FIGURE = re.compile(
    r"ratio|margin|growth|change|average|turnover|percent|%|defined? as|\+|\bless\b|ebitda"
    r"|return on|\bdays\b|\bper\b",
    re.IGNORECASE,
)
_SCALES = {"thousand": 1e3, "million": 1e6, "billion": 1e9}


def main() -> None:
    """Parse, build, print, write."""
    args = _arguments()
    data = Path(args.data_dir or os.environ.get("FILINGQA_DATA_DIR") or DEFAULT_DATA)
    pdf_dir = data / "financebench" / "pdfs"
    pdfs = sorted(pdf_dir.glob("*.pdf"))[: args.limit or None]
    documents, calendars, types = _metadata(data, pdf_dir, [p.stem for p in pdfs])
    records: dict[str, list[StatementRecord]] = {}
    for path in tqdm(pdfs, desc="statements", unit="pdf"):
        document = documents[path.stem]
        calendar = calendars.get(document.company or "")
        records[path.stem] = statement_records(document, read_pdf_cached(path), calendar)
    coverage = _coverage(types, records)
    questions = load_dataset("financebench:dev", data)
    gold = _gold(questions, records, calendars, documents)
    inputs = _inputs(questions, records, calendars, documents)
    _print(coverage, gold, inputs)
    report = {"coverage": coverage, "gold": gold, "inputs": inputs}
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.json}")


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", help="evaluation data (default $FILINGQA_DATA_DIR)")
    parser.add_argument("--limit", type=int, default=0, help="only the first N PDFs")
    parser.add_argument("--json", type=Path, default=DEFAULT_JSON, help="where to write JSON")
    return parser.parse_args()


def _metadata(
    data: Path, pdf_dir: Path, names: list[str]
) -> tuple[dict[str, Document], dict[str, FiscalCalendar], dict[str, str]]:
    """Each filing's document (company, type, period end), each company's calendar (from
    the document information and the cover pages) and each filing's dataset type."""
    infos = [info for info in load_document_info(data / DOC_INFO) if info.doc_name in names]
    covers = read_cover_texts(pdf_dir, names)
    built, calendars = build_records(infos, covers)
    documents = {r.document.doc_id: r.document for r in built}
    types = {info.doc_name: info.doc_type or "other" for info in infos}
    for name in names:
        documents.setdefault(name, Document(doc_id=name))
    return documents, {c.company: c for c in calendars}, types


def _coverage(types: dict[str, str], records: dict[str, list[StatementRecord]]) -> dict[str, Any]:
    """Per filing type: filings, the share with all three statements, records made."""
    by_type: dict[str, dict[str, Any]] = {}
    for name, found in records.items():
        kind = types.get(name, "other")
        row = by_type.setdefault(
            kind, {"filings": 0, "all_three": 0, "records": 0, "labelled": 0, "missing": {}}
        )
        statements = {r.statement for r in found}
        row["filings"] += 1
        row["all_three"] += statements >= set(STATEMENTS)
        row["records"] += len(found)
        row["labelled"] += sum(r.concept is not None for r in found)
        absent = [s for s in STATEMENTS if s not in statements]
        if absent:
            row["missing"][name] = absent
    return by_type


def _single_figure(record: QARecord) -> str | None:
    """The concept a dev question asks one figure of, or None for any other question."""
    if record.meta.get("question_type") != "metrics-generated" or record.answer_type != "number":
        return None
    if record.scale not in _SCALES or _NOT_ONE_FIGURE.search(record.question):
        return None
    concepts = question_concepts(record.question)
    return concepts[0] if len(concepts) == 1 else None


def _company_periods(question: str, calendar: FiscalCalendar | None) -> list[str]:
    """The period labels the question's "FY2019"s name under the company's calendar (the
    dataset names a fiscal year by the calendar year it ends in), in order."""
    years = dict.fromkeys(int(y) for y in re.findall(r"\bFY\s?((?:19|20)\d{2})\b", question))
    if calendar is None:
        return [f"FY{year}" for year in years]
    reading = calendar.model_copy(update={"naming": "end_year"})
    ends = [period_bounds(reading, year)[1] for year in years]
    return [f"FY{fiscal_period_of(end, calendar)[0]}" for end in ends]


def _rounds_to(value: float, gold: float) -> bool:
    """Whether ``value`` rounds to ``gold`` at the precision ``gold`` is written with, its
    trailing zeros dropped (a "$4.60" billion answer is 4.6: 4,625 million rounds to it)."""
    exponent = Decimal(repr(gold)).normalize().as_tuple().exponent
    decimals = max(0, -exponent) if isinstance(exponent, int) else 0
    return abs(round(value, decimals) - gold) < 0.5 * 10.0**-decimals


def _gold(
    questions: Iterable[QARecord],
    records: dict[str, list[StatementRecord]],
    calendars: dict[str, FiscalCalendar],
    documents: dict[str, Document],
) -> dict[str, Any]:
    """For each single-figure dev question: is the figure among the records of its
    concept and period on the gold evidence pages."""
    rows: list[dict[str, Any]] = []
    for question in questions:
        concept = _single_figure(question)
        if concept is None:
            continue
        doc_id = question.evidence[0].doc_name
        document = documents.get(doc_id)
        if doc_id not in records or document is None:
            rows.append({"id": question.id, "concept": concept, "outcome": "no_pdf"})
            continue
        calendar = calendars.get(document.company or "")
        period = next(iter(_company_periods(question.question, calendar)), None)
        pages = {ev.page + 1 for ev in question.evidence if ev.doc_name == doc_id}
        book = StatementBook(r for r in records[doc_id] if r.page in pages)
        candidates = book.find(concept=concept, period=period)
        gold = question.answer_value or 0.0
        multiplier = _SCALES[question.scale]
        hit = any(_rounds_to(abs(r.amount) / multiplier, abs(gold)) for r in candidates)
        rows.append(
            {
                "id": question.id,
                "doc": doc_id,
                "concept": concept,
                "period": period,
                "gold": gold * multiplier,
                "found": sorted({r.amount for r in candidates}),
                "outcome": "hit" if hit else "miss",
            }
        )
    scored = [r for r in rows if r["outcome"] != "no_pdf"]
    hits = sum(r["outcome"] == "hit" for r in scored)
    return {
        "questions": len(rows),
        "scored": len(scored),
        "hits": hits,
        "share": round(hits / len(scored), 3) if scored else None,
        "rows": rows,
    }


def _inputs(
    questions: Iterable[QARecord],
    records: dict[str, list[StatementRecord]],
    calendars: dict[str, FiscalCalendar],
    documents: dict[str, Document],
) -> dict[str, Any]:
    """For every metrics-generated dev question: is each statement figure it names (concept
    by fiscal year named) among the records of its gold evidence pages."""
    rows: list[dict[str, Any]] = []
    for question in questions:
        doc_id = question.evidence[0].doc_name
        document = documents.get(doc_id)
        if question.meta.get("question_type") != "metrics-generated" or document is None:
            continue
        calendar = calendars.get(document.company or "")
        pages = {(ev.doc_name, ev.page + 1) for ev in question.evidence}
        book = StatementBook(
            r
            for doc in {d for d, _ in pages}
            for r in records.get(doc, [])
            if (doc, r.page) in pages
        )
        for concept in question_concepts(question.question):
            for period in _company_periods(question.question, calendar):
                held = bool(book.find(concept=concept, period=period))
                rows.append({"id": question.id, "concept": concept, "period": period, "held": held})
    held = sum(row["held"] for row in rows)
    return {
        "figures": len(rows),
        "held": held,
        "share": round(held / len(rows), 3) if rows else None,
        "misses": [row for row in rows if not row["held"]],
    }


def _print(coverage: dict[str, Any], gold: dict[str, Any], inputs: dict[str, Any]) -> None:
    print(f"{'type':10} {'filings':>7} {'all three':>10} {'records':>8} {'labelled':>9}")
    for kind in sorted(coverage, key=lambda k: TYPES.index(k) if k in TYPES else len(TYPES)):
        row = coverage[kind]
        share = row["all_three"] / row["filings"]
        print(
            f"{kind:10} {row['filings']:>7} {share:>10.0%} {row['records']:>8} {row['labelled']:>9}"
        )
    for kind, row in coverage.items():
        for name, absent in row["missing"].items():
            print(f"  {kind}: {name} lacks {', '.join(absent)}")
    print(
        f"gold single-figure questions: {gold['hits']}/{gold['scored']} held "
        f"({gold['questions']} selected, {gold['questions'] - gold['scored']} without a PDF)"
    )
    for row in gold["rows"]:
        if row["outcome"] == "miss":
            print(
                f"  miss {row['id']}: {row['concept']} {row['period']} gold {row['gold']:,.0f}"
                f" found {[f'{v:,.0f}' for v in row['found']]}"
            )

    print(
        f"metrics questions' named figures (concept x fiscal year) on gold pages: "
        f"{inputs['held']}/{inputs['figures']}"
    )
    for row in inputs["misses"]:
        print(f"  absent {row['id']}: {row['concept']} {row['period']}")


if __name__ == "__main__":
    main()
