"""Index benchmark: the evidence for the embedded backend and the sparse (BM25) choice.

``scale``: :func:`filingqa.evaluation.retrieval.scale_latency.scale_run` on each embedded engine (an
index of N synthetic filing passages from :mod:`filingqa.evaluation.retrieval.synthetic_filings`,
random 384-d passage vectors): build time, disk size and search latency p50/p95 (hybrid
with and without payload filters, dense and sparse alone), plus a bm25s side index over the
same terms for comparison. Embedding 100k texts with MiniLM would dominate the run, and
vector values do not change the engines' work; the real query embedding cost is measured
separately by ``quality``.

``quality``: a small labelled check on FinanceBench (100 dev questions; corpus = their
evidence pages cut into ~120-word passages): page hit@k and MRR@10 for bm25s (its own
tokenizer and ours), Qdrant sparse vectors (ours, several ``avg_len``), dense MiniLM and
hybrid RRF; plus MiniLM query-embedding latency.

Usage (run from outside the repo root)::

    python benchmarks/index_scale.py scale --sizes 10000 100000 [--engines edge local]
    python benchmarks/index_scale.py quality [--data-dir ../shared/datasets]

Results are merged into ``results/index_scale.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import bm25s
import numpy as np
from tqdm import tqdm

from filingqa.core.config import ConfigError
from filingqa.core.config import data_dir as resolve_data_dir
from filingqa.evaluation.retrieval.scale_latency import SEARCH_K as K
from filingqa.evaluation.retrieval.scale_latency import percentiles, scale_run, timed
from filingqa.evaluation.retrieval.synthetic_filings import documents, passages, queries
from filingqa.records.documents import Document, Passage
from filingqa.retrieval.index.embedder import Embedder
from filingqa.retrieval.index.filters import SearchFilters
from filingqa.retrieval.index.lexical import BM25Encoder, tokenize
from filingqa.retrieval.index.passage_index import PassageIndex

REPO = Path(__file__).resolve().parents[1]
DEFAULT_JSON = REPO / "results" / "index_scale.json"


def bm25s_run(n: int, n_queries: int) -> dict[str, Any]:
    """A bm25s side index over the same terms: build time and query latency (masked)."""
    docs = documents()
    by_id = {d.doc_id: d for d in docs}
    corpus = list(passages(n, docs))
    start = time.perf_counter()
    tokens = [tokenize(p.text) for p in tqdm(corpus, desc="bm25s tokenize", leave=False)]
    retriever = bm25s.BM25(k1=1.2, b=0.75, method="lucene")
    retriever.index(tokens, show_progress=False)
    build_s = time.perf_counter() - start
    vocab = retriever.vocab_dict
    company = np.array([by_id[p.doc_id].company for p in corpus])
    year = np.array([by_id[p.doc_id].fiscal_year for p in corpus])

    def search(q: tuple[str, SearchFilters], masked: bool) -> object:
        terms = [t for t in tokenize(q[0]) if t in vocab] or [next(iter(vocab))]
        mask = None
        if masked:
            mask = (company == q[1].company[0]) & (year == q[1].fiscal_year[0])
            mask = mask.astype(np.float32)
        return retriever.retrieve([terms], k=K, show_progress=False, weight_mask=mask)

    qs = queries(n_queries)
    row: dict[str, Any] = {"engine": "bm25s (sparse only)", "n": n, "build_s": round(build_s, 1)}
    for name, masked in (("sparse", False), ("sparse_company_year", True)):
        timed(lambda q, m=masked: search(q, m), qs[:10])
        row[name] = percentiles(timed(lambda q, m=masked: search(q, m), qs))
    return row


def financebench(data: Path) -> tuple[list[Passage], list[Document], list[tuple[str, set]]]:
    """Evidence pages cut into ~120-word passages, and questions with their gold pages."""
    folder = data / "financebench"
    info = {}
    for line in (folder / "financebench_document_information.jsonl").open():
        record = json.loads(line)
        info[record["doc_name"]] = record
    rows = [json.loads(line) for line in (folder / "financebench_dev.jsonl").open()]
    pages: dict[tuple[str, int], str] = {}
    labelled = []
    for row in rows:
        gold = set()
        for evidence in row["evidence"]:
            key = (evidence["doc_name"], evidence["evidence_page_num"] + 1)
            pages[key] = evidence["evidence_text_full_page"]
            gold.add(key)
        labelled.append((row["question"], gold))
    corpus = [
        passage for (doc, page), text in sorted(pages.items()) for passage in _cut(doc, page, text)
    ]
    docs = [
        Document(
            doc_id=doc,
            company=info.get(doc, {}).get("company"),
            fiscal_year=info.get(doc, {}).get("doc_period"),
        )
        for doc in sorted({doc for doc, _ in pages})
    ]
    return corpus, docs, labelled


def _cut(doc: str, page: int, text: str, size: int = 120, stride: int = 100) -> list[Passage]:
    words = text.split()
    starts = range(0, max(1, len(words) - size + stride), stride)
    return [
        Passage(
            id=f"{doc}:p{page}:text{n}",
            doc_id=doc,
            page=page,
            kind="text",
            text=" ".join(words[s : s + size]),
        )
        for n, s in enumerate(starts)
    ]


def ranking_metrics(ranked: list[list[tuple[str, int]]], gold: list[set]) -> dict[str, float]:
    """Page-level hit@1/5/10 and MRR@10 over ranked (doc_id, page) lists."""
    out: dict[str, float] = {}
    for k in (1, 5, 10):
        hits = [any(p in g for p in r[:k]) for r, g in zip(ranked, gold, strict=True)]
        out[f"hit@{k}"] = statistics.mean(hits)
    reciprocal = []
    for r, g in zip(ranked, gold, strict=True):
        first = next((i for i, p in enumerate(r[:10], start=1) if p in g), None)
        reciprocal.append(1 / first if first else 0.0)
    out["mrr@10"] = statistics.mean(reciprocal)
    return {key: round(value, 3) for key, value in out.items()}


def quality(data: Path, workdir: Path) -> dict[str, Any]:
    """Lexical and dense retrieval quality on the FinanceBench labelled check."""
    corpus, docs, labelled = financebench(data)
    questions = [q for q, _ in labelled]
    gold = [g for _, g in labelled]
    where = [(p.doc_id, p.page) for p in corpus]
    results: dict[str, Any] = {"passages": len(corpus), "questions": len(labelled)}

    def bm25s_ranked(doc_tokens: list[list[str]], query_tokens: list[list[str]]) -> list:
        retriever = bm25s.BM25(k1=1.2, b=0.75, method="lucene")
        retriever.index(doc_tokens, show_progress=False)
        vocab = retriever.vocab_dict
        ranked = []
        for terms in query_tokens:
            known = [t for t in terms if t in vocab] or [next(iter(vocab))]
            ids, _ = retriever.retrieve([known], k=10, show_progress=False)
            ranked.append([where[i] for i in ids[0]])
        return ranked

    plain = bm25s.tokenize([p.text for p in corpus], stopwords="en", return_ids=False)
    plain_q = bm25s.tokenize(questions, stopwords="en", return_ids=False)
    ours = [tokenize(p.text) for p in corpus]
    results["bm25s, bm25s tokenizer"] = ranking_metrics(bm25s_ranked(plain, plain_q), gold)
    results["bm25s, our tokenizer"] = ranking_metrics(
        bm25s_ranked(ours, [tokenize(q) for q in questions]), gold
    )
    exact_avg = round(statistics.mean(map(len, ours)), 1)
    results["mean_terms_per_passage"] = exact_avg
    embedder = Embedder.load(threads=1)
    embedder.embed_passages([p.text for p in corpus])  # fills the cache once
    for avg_len in (64.0, 128.0, 256.0, exact_avg):
        location = workdir / f"quality-{avg_len}"
        shutil.rmtree(location, ignore_errors=True)
        with PassageIndex.open(location, embedder, lexical=BM25Encoder(avg_len=avg_len)) as index:
            index.add(corpus, docs, progress=False)
            modes = (
                ["sparse"] if avg_len != BM25Encoder().avg_len else ["sparse", "dense", "hybrid"]
            )
            for mode in modes:
                ranked = [
                    [(h.passage.doc_id, h.passage.page) for h in index.search(q, 10, mode=mode)]
                    for q in tqdm(questions, desc=f"{mode} avg_len={avg_len}", leave=False)
                ]
                label = f"qdrant {mode}" + (f", avg_len={avg_len}" if mode == "sparse" else "")
                results[label] = ranking_metrics(ranked, gold)
        shutil.rmtree(location, ignore_errors=True)
    cold = Embedder.load(threads=None, cache=False)
    results["minilm_query_embed_ms"] = percentiles(timed(cold.embed_query, questions))
    return results


def merge_json(path: Path, key: str, value: Any) -> None:
    """Set ``key`` in the JSON file; scale rows replace only rows of the same engine and N."""
    data = json.loads(path.read_text()) if path.exists() else {}
    if key == "scale":
        fresh = {(row["engine"], row["n"]) for row in value}
        kept = [row for row in data.get(key, []) if (row["engine"], row["n"]) not in fresh]
        value = sorted(kept + value, key=lambda row: (row["n"], row["engine"]))
    data[key] = value
    data["machine"] = {
        "cpus": os.cpu_count(),
        "load_avg_1m_at_write": round(os.getloadavg()[0], 2),  # >0 means shared CPU
        "updated": datetime.now(UTC).isoformat(),
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) + "\n")


def print_scale(rows: list[dict[str, Any]]) -> None:
    head = f"{'engine':<20} {'N':>7} {'build s':>8} {'hnsw s':>7} {'disk MB':>8} "
    head += f"{'hybrid p50/p95':>15} {'+filter p50/p95':>16} {'10k-tables':>12} "
    print(head + f"{'dense p50':>9} {'sparse p50':>10}")
    for r in rows:
        cells = [
            f"{r['engine']:<20} {r['n']:>7} {r['build_s']:>8} {r.get('hnsw_build_s', '-'):>7}",
            f"{r.get('disk_mb', '-'):>8} {_pp(r, 'hybrid'):>15}",
            f"{_pp(r, 'hybrid_company_year'):>16}",
            f"{_pp(r, 'hybrid_10k_tables'):>12} {_p50(r, 'dense'):>9} {_p50(r, 'sparse'):>10}",
        ]
        print(" ".join(cells))
        if "sparse_company_year" in r:
            print(f"{'':<20} {'':>7} bm25s with company+year mask: {_pp(r, 'sparse_company_year')}")


def _pp(row: dict[str, Any], key: str) -> str:
    return f"{row[key]['p50']}/{row[key]['p95']}" if key in row else "-"


def _p50(row: dict[str, Any], key: str) -> str:
    return str(row[key]["p50"]) if key in row else "-"


def main(argv: list[str] | None = None) -> int:
    """Run the chosen benchmark and merge its results into the JSON file."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    scale = sub.add_parser("scale", help="build time, disk, latency at N passages")
    scale.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    scale.add_argument("--engines", nargs="+", default=["edge", "local"])
    scale.add_argument("--queries", type=int, default=200)
    scale.add_argument("--local-queries", type=int, default=30, help="local mode is slow")
    scale.add_argument("--no-bm25s", action="store_true", help="skip the bm25s side index")
    check = sub.add_parser("quality", help="labelled retrieval check on FinanceBench")
    check.add_argument("--data-dir", default=None)
    for command in (scale, check):
        command.add_argument("--json", type=Path, default=DEFAULT_JSON)
        command.add_argument("--workdir", type=Path, default=None)
    args = parser.parse_args(argv)
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="index-bench-"))
    if args.command == "scale":
        rows = []
        for n in args.sizes:
            for engine in args.engines:
                n_queries = args.queries if engine == "edge" else args.local_queries
                rows.append(scale_run(engine, n, workdir, n_queries))
            if not args.no_bm25s:
                rows.append(bm25s_run(n, args.queries))
            print_scale(rows)
            merge_json(args.json, "scale", rows)
        return 0
    try:
        data = resolve_data_dir(args.data_dir)
    except ConfigError:
        data = REPO.parent / "shared" / "datasets"
    results = quality(data, workdir)
    print(json.dumps(results, indent=2))
    merge_json(args.json, "quality", results)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
