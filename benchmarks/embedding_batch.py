"""Passages embedded per second by batch size, on real FinanceBench passages (issue 49 item 6).

Cuts three FinanceBench PDFs as the index does (the offline embedder's recipe, headers
included), samples passages, and embeds them shortest first with fastembed in batches of
each size, on every core, uncached: the rate a build's embedding runs at.

    FILINGQA_DATA_DIR=../shared/datasets .venv/bin/python benchmarks/embedding_batch.py
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path

from filingqa.core.config import data_dir
from filingqa.evaluation.corpora import FINANCEBENCH_PDFS
from filingqa.models.embedding import load_text_embedding
from filingqa.retrieval.index.corpus import file_corpus
from filingqa.retrieval.index.embedder import Embedder

RESULTS = Path(__file__).resolve().parents[1] / "results" / "embedding_batch.json"


def passage_texts(pdfs: list[Path], embedder: Embedder) -> list[str]:
    """The texts the index would embed for ``pdfs``, headers included."""
    recipe = embedder.passage_recipe()
    texts = []
    for item in file_corpus(pdfs).items:
        ingested = item.ingest(recipe.budget)
        texts += [recipe.embedding_text(p, ingested.document) for p in ingested.passages]
    return texts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path)
    parser.add_argument("--passages", type=int, default=768)
    parser.add_argument("--batches", type=int, nargs="+", default=[256, 32, 16, 8, 4])
    parser.add_argument("--json", type=Path, default=RESULTS)
    args = parser.parse_args()
    pdfs = sorted((data_dir(args.data_dir) / FINANCEBENCH_PDFS).glob("*.pdf"))[:40:13]
    texts = passage_texts(pdfs, Embedder.load(cache=False))
    sample = sorted(random.Random(0).sample(texts, min(args.passages, len(texts))), key=len)
    model = load_text_embedding()
    list(model.passage_embed(sample[:8], batch_size=8))  # warm up
    rates = {}
    for batch in args.batches:
        started = time.perf_counter()
        list(model.passage_embed(sample, batch_size=batch))
        rates[batch] = round(len(sample) / (time.perf_counter() - started), 1)
        print(f"batch {batch:4d}: {rates[batch]:6.1f} passages/s", flush=True)
    summary = {
        "benchmark": "offline MiniLM passages/s by fastembed batch size, shortest first",
        "pdfs": [p.name for p in pdfs],
        "passages": len(sample),
        "passages_per_second": rates,
    }
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(summary, indent=1) + "\n")
    print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
