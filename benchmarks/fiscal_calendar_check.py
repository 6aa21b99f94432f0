"""Fiscal calendar check: metadata and fiscal calendars for every FinanceBench document.

Builds :mod:`filingqa.retrieval.ingest.metadata` records from the document information plus the
cover pages (first 3 pages) of the PDFs that are present; for a document without a PDF, dev
evidence pages 0-2 stand in for its cover when the questions quote them. Prints, per
company, the inferred fiscal-year-end month and how it was derived; how many documents got
their period end from a cover page vs from the name only; and where a doc_name disagrees
with its cover page. Writes the JSON summary and saves the store. Reads only first pages.

Usage::

    python benchmarks/fiscal_calendar_check.py --data-dir ../shared/datasets \\
        [--json results/fiscal_calendar.json] [--store-dir DIR]
"""

from __future__ import annotations

import argparse
import calendar
import json
import sys
from collections import Counter
from pathlib import Path

from filingqa.core.config import data_dir as resolve_data_dir
from filingqa.retrieval.ingest.cover_page import read_cover_texts
from filingqa.retrieval.ingest.metadata import (
    DocumentRecord,
    build_records,
    load_document_info,
    parse_doc_name,
)
from filingqa.retrieval.ingest.metadata_store import MetadataStore, default_store_dir
from filingqa.retrieval.vocabulary.fiscal import FiscalCalendar, fiscal_period_of

DEFAULT_JSON = Path(__file__).resolve().parents[1] / "results" / "fiscal_calendar.json"
COVER_PAGES = 3


def evidence_covers(dev_path: Path, missing: set[str]) -> dict[str, str]:
    """Cover text from dev evidence pages 0-2 of documents whose PDF is missing."""
    pages: dict[str, dict[int, str]] = {}
    for line in dev_path.read_text(encoding="utf-8").splitlines():
        for ev in json.loads(line)["evidence"]:
            if ev["doc_name"] in missing and ev["evidence_page_num"] < COVER_PAGES:
                pages.setdefault(ev["doc_name"], {})[ev["evidence_page_num"]] = ev[
                    "evidence_text_full_page"
                ]
    return {name: "\f".join(by[i] for i in sorted(by)) for name, by in pages.items()}


def disagreement(record: DocumentRecord, cal: FiscalCalendar) -> str | None:
    """How the doc_name's period differs from the cover page's, or None."""
    doc, name = record.document, parse_doc_name(record.document.doc_id)
    if record.period_source != "cover" or doc.period_end is None or name is None:
        return None
    if doc.doc_type == "8k":
        if name.dated and name.dated != doc.period_end:
            return f"dated {name.dated} but cover date of report {doc.period_end}"
        return None
    year, quarter = fiscal_period_of(doc.period_end, cal.model_copy(update={"naming": "end_year"}))
    named = (name.year, name.quarter if name.quarter else None)
    implied = (year, quarter if name.quarter else None)
    if name.year is not None and named != implied:
        return (
            f"name says {_label(*named)}, cover period end {doc.period_end} is {_label(*implied)}"
        )
    return None


def _label(year: int | None, quarter: int | None) -> str:
    return f"FY{year}" + (f" Q{quarter}" if quarter else "")


def main(argv: list[str] | None = None) -> int:
    """Build, print, write; returns the exit code."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", help="evaluation data dir (default $FILINGQA_DATA_DIR)")
    parser.add_argument("--json", type=Path, default=DEFAULT_JSON, help="where to write JSON")
    parser.add_argument("--store-dir", type=Path, help="where to save the store")
    args = parser.parse_args(argv)
    bench = resolve_data_dir(args.data_dir) / "financebench"

    infos = load_document_info(bench / "financebench_document_information.jsonl")
    names = [i.doc_name for i in infos]
    pdfs = bench / "pdfs"
    covers = read_cover_texts(pdfs, names)
    evidence = evidence_covers(bench / "financebench_dev.jsonl", set(names) - set(covers))
    sources = {n: str(pdfs / f"{n}.pdf") for n in covers}
    records, calendars = build_records(infos, covers | evidence, sources)
    store = MetadataStore(records, calendars)
    store_path = store.save(args.store_dir or default_store_dir())

    print(f"{len(records)} documents, {len(covers)} PDF covers, {len(evidence)} evidence covers")
    print("\nfiscal calendars (company: year-end month [day] naming <- derivation)")
    derived = [c for c in calendars if not (c.basis or "").startswith("default")]
    for cal in sorted(derived, key=lambda c: c.company):
        day = cal.fiscal_year_end_day or "~end"
        month = calendar.month_abbr[cal.fiscal_year_end_month]
        print(f"  {cal.company:22} {month} {day!s:7} {cal.naming:10} <- {cal.basis}")
    defaults = sorted(c.company for c in calendars if c not in derived)
    print(f"  default Dec 31 (no dated filing) for {len(defaults)}: {', '.join(defaults)}")

    sources_count = Counter(r.period_source for r in records)
    by_type = Counter((r.document.doc_type, r.period_source) for r in records)
    print(f"\nperiod_end from: {dict(sources_count)}")
    print("  by type: " + ", ".join(f"{t}/{s}={n}" for (t, s), n in sorted(by_type.items())))

    cal_of = {c.company: c for c in calendars}
    problems = {
        r.document.doc_id: d
        for r in records
        if (d := disagreement(r, cal_of[r.document.company or ""])) is not None
    }
    print(f"\ndoc_name vs cover disagreements: {len(problems)}")
    for doc_id, text in problems.items():
        print(f"  {doc_id}: {text}")
    relabelled = {
        r.document.doc_id: f"name {name.year} -> company's fiscal {r.document.fiscal_year}"
        for r in records
        if (name := parse_doc_name(r.document.doc_id))
        and name.year
        and r.document.fiscal_year not in (None, name.year)
    }
    print(
        f"doc_name year vs the fiscal year of the period end / 8-K date under the company's"
        f" own naming: {len(relabelled)} differ"
    )
    for doc_id, text in relabelled.items():
        print(f"  {doc_id}: {text}")
    print(f"\nstore saved to {store_path}")

    payload = {
        "documents": len(records),
        "pdf_covers": len(covers),
        "evidence_covers": len(evidence),
        "period_end_source": dict(sources_count),
        "calendars": [c.model_dump(mode="json") for c in calendars],
        "disagreements": problems,
        "label_differences": relabelled,
    }
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(payload, indent=2), encoding="utf-8")
    print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
