"""A small finance lexicon: metric names and their filing synonyms, periods, entities.

Pure functions over plain text, shared by the reranker features and the hard-negative miner:
:func:`metric_terms` (canonical metrics a text names), :func:`metric_overlap` (how many of a
query's metrics a passage names), :func:`years` / :func:`periods` (years and fiscal periods
mentioned), :func:`granularity` (segment vs consolidated) and :func:`mentions_company`;
and for search, :func:`search_text`: the question without its answer-format instructions,
with the line items and statement headings its metrics and statements are reported under.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from typing import Literal

from filingqa.retrieval.vocabulary.companies import normalise_company
from filingqa.retrieval.vocabulary.fiscal import PeriodRef, find_periods
from filingqa.retrieval.vocabulary.topics import topic_words

Granularity = Literal["segment", "consolidated"]

METRICS: dict[str, tuple[str, ...]] = {
    "revenue": (
        "revenue",
        "revenues",
        "net revenue",
        "net revenues",
        "total revenue",
        "total revenues",
        "net sales",
        "total net sales",
        "sales",
        "turnover",
        "top line",
    ),
    "cost_of_revenue": (
        "cost of revenue",
        "cost of revenues",
        "cost of sales",
        "cost of goods sold",
        "cogs",
    ),
    "gross_profit": ("gross profit", "gross margin"),
    "operating_income": (
        "operating income",
        "operating profit",
        "income from operations",
        "operating earnings",
        "operating loss",
        "ebit",
    ),
    "ebitda": ("ebitda", "adjusted ebitda"),
    "net_income": (
        "net income",
        "net earnings",
        "net loss",
        "net income attributable",
        "profit attributable",
        "bottom line",
    ),
    "eps": (
        "eps",
        "earnings per share",
        "diluted earnings per share",
        "basic earnings per share",
        "net income per share",
        "per diluted share",
    ),
    "capex": (
        "capex",
        "capital expenditure",
        "capital expenditures",
        "purchases of property, plant and equipment",
        "purchases of property and equipment",
        "additions to property, plant and equipment",
        "payments for property, plant and equipment",
    ),
    "operating_cash_flow": (
        "cash from operations",
        "cash provided by operating activities",
        "cash flows from operating activities",
        "net cash provided by operating activities",
        "operating cash flow",
    ),
    "free_cash_flow": ("free cash flow", "fcf"),
    "working_capital": ("working capital",),
    "current_assets": ("current assets", "total current assets"),
    "current_liabilities": ("current liabilities", "total current liabilities"),
    "total_assets": ("total assets",),
    "total_liabilities": ("total liabilities",),
    "equity": ("shareholders equity", "stockholders equity", "total equity", "book value"),
    "debt": ("long-term debt", "total debt", "borrowings", "senior notes", "notes payable"),
    "cash": ("cash and cash equivalents", "cash equivalents"),
    "inventory": ("inventory", "inventories"),
    "receivables": ("accounts receivable", "receivables", "trade receivables"),
    "payables": ("accounts payable", "trade payables"),
    "dividends": ("dividend", "dividends", "dividends paid", "dividend payout"),
    "share_repurchases": (
        "share repurchases",
        "repurchases of common stock",
        "buyback",
        "buybacks",
    ),
    "depreciation": ("depreciation", "amortization", "depreciation and amortization"),
    "interest_expense": ("interest expense", "interest costs"),
    "income_tax": ("income tax", "income taxes", "provision for income taxes", "tax expense"),
    "effective_tax_rate": ("effective tax rate", "effective income tax rate"),
    "sga": ("selling, general and administrative", "sg&a", "general and administrative"),
    "rnd": ("research and development", "r&d"),
    "goodwill": ("goodwill",),
    "intangibles": ("intangible assets", "intangibles"),
    "impairment": ("impairment", "impairments", "write-down"),
    "restructuring": ("restructuring", "severance"),
    "pension": ("pension", "postretirement", "benefit obligation", "plan assets"),
    "stock_compensation": ("stock-based compensation", "share-based compensation", "stock options"),
    "leases": ("operating leases", "lease payments", "rent expense", "minimum lease payments"),
    "contractual_obligations": ("contractual obligations", "purchase obligations", "commitments"),
    "margin": ("margin", "profit margin", "operating margin", "net margin"),
    "return_on": ("return on assets", "return on equity", "roa", "roe", "roic"),
    "shares_outstanding": (
        "shares outstanding",
        "weighted average shares",
        "weighted-average shares",
    ),
}

STATEMENTS: dict[str, tuple[tuple[str, ...], str]] = {
    "income_statement": (
        (
            "income statement",
            "income statements",
            "statement of income",
            "statements of income",
            "statement of operations",
            "statements of operations",
            "statement of earnings",
            "statements of earnings",
            "p&l",
            "profit and loss",
        ),
        "consolidated statements of operations income earnings",
    ),
    "balance_sheet": (
        (
            "balance sheet",
            "balance sheets",
            "statement of financial position",
            "statements of financial position",
        ),
        "consolidated balance sheets total assets total liabilities",
    ),
    "cash_flow_statement": (
        (
            "cash flow statement",
            "cash flow statements",
            "statement of cash flows",
            "statements of cash flows",
        ),
        "consolidated statements of cash flows operating investing financing activities",
    ),
}
"""Primary statements: ``name -> (how questions call it, the words of its heading)``."""

LINE_ITEMS: dict[tuple[str, ...], str] = {
    ("quick ratio", "acid test"): "cash and cash equivalents marketable securities accounts "
    "receivable total current assets total current liabilities",
    ("working capital", "current ratio"): "total current assets total current liabilities",
    ("gross margin", "gross margins", "gross profit"): "gross profit cost of sales",
    ("operating margin", "operating income"): "operating income",
    ("net profit margin", "net margin"): "net income revenues",
    (
        "capex",
        "capital expenditure",
        "capital expenditures",
        "capital-intensive",
        "capital intensive",
    ): "purchases of property plant and equipment capital expenditures",
    ("free cash flow", "free cashflow", "fcf"): "net cash provided by operating activities "
    "purchases of property and equipment",
    ("inventory turnover", "sold its inventory"): "cost of sales inventories",
    ("days payable", "dpo"): "accounts payable cost of sales inventories",
    ("ebitda",): "operating income depreciation and amortization",
    ("d&a",): "depreciation and amortization",
    ("return on assets", "roa"): "net income total assets",
    ("asset turnover",): "revenues total assets property plant and equipment",
    ("dividend payout", "retention ratio"): "cash dividends paid net income",
    ("effective tax rate",): "effective tax rate provision for income taxes income before "
    "income taxes",
    ("operating cash flow ratio", "cash from operations"): "net cash provided by operating "
    "activities total current liabilities",
    ("liquidity",): "liquidity cash and cash equivalents current assets current liabilities",
}
"""Ratios and colloquial metrics → the line items a filing reports them under."""

SEGMENT_MARKERS: tuple[str, ...] = (
    "segment",
    "segments",
    "division",
    "business unit",
    "reportable",
    "by region",
    "geographic",
    "north america",
    "international",
    "europe",
    "asia",
    "americas",
    "emea",
)
CONSOLIDATED_MARKERS: tuple[str, ...] = (
    "consolidated",
    "total company",
    "company-wide",
    "companywide",
    "as a whole",
    "in total",
)

_YEAR = re.compile(r"(?<![\d.,$])((?:19|20)\d{2})(?!\d|[.,]\d)")


def _pattern(phrases: Iterable[str]) -> re.Pattern[str]:
    words = sorted({_flat(p) for p in phrases}, key=len, reverse=True)
    return re.compile(r"\b(?:" + "|".join(re.escape(w) for w in words) + r")\b")


def _flat(text: str) -> str:
    """Lowercase, apostrophes dropped, punctuation other than ``&`` and ``-`` as spaces."""
    text = re.sub(r"['’]", "", text.lower())
    return " ".join(re.sub(r"[^a-z0-9&\-]+", " ", text).split())


_METRIC_PATTERNS = {name: _pattern(phrases) for name, phrases in METRICS.items()}
_SEGMENT = _pattern(SEGMENT_MARKERS)
_CONSOLIDATED = _pattern(CONSOLIDATED_MARKERS)


@lru_cache(maxsize=100_000)
def metric_terms(text: str) -> frozenset[str]:
    """The canonical metrics ``text`` names ("net sales" and "total revenues" → revenue)."""
    flat = _flat(text)
    return frozenset(name for name, pattern in _METRIC_PATTERNS.items() if pattern.search(flat))


def metric_overlap(query: str, passage: str) -> float:
    """The share of the query's metrics the passage names (0.0 when the query names none)."""
    wanted = metric_terms(query)
    return len(wanted & metric_terms(passage)) / len(wanted) if wanted else 0.0


