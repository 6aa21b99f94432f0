"""Index benchmark: the evidence for the embedded backend and the sparse (BM25) choice.

``scale``: builds :class:`~filingqa.retrieval.index.PassageIndex` from N synthetic filing
passages (tables and MD&A-style text over 60 companies x 10 years x 10-K/10-Q, numbers
perturbed so every passage is unique) on each embedded engine, and reports build time,
disk size and search latency p50/p95 (hybrid with and without payload filters, dense and
sparse alone), plus a bm25s side index over the same terms for comparison. Dense vectors
are random 384-d unit vectors (seeded by the text): embedding 100k texts with MiniLM takes
~1 h on 2 cores, and vector values do not change the engines' work; the real query
embedding cost is measured separately by ``quality``.

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
import itertools
import json
import os
import random
import shutil
import statistics
import tempfile
import time
import zlib
from collections.abc import Callable, Iterable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

import bm25s
import numpy as np
from tqdm import tqdm

from filingqa.core.config import ConfigError
from filingqa.core.config import data_dir as resolve_data_dir
from filingqa.retrieval.documents import Document, Passage
from filingqa.retrieval.embedder import Embedder
from filingqa.retrieval.index import PassageIndex, SearchFilters
from filingqa.retrieval.lexical import BM25Encoder, tokenize
from filingqa.retrieval.search import QUERY_THREADS

REPO = Path(__file__).resolve().parents[1]
DEFAULT_JSON = REPO / "results" / "index_scale.json"
DIM = 384
T = TypeVar("T")
K = 10
YEARS = range(2015, 2025)
_PREFIXES = [
    "Northwind",
    "Contoso",
    "Fabrikam",
    "Tailspin",
    "Litware",
    "Adatum",
    "Proseware",
    "Woodgrove",
]
_SUFFIXES = [
    "Instruments",
    "Energy",
    "Foods",
    "Logistics",
    "Pharma",
    "Semiconductors",
    "Retail",
    "Insurance",
]
COMPANIES = [f"{p} {s}" for p in _PREFIXES for s in _SUFFIXES][:60]
METRICS = [
    "Net revenue", "Cost of revenue", "Gross profit", "Research and development",
    "Selling, general and administrative", "Operating income", "Interest expense",
    "Income tax expense", "Net income", "Diluted earnings per share", "Total assets",
    "Total liabilities", "Long-term debt", "Cash and cash equivalents", "Inventories",
    "Accounts receivable", "Capital expenditures", "Dividends paid", "Share repurchases",
    "Free cash flow", "Depreciation and amortization", "Goodwill", "Deferred revenue",
    "Operating lease liabilities", "Stock-based compensation", "Restructuring charges",
]  # fmt: skip
TOPICS = [
    "supply chain disruption", "foreign currency exchange rates", "interest rate risk",
    "cybersecurity incidents", "customer concentration", "commodity prices",
    "regulatory changes", "pension obligations", "goodwill impairment", "litigation",
    "inflation and wage pressure", "credit facility covenants", "tax audits",
]  # fmt: skip
SEGMENTS = [
    "Instruments",
    "Services",
    "Software",
    "Consumer",
    "Industrial",
    "Healthcare",
    "Americas",
    "EMEA",
]
SENTENCES = [
    "{metric} was ${v1} million in fiscal {year} compared with ${v2} million in fiscal {prev}.",
    "{metric} increased {pct}% year over year, driven by higher volume in the {segment} segment.",
    "{metric} decreased {pct}% primarily because of {topic}.",
    "We are exposed to {topic}, which could adversely affect our results of operations.",
    "Management believes cash flows from operations and the credit facility are sufficient.",
    "The {segment} segment reported operating margin of {pct}% in fiscal {year}.",
    "During fiscal {year} we repurchased {v3} million shares for ${v1} million.",
    "As of {month} {day}, {year}, we had ${v2} million outstanding under the revolving facility.",
    "Gross margin expanded {pct} basis points as component costs eased in the second half.",
    "See Note {note} to the Consolidated Financial Statements for further discussion.",
    "{company} expects capital expenditures of ${v1} million to ${v2} million in fiscal {next}.",
    "Changes in {topic} reduced {metric} by approximately ${v3} million.",
]  # fmt: skip
MONTHS = ["March", "June", "September", "December"]
QUERY_TEMPLATES = [
    "What was {company}'s {metric} in fiscal {year}?",
    "How did {metric} change for {company} between {prev} and {year}?",
    "{company} {metric} {year}",
    "What does {company} say about {topic} in its {year} 10-K?",
]


def documents() -> list[Document]:
    """60 companies x 10 years x (10-K + three 10-Qs)."""
    docs = []
    for company in COMPANIES:
        ticker = "".join(word[:2] for word in company.split()).upper()
        for year in YEARS:
            docs.append(_document(company, ticker, year, None))
            docs.extend(_document(company, ticker, year, q) for q in (1, 2, 3))
    return docs


def _document(company: str, ticker: str, year: int, quarter: int | None) -> Document:
    kind = "10q" if quarter else "10k"
    suffix = f"{year}Q{quarter}" if quarter else str(year)
    return Document(
        doc_id=f"{ticker}_{suffix}_{kind.upper()}",
        company=company,
        ticker=ticker,
        doc_type=kind,
        fiscal_year=year,
        fiscal_quarter=quarter,
    )


def passages(n: int, docs: list[Document], seed: int = 0) -> Iterator[Passage]:
    """``n`` unique synthetic passages spread round-robin over ``docs``."""
    rng = random.Random(seed)
    for i in range(n):
        doc = docs[(i * 7919) % len(docs)]  # a prime stride spreads consecutive passages
        page = 1 + i // len(docs)
        if rng.random() < 0.45:
            yield _table(rng, doc, page, i)
        else:
            yield _text(rng, doc, page, i)


def _table(rng: random.Random, doc: Document, page: int, i: int) -> Passage:
    year = doc.fiscal_year or 2020
    rows = rng.sample(METRICS, rng.randint(4, 8))
    caption = rng.choice(["Consolidated Statements of Operations", "Balance Sheets", "Cash Flows"])
    lines = [f"{caption} (in millions)", f"| | {year} | {year - 1} | {year - 2} |"]
    lines += [f"| {m} | {_money(rng)} | {_money(rng)} | {_money(rng)} |" for m in rows]
    return Passage(
        id=f"{doc.doc_id}:p{page}:table{i}",
        doc_id=doc.doc_id,
        page=page,
        kind="table",
        text="\n".join(lines),
        item="Item 8",
        title=caption,
    )


def _text(rng: random.Random, doc: Document, page: int, i: int) -> Passage:
    year = doc.fiscal_year or 2020
    slots = {
        "company": doc.company,
        "year": year,
        "prev": year - 1,
        "next": year + 1,
        "segment": rng.choice(SEGMENTS),
        "topic": rng.choice(TOPICS),
        "month": rng.choice(MONTHS),
        "day": rng.randint(1, 30),
        "note": rng.randint(1, 20),
    }
    sentences = []
    for template in rng.sample(SENTENCES, rng.randint(4, 7)):
        values = {"v1": _money(rng), "v2": _money(rng), "v3": f"{rng.uniform(0.5, 30):.1f}"}
        values |= {"pct": f"{rng.uniform(0.5, 25):.1f}", "metric": rng.choice(METRICS)}
        sentences.append(template.format(**slots, **values))
    item = rng.choice(["Item 7", "Item 7", "Item 1A", "Item 7A"])
    return Passage(
        id=f"{doc.doc_id}:p{page}:text{i}",
        doc_id=doc.doc_id,
        page=page,
        kind="text",
        text=" ".join(sentences),
        item=item,
    )


def _money(rng: random.Random) -> str:
    return f"{rng.uniform(10, 9000):,.1f}"


def queries(n: int, seed: int = 1) -> list[tuple[str, SearchFilters]]:
    """Questions with the company/year filter a question would carry."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        company, year = rng.choice(COMPANIES), rng.choice(list(YEARS))
        slots = {"company": company, "year": year, "prev": year - 1}
        slots |= {"metric": rng.choice(METRICS).lower(), "topic": rng.choice(TOPICS)}
        text = rng.choice(QUERY_TEMPLATES).format(**slots)
        out.append((text, SearchFilters(company=company, fiscal_year=year)))
    return out


