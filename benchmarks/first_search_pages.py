"""How often the first search alone finds a gold page, by passages per search, with no LM:
the question as written (no decomposition or query writing), reranked by an artifact's
reranker, on a FinanceBench dev slice (default the tuning one).

    python benchmarks/first_search_pages.py --out benchmarks/runs/first_search_pages.json \
        [--artifact artifacts/qwen-local] [--slice financebench-dev-tuning] [--k 5 8 12]

This is the open-corpus stage's page check (``optimizers/search_pages.py``) for structures
that write no queries, so it needs the FinanceBench index and no LM. Prints, per ``k``, the
questions whose search found a gold page of those that name one; writes every question's
hit as JSON.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

from filingqa.artifacts.compiled import read_program
from filingqa.datasets.registry import load_dataset
from filingqa.evaluation.open_corpus import open_corpus
from filingqa.evaluation.slices.committed import load_slice, select_slice
from filingqa.optimizers.search_pages import searched_gold_pages
from filingqa.optimizers.structure_search import Structure
from filingqa.program.financial_qa import FinancialQA

DATASET = "financebench:dev"
NO_QUERY_WRITING = {"query_writing": False, "decompose": False, "curation": False}


def plain_search(artifact: FinancialQA, k: int) -> FinancialQA:
    """The artifact's structure searching the question as written for ``k`` passages,
    reranked by the artifact's reranker."""
    manifest = artifact.manifest
    options = manifest.program_options | {"loop": manifest.loop, "k": k, **NO_QUERY_WRITING}
    program = Structure.model_validate(options).build()
    program.reranker = artifact.reranker
    return program


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--artifact", default="artifacts/qwen-local")
    parser.add_argument("--slice", default="financebench-dev-tuning")
    parser.add_argument("--k", type=int, nargs="+", default=[5, 8, 12, 16, 20, 24])
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()

    artifact = read_program(args.artifact)
    records = select_slice(load_dataset(DATASET), load_slice(args.slice, dataset=DATASET))
    programs = {f"k={k}": plain_search(artifact, k) for k in args.k}
    with open_corpus(DATASET) as corpus, tempfile.TemporaryDirectory() as scratch:
        found = searched_gold_pages(programs, records, corpus, pages_dir=Path(scratch))
    for key, hits in found.items():
        known = [hit for hit in hits.values() if hit is not None]
        print(f"{key:>5}: gold page on {sum(known)} of {len(known)} questions")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"slice": args.slice, "pages": found}, indent=1) + "\n")


if __name__ == "__main__":
    main()