@lru_cache(maxsize=100_000)
def years(text: str) -> frozenset[int]:
    """Four-digit years (1900-2099) in ``text``, bare or in fiscal phrases ("FY23" → 2023)."""
    found = {int(y) for y in _YEAR.findall(text)}
    for ref in find_periods(text):
        if ref.end_date is not None:
            found.add(ref.end_date.year)
        elif ref.year is not None and not ref.text.isdigit():  # bare years: _YEAR decides
            found.add(ref.year)
    return frozenset(y for y in found if 1900 <= y <= 2099)


def periods(text: str) -> list[PeriodRef]:
    """Every fiscal period expression in ``text`` (quarters, halves, years, "year ended …")."""
    return find_periods(text)


@lru_cache(maxsize=100_000)
def quarters(text: str) -> frozenset[tuple[int, int]]:
    """``(year, quarter)`` of every quarter named with a year ("Q2 FY2024" → (2024, 2))."""
    return frozenset(
        (ref.year, ref.index)
        for ref in find_periods(text)
        if ref.kind == "quarter" and ref.year is not None and ref.index is not None
    )


@lru_cache(maxsize=100_000)
def granularity(text: str) -> Granularity | None:
    """ "segment" if the text speaks of a segment/region, "consolidated" if of the whole."""
    flat = _flat(text)
    if _SEGMENT.search(flat):
        return "segment"
    return "consolidated" if _CONSOLIDATED.search(flat) else None