def random_embedder() -> Embedder:
    """Unit 384-d vectors seeded by the text: MiniLM-shaped, free to compute."""

    def encode(texts: list[str]) -> np.ndarray:
        out = np.empty((len(texts), DIM), dtype=np.float32)
        for row, text in enumerate(texts):
            vector = np.random.default_rng(zlib.crc32(text.encode())).standard_normal(DIM)
            out[row] = vector / np.linalg.norm(vector)
        return out

    return Embedder("random-384", DIM, encode)


def minilm_queries() -> Embedder:
    """:func:`random_embedder` for passages, the real MiniLM (uncached, on the threads
    :meth:`FilingSearch.open` gives it) for queries."""
    minilm = Embedder.load(cache=False, threads=QUERY_THREADS)
    passages = random_embedder()

    def encode_queries(texts: list[str]) -> np.ndarray:
        return np.stack([minilm.embed_query(text) for text in texts])

    return Embedder(passages.name, DIM, passages.embed_passages, encode_queries)


def percentiles(samples_ms: list[float]) -> dict[str, float]:
    ordered = sorted(samples_ms)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {"p50": round(statistics.median(ordered), 2), "p95": round(p95, 2)}


def timed(fn: Callable[[T], object], items: Iterable[T]) -> list[float]:
    """Milliseconds per call of ``fn`` on each item."""
    out = []
    for item in items:
        start = time.perf_counter()
        fn(item)
        out.append((time.perf_counter() - start) * 1000)
    return out


