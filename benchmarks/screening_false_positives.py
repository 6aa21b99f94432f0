"""How much real filing text the injection screen withholds (its false positives).

Screens every passage of the FinanceBench PDFs and of the FinQA / TAT-QA contexts in the
data dir (none of which holds an injection) and prints how many passages and lines were
touched, with examples of what was withheld. Writes JSON.

    python benchmarks/screening_false_positives.py [--data-dir DIR] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from pathlib import Path

from tqdm import tqdm

from filingqa.checks.screening import screen
from filingqa.core.config import data_dir as resolve_data_dir
from filingqa.datasets import load_dataset
from filingqa.records import Passage
from filingqa.retrieval.ingest.filings import (
    context_passages,
    document_from_name,
    page_passages,
    read_pdf_cached,
)

CONTEXT_SPLITS = ("finqa:dev_sample200", "finqa:train_sample100", "tatqa:dev")


def financebench_passages(root: Path) -> Iterator[tuple[str, list[Passage]]]:
    """Each FinanceBench PDF's passages, as the index ingests them."""
    for pdf in tqdm(sorted((root / "financebench" / "pdfs").glob("*.pdf")), desc="pdfs"):
        pages = read_pdf_cached(pdf)
        yield "financebench", page_passages(document_from_name(pdf.stem), pages)


def context_split_passages(root: Path) -> Iterator[tuple[str, list[Passage]]]:
    """Each question context of the FinQA / TAT-QA splits present (shared contexts once)."""
    for split in CONTEXT_SPLITS:
        try:
            records = load_dataset(split, data_dir=root)
        except FileNotFoundError:
            continue
        seen: set[str] = set()
        for record in records:
            passages = [p for p in context_passages(record) if p.id not in seen]
            seen.update(p.id for p in passages)
            yield split, passages


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir")
    parser.add_argument("--json", type=Path, default=Path("results/screening_false_positives.json"))
    args = parser.parse_args()
    root = resolve_data_dir(args.data_dir)
    totals: dict[str, dict[str, int]] = {}
    examples: list[dict[str, str]] = []
    for source, passages in [*financebench_passages(root), *context_split_passages(root)]:
        counts = totals.setdefault(source, {"passages": 0, "lines": 0, "touched": 0, "withheld": 0})
        screening = screen(passages)
        counts["passages"] += len(passages)
        counts["lines"] += sum(len(p.text.splitlines()) for p in passages)
        for before, after in zip(passages, screening.passages, strict=True):
            if before.text != after.text:
                counts["touched"] += 1
        counts["withheld"] += len(screening.withheld)
        examples += [{"source": source, "text": text[:300]} for text in screening.withheld]
    print(f"{'source':24} {'passages':>9} {'lines':>9} {'touched':>8} {'withheld':>9}")
    for source, c in totals.items():
        counts = f"{c['passages']:9,} {c['lines']:9,} {c['touched']:8,} {c['withheld']:9,}"
        print(f"{source:24} {counts}")
    for example in examples[:40]:
        print(f"  [{example['source']}] {example['text']!r}")
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps({"totals": totals, "withheld": examples}, indent=2))
    print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
