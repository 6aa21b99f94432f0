"""A synthetic filing corpus for latency at scale: 60 companies x 10 fiscal years of a 10-K
and three 10-Qs, their passages (statement tables and MD&A-style text, numbers drawn at
random so every passage is unique) and questions with the filters a question would carry.

Passage vectors come from :func:`random_embedder` (unit vectors seeded by the text): vector
values do not change the index's work, and embedding a large corpus with MiniLM would take
hours on a small machine. :func:`minilm_queries` embeds queries with the real model.
"""

from __future__ import annotations

import random
import zlib
from collections.abc import Iterator

import numpy as np

from filingqa.records.documents import DocType, Document, Passage
from filingqa.retrieval.index.embedder import Embedder
from filingqa.retrieval.index.filters import SearchFilters
from filingqa.retrieval.search.pipeline import QUERY_THREADS

DIM = 384
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
    kind: DocType = "10q" if quarter else "10k"
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
        out.append((text, SearchFilters(company=[company], fiscal_year=[year])))
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