def disk_mb(path: Path) -> float:
    """Allocated size (qdrant-edge preallocates sparse 32 MiB files; they count as used)."""
    files = (p for p in path.rglob("*") if p.is_file())
    return round(sum(f.stat().st_blocks * 512 for f in files) / 2**20, 1)


def scale_run(engine: str, n: int, workdir: Path, n_queries: int) -> dict[str, Any]:
    """Build an index of ``n`` passages on ``engine`` and time its searches."""
    docs = documents()
    location = workdir / f"{engine}-{n}"
    shutil.rmtree(location, ignore_errors=True)
    index = PassageIndex.open(location, random_embedder(), engine=engine)  # type: ignore[arg-type]
    commit_s: list[float] = []
    commit = index._store.commit  # timed apart: the HNSW build

    def timed_commit() -> None:
        start = time.perf_counter()
        commit()
        commit_s.append(time.perf_counter() - start)

    index._store.commit = timed_commit  # type: ignore[method-assign]
    start = time.perf_counter()
    index.add(passages(n, docs), docs, batch_size=512, progress=True)
    build_s = time.perf_counter() - start
    assert index.count() == n
    index.close()
    start = time.perf_counter()
    index = PassageIndex.open(location, random_embedder(), engine=engine)  # type: ignore[arg-type]
    open_s = time.perf_counter() - start
    row: dict[str, Any] = {
        "engine": engine,
        "n": n,
        "build_s": round(build_s, 1),
        "hnsw_build_s": round(sum(commit_s), 1),
        "reopen_s": round(open_s, 2),
        "disk_mb": disk_mb(location),
    }
    start = time.perf_counter()
    index.add(passages(n, docs), docs, batch_size=512, progress=False)
    row["rerun_unchanged_s"] = round(time.perf_counter() - start, 1)
    start = time.perf_counter()
    index.add(itertools.islice(passages(n + 100, docs), n, None), docs, progress=False)
    row["add_100_more_s"] = round(time.perf_counter() - start, 2)
    qs = queries(n_queries)
    broad = SearchFilters(doc_type="10k", kind="table")
    cases: dict[str, Callable[[tuple[str, SearchFilters]], object]] = {
        "hybrid": lambda q: index.search(q[0], K),
        "hybrid_company_year": lambda q: index.search(q[0], K, filters=q[1]),
        "hybrid_10k_tables": lambda q: index.search(q[0], K, filters=broad),
        "dense": lambda q: index.search(q[0], K, mode="dense"),
        "sparse": lambda q: index.search(q[0], K, mode="sparse"),
    }
    for name, case in cases.items():
        timed(case, qs[: max(1, len(qs) // 20)])  # warm-up
        row[name] = percentiles(timed(case, tqdm(qs, desc=f"{engine} {n} {name}", leave=False)))
    if engine == "edge":  # end to end: the real MiniLM embeds each query (no cache)
        index.embedder = minilm_queries()
        case = cases["hybrid_company_year"]
        timed(case, qs[:10])
        row["hybrid_company_year_minilm_query"] = percentiles(timed(case, qs))
    index.close()
    shutil.rmtree(location, ignore_errors=True)
    return row


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