def mentions_company(text: str, names: Iterable[str]) -> bool:
    """Whether ``text`` names the company by any of ``names`` (name, alias or ticker).

    Names are compared as :func:`normalise_company` keys against runs of up to four words,
    so "Best Buy Co." matches "BESTBUY"; a name of three characters or fewer (a ticker such
    as "V" or "MMM") must appear as a word of its own in capitals.
    """
    names = [n.strip() for n in names if n.strip()]
    words, runs = _word_runs(text)
    if any(len(n) <= 3 and n.upper() in words for n in names):
        return True
    return any(normalise_company(n) in runs for n in names if len(n) > 3)


@lru_cache(maxsize=100_000)
def _word_runs(text: str) -> tuple[frozenset[str], frozenset[str]]:
    """The words of ``text`` and its lowercased runs of 1-4 words, joined."""
    words = re.findall(r"[A-Za-z0-9]+", re.sub(r"['’]s?\b", "", text))
    lowered = [w.lower() for w in words]
    runs = {"".join(lowered[i : i + size]) for size in range(1, 5) for i in range(len(lowered))}
    return frozenset(words), frozenset(runs)


_STATEMENT_PATTERNS = {name: _pattern(names) for name, (names, _) in STATEMENTS.items()}
_LINE_ITEM_PATTERNS = [(_pattern(names), items) for names, items in LINE_ITEMS.items()]
_SENTENCE_END = re.compile(r"(?<=[?!.])\s+(?=[A-Z])")
_DEFINITION = re.compile(r"\bdefined? (?:as|it)\b|\bdefine\b", re.IGNORECASE)


def statements(text: str) -> frozenset[str]:
    """The primary statements ``text`` names ("P&L", "statement of financial position")."""
    flat = _flat(text)
    return frozenset(name for name, pattern in _STATEMENT_PATTERNS.items() if pattern.search(flat))


def question_core(text: str) -> str:
    """The sentences of ``text`` that ask or define something: its questions (what follows
    a lead-in colon) and definitions, without answer-format and persona instructions
    ("Round your answer to two decimal places."); ``text`` when it asks nothing."""
    kept = []
    for sentence in _SENTENCE_END.split(text.strip()):
        if sentence.endswith("?"):
            kept.append(sentence.rsplit(": ", 1)[-1])
        elif _DEFINITION.search(sentence):
            kept.append(sentence)
    return " ".join(kept) if any(s.endswith("?") for s in kept) else text


def search_text(text: str, topics: bool = True) -> str:
    """What to search for ``text``: :func:`question_core`, then the headings of the
    statements and the line items of the metrics the whole text names, and (``topics``) the
    words of the pages that answer the narrative topics its question asks about
    (:mod:`.topics`)."""
    flat = _flat(text)
    core = question_core(text)
    extra = [STATEMENTS[name][1] for name in sorted(statements(text))]
    extra += [items for pattern, items in _LINE_ITEM_PATTERNS if pattern.search(flat)]
    extra += topic_words(core) if topics else []
    return " ".join([core, *dict.fromkeys(extra)])
