"""Ingestion speed and extraction fidelity on the FinanceBench PDFs (cold cache).

    .venv/bin/python benchmarks/ingest_speed.py [--data-dir D] [--limit N] [--compare PAGES]

Ingests every PDF in ``financebench/pdfs`` into passages with an empty cache and prints
pages, seconds, pages/s (wall and CPU), tables found, Item sections tagged and per-file
errors. Then, for the gold evidence pages of ``financebench_dev.jsonl``, the share of the
evidence text's key numbers (3+ digits, or decimals) found in the extracted page text, and
found in a table cell whose row label shares a word with the evidence. ``--compare PAGES``
also times the other MIT candidates (pdfplumber words + text-strategy tables, pdfminer.six
text) on the first PAGES pages of each PDF, when installed. Writes
``results/ingest_speed.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import tempfile
import time
from pathlib import Path
from typing import Any

from filingqa.core.config import data_dir as resolve_data_dir
from filingqa.retrieval.ingest.filings import IngestFailure, ingest_many, read_pages
from filingqa.retrieval.ingest.pdf import PageContent

RESULTS = Path(__file__).resolve().parents[1] / "results" / "ingest_speed.json"
_KEY_NUMBER = re.compile(r"\d[\d,]*\.\d+|\d[\d,]{2,}\d|\d{3,}")
_WORD = re.compile(r"[a-z]{4,}")


def main() -> None:
    args = _arguments()
    pdfs = sorted((resolve_data_dir(args.data_dir) / "financebench" / "pdfs").glob("*.pdf"))
    pdfs = pdfs[: args.limit] if args.limit else pdfs
    with tempfile.TemporaryDirectory() as home:
        os.environ["FILINGQA_HOME"] = home  # cold cache: every PDF is parsed
        speed = _speed(pdfs)
        fidelity = _fidelity(resolve_data_dir(args.data_dir), {p.stem: p for p in pdfs})
    report: dict[str, Any] = {"speed": speed, "fidelity": fidelity}
    if args.compare:
        report["candidates"] = _compare(pdfs, args.compare)
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(report, indent=2))
    print(f"wrote {RESULTS}")


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--limit", type=int, default=0, help="only the first N PDFs")
    parser.add_argument("--compare", type=int, default=0, metavar="PAGES")
    return parser.parse_args()


def _speed(pdfs: list[Path]) -> dict[str, Any]:
    files: list[dict[str, Any]] = []
    start, cpu_start = time.perf_counter(), time.process_time()
    for path, result in zip(pdfs, ingest_many(pdfs, progress=False), strict=True):
        seconds, start = time.perf_counter() - start, time.perf_counter()
        cpu_seconds, cpu_start = time.process_time() - cpu_start, time.process_time()
        if isinstance(result, IngestFailure):
            files.append({"doc": path.stem, "error": f"{result.reason}: {result.detail}"})
            print(f"{path.stem:45} ERROR {result.reason}: {result.detail}")
            continue
        tables = sum(p.kind == "table" and p.parent_id is None for p in result.passages)
        items = len({p.item for p in result.passages if p.item})
        row = {
            "doc": path.stem,
            "pages": result.document.pages,
            "seconds": round(seconds, 3),
            "cpu_seconds": round(cpu_seconds, 3),
            "tables": tables,
            "passages": len(result.passages),
            "items": items,
        }
        files.append(row)
        print(
            f"{path.stem:45} {row['pages']:4} pages {seconds:6.2f} s {tables:4} tables "
            f"{items:3} items"
        )
    done = [f for f in files if "error" not in f]
    pages = sum(f["pages"] for f in done)
    seconds = sum(f["seconds"] for f in done)
    cpu_seconds = sum(f["cpu_seconds"] for f in done)
    totals = {
        "files": len(files),
        "errors": len(files) - len(done),
        "pages": pages,
        "seconds": round(seconds, 2),
        "pages_per_s": round(pages / seconds, 1) if seconds else None,
        "pages_per_cpu_s": round(pages / cpu_seconds, 1) if cpu_seconds else None,
        "tables": sum(f["tables"] for f in done),
        "passages": sum(f["passages"] for f in done),
    }
    print("TOTAL", json.dumps(totals))
    return {"totals": totals, "files": files}


def _fidelity(data_dir: Path, pdfs: dict[str, Path]) -> dict[str, Any]:
    """Key numbers of the gold evidence found in the page text, and in a labelled table row."""
    lines = (data_dir / "financebench" / "financebench_dev.jsonl").read_text().splitlines()
    evidences = [e for line in lines for e in json.loads(line)["evidence"]]
    pages: dict[str, list[PageContent]] = {}
    checked = complete = numbers = in_text = in_row = 0
    for evidence in evidences:
        path = pdfs.get(evidence["doc_name"])
        keys = set(_KEY_NUMBER.findall(evidence["evidence_text"]))
        if path is None or not keys:
            continue
        if path.stem not in pages:
            pages[path.stem] = read_pages(path)
        page = pages[path.stem][evidence["evidence_page_num"]]
        text = page.text
        found = {k for k in keys if k in text}
        checked += 1
        complete += found == keys
        numbers += len(keys)
        in_text += len(found)
        in_row += sum(_in_labelled_row(k, page, evidence["evidence_text"]) for k in found)
    result = {
        "evidence_pages": checked,
        "key_numbers": numbers,
        "found_in_page_text": round(in_text / numbers, 3) if numbers else None,
        "pages_with_all_numbers": round(complete / checked, 3) if checked else None,
        "found_in_table_row_with_evidence_label": round(in_row / numbers, 3) if numbers else None,
    }
    print("FIDELITY", json.dumps(result))
    return result


def _in_labelled_row(number: str, page: PageContent, evidence: str) -> bool:
    words = set(_WORD.findall(evidence.lower()))
    for table in page.tables:
        for row in table.rows:
            labelled = words & set(_WORD.findall(row[0].lower()))
            if labelled and any(number in cell for cell in row[1:]):
                return True
    return False


def _compare(pdfs: list[Path], pages: int) -> dict[str, Any]:
    """Pages/s of pypdfium2 plain text and of the other candidates, on the same pages: a run
    of ``pages`` pages a third of the way into each PDF (past the cover and contents)."""
    import pypdfium2 as pdfium

    chosen: dict[Path, list[int]] = {}
    for path in pdfs:
        total = len(pdfium.PdfDocument(path))
        chosen[path] = list(range(total // 3, min(total, total // 3 + pages)))

    def pdfium_text(path: Path) -> None:
        document = pdfium.PdfDocument(path)
        for i in chosen[path]:
            document[i].get_textpage().get_text_range()

    runners = {"pypdfium2 text": pdfium_text}
    try:
        import pdfplumber

        def plumber(path: Path) -> None:
            with pdfplumber.open(path, pages=[i + 1 for i in chosen[path]]) as pdf:
                for page in pdf.pages:
                    page.extract_words()
                    page.extract_tables(
                        {"vertical_strategy": "text", "horizontal_strategy": "text"}
                    )

        runners["pdfplumber words+tables"] = plumber
    except ImportError:
        pass
    try:
        from pdfminer.high_level import extract_text

        def miner(path: Path) -> None:
            extract_text(path, page_numbers=chosen[path])

        runners["pdfminer.six text"] = miner
    except ImportError:
        pass
    done = sum(len(numbers) for numbers in chosen.values())
    result = {}
    for name, run in runners.items():
        start = time.process_time()
        for path in pdfs:
            run(path)
        rate = done / (time.process_time() - start)
        result[name] = {"pages": done, "pages_per_cpu_s": round(rate, 1)}
        print(f"{name:28} {done:5} pages {rate:7.1f} pages/CPU-s")
    return result


if __name__ == "__main__":
    main()
