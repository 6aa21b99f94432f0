"""The holdings rule on every FinanceBench dev question, over the real index, without an LM.

For each question: the filings its gold evidence comes from, whether their PDFs are in the
corpus, and the rule's ruling (``not_indexed``, the company scope it searches, or none).
A question whose filing is in the corpus must never be ruled ``not_indexed`` (a false
refusal); one whose filing is absent is ruled ``not_indexed`` unless another filing of its
company reports the period asked (the program may then answer from its comparative
columns). Prints the counts and every question out of line; writes ids and rulings only.

    python benchmarks/holdings_check.py [--index DIR] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from filingqa.checks.holdings import CompanyScope, NotIndexed, check_holdings
from filingqa.datasets.registry import load_dataset
from filingqa.evaluation.slices.committed import load_slice
from filingqa.records.search_handle import holdings_of
from filingqa.retrieval.index.locations import default_index_dir
from filingqa.retrieval.search.pipeline import FilingSearch

DEFAULT_OUT = Path(__file__).parent / "runs" / "holdings-financebench.json"


def ruling_name(ruling: NotIndexed | CompanyScope | None) -> str:
    """``not_indexed``, ``scope`` or ``none``."""
    if isinstance(ruling, NotIndexed):
        return "not_indexed"
    return "scope" if isinstance(ruling, CompanyScope) else "none"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index", type=Path, default=default_index_dir("financebench"))
    parser.add_argument("--data-dir", type=Path)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args()
    holdings = holdings_of(FilingSearch.open(args.index))
    if holdings is None:
        raise SystemExit(f"{args.index} holds no document metadata: rebuild it with filingqa index")
    slices = {
        name: set(load_slice(name, dataset="financebench:dev").ids)
        for name in ("financebench-dev-tuning", "financebench-dev-report")
    }
    rows = []
    for record in load_dataset("financebench:dev", args.data_dir):
        ruling = check_holdings(record.question, holdings)
        absent = bool(record.meta.get("missing_pdfs"))
        rows.append(
            {
                "id": record.id,
                "slice": next((name for name, ids in slices.items() if record.id in ids), ""),
                "filing_absent": absent,
                "ruling": ruling_name(ruling),
                "scope": [c.name for c in ruling.companies]
                if isinstance(ruling, CompanyScope)
                else [],
            }
        )
    counts = Counter((row["filing_absent"], row["ruling"]) for row in rows)
    print("filing    ruling        questions")
    for (absent, ruling), count in sorted(counts.items()):
        print(f"{'absent' if absent else 'indexed':9s} {ruling:12s} {count:9d}")
    refused = [row for row in rows if not row["filing_absent"] and row["ruling"] == "not_indexed"]
    print(f"\nfalse refusals (filing indexed, ruled not_indexed): {len(refused)}")
    for row in refused:
        print(f"  {row['id']} ({row['slice'] or 'no slice'})")
    print("\nquestions whose filing is absent:")
    for row in rows:
        if row["filing_absent"]:
            print(f"  {row['id']} ({row['slice'] or 'no slice'}): {row['ruling']} {row['scope']}")
    args.out.write_text(json.dumps({"index": args.index.name, "rows": rows}, indent=1) + "\n")
    print(f"\nwrote {args.out}")


if __name__ == "__main__":
    main()
