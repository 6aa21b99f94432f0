"""The metadata store: the documents and fiscal calendars a build recorded, saved as JSON
beside the index, and the lookups the search pipeline makes of them (a company's name in a
question, its calendar, ``resolve("Best Buy", "Q2 FY2024")``)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import get_args

from pydantic import BaseModel, ConfigDict, Field

from filingqa.core.config import home_dir
from filingqa.records.documents import DocType, Document
from filingqa.retrieval.ingest.metadata import (
    ANNUAL_TYPES,
    DocumentRecord,
    parse_doc_name,
)
from filingqa.retrieval.vocabulary.companies import normalise_company
from filingqa.retrieval.vocabulary.fiscal import (
    FiscalCalendar,
    FiscalSpan,
    Naming,
    PeriodRef,
    find_periods,
    fiscal_period_of,
    fiscal_span,
)

_TYPE_ORDER: tuple[DocType, ...] = get_args(DocType)


class Resolution(BaseModel):
    """A period named in a question, resolved for one company."""

    model_config = ConfigDict(extra="forbid")

    company: str
    period: PeriodRef
    naming: Naming = Field(description="how the period's year number was read")
    span: FiscalSpan
    doc_ids: list[str] = Field(description="filings of that period, best fit first")


class _Snapshot(BaseModel):
    documents: list[DocumentRecord]
    calendars: list[FiscalCalendar]


def _span_rank(doc: Document, span: FiscalSpan, cal: FiscalCalendar) -> int | None:
    """0 = the filing covers exactly ``span``, 1 = it falls inside it, None = outside."""
    if doc.period_end is None:
        return None
    fiscal_year, quarter = fiscal_period_of(doc.period_end, cal)
    if fiscal_year != span.fiscal_year:
        return None
    if doc.doc_type in ANNUAL_TYPES and doc.fiscal_quarter is None:
        return 0 if len(span.quarters) == 4 else None
    if quarter not in span.quarters:
        return None
    return 0 if quarter == span.quarters[-1] else 1


def default_store_dir() -> Path:
    """Where the built store lives by default: ``<FILINGQA_HOME>/metadata``."""
    return home_dir() / "metadata"


class MetadataStore:
    """Documents and fiscal calendars, saved as JSON, with lookups for the program."""

    FILENAME = "metadata.json"

    def __init__(self, records: Iterable[DocumentRecord], calendars: Iterable[FiscalCalendar]):
        self._records = {r.document.doc_id: r for r in records}
        self._calendars = {c.company: c for c in calendars}
        self._aliases: dict[str, set[str]] = {}
        for company in self._calendars:
            self._add_alias(company, company)
        for record in self._records.values():
            doc = record.document
            name = parse_doc_name(doc.doc_id)
            for alias in (doc.ticker, record.registrant, name.company_key if name else None):
                if alias and doc.company:
                    self._add_alias(alias, doc.company)

    def _add_alias(self, alias: str, company: str) -> None:
        self._aliases.setdefault(normalise_company(alias), set()).add(company)

    @classmethod
    def load(cls, directory: Path) -> MetadataStore:
        """Read ``<directory>/metadata.json``."""
        raw = (directory / cls.FILENAME).read_text(encoding="utf-8")
        snapshot = _Snapshot.model_validate_json(raw)
        return cls(snapshot.documents, snapshot.calendars)

    def save(self, directory: Path) -> Path:
        """Write ``<directory>/metadata.json`` atomically (creating the directory); returns
        its path."""
        directory.mkdir(parents=True, exist_ok=True)
        snapshot = _Snapshot(
            documents=list(self._records.values()), calendars=list(self._calendars.values())
        )
        path = directory / self.FILENAME
        staged = path.with_suffix(".tmp")
        staged.write_text(snapshot.model_dump_json(indent=1), encoding="utf-8")
        staged.replace(path)  # readers never see a half-written file
        return path

    def records(self) -> list[DocumentRecord]:
        """Every document record, in insertion order."""
        return list(self._records.values())

    def company(self, name: str) -> str | None:
        """The stored company ``name`` refers to ("MMM", "3M Company" → "3M"), or None.

        Exact match on a normalised name, doc_name key, cover registrant or ticker; else the
        one company with an alias that starts with, or is the start of, the name (≥ 3 chars).
        """
        key = normalise_company(name)
        exact = self._aliases.get(key, set())
        if len(exact) == 1:
            return next(iter(exact))
        if exact or len(key) < 3:
            return None
        near = {
            company
            for alias, companies in self._aliases.items()
            if len(alias) >= 3 and (alias.startswith(key) or key.startswith(alias))
            for company in companies
        }
        return next(iter(near)) if len(near) == 1 else None

    def companies_in(self, text: str) -> list[str]:
        """The stored companies ``text`` names, in order of first mention.

        Runs of one to four words are compared as :func:`normalise_company` keys with the
        aliases (names, doc_name keys, registrants, tickers); an alias of three characters
        or fewer ("V", "MMM", "3M") must appear as a word of its own in capitals, or with
        two of them ("JnJ" for JNJ).
        """
        found: dict[str, None] = {}
        for words in _word_runs(text):
            key = normalise_company(" ".join(words))
            if len(key) <= 3 and (len(words) > 1 or not _capitalised(words[0])):
                continue
            companies = self._aliases.get(key, set())
            if len(companies) == 1:
                found.setdefault(next(iter(companies)), None)
        return list(found)

    def calendars(self) -> list[FiscalCalendar]:
        """Every company's fiscal calendar."""
        return list(self._calendars.values())

    def merged(self, newer: MetadataStore) -> MetadataStore:
        """This store updated by ``newer``: its documents and calendars replace same-id ones."""
        records = {r.document.doc_id: r for r in self.records()}
        records |= {r.document.doc_id: r for r in newer.records()}
        calendars = {c.company: c for c in self.calendars()}
        calendars |= {c.company: c for c in newer.calendars()}
        return MetadataStore(records.values(), calendars.values())

    def calendar(self, company: str) -> FiscalCalendar | None:
        """The fiscal calendar of ``company`` (any spelling :meth:`company` accepts)."""
        canonical = self.company(company)
        return self._calendars.get(canonical) if canonical else None

    def document(self, doc_id: str) -> Document | None:
        """The document with this id, or None."""
        record = self._records.get(doc_id)
        return record.document if record else None

    def documents(self, company: str) -> list[Document]:
        """All documents of ``company``."""
        canonical = self.company(company)
        return [r.document for r in self._records.values() if r.document.company == canonical]

    def resolve(self, company: str, period_text: str) -> list[Resolution]:
        """Each period named in ``period_text`` → its dates and ``company``'s filings for it.

        ``resolve("Best Buy", "Q2 FY2024")`` → fiscal 2024 Q2, 2023-05-01..2023-07-31,
        ``["BESTBUY_2024Q2_10Q", ...]``. The year number is read with the company's own
        naming unless only the other naming finds a filing that fits the period exactly
        (FinanceBench calls Ulta's "fiscal 2022", which ended January 2023, FY2023).
        Empty when the company is unknown.
        """
        canonical = self.company(company)
        if canonical is None:
            return []
        cal = self._calendars[canonical]
        docs = self.documents(canonical)
        other: Naming = "start_year" if cal.naming == "end_year" else "end_year"
        resolutions = []
        for ref in find_periods(period_text):
            readings = [_reading(canonical, cal, docs, ref, n) for n in (cal.naming, other)]
            resolutions.append(min(readings, key=lambda r: r[0])[1])
        return resolutions


def _capitalised(word: str) -> bool:
    """In capitals ("MMM", "3M"), or with two of them ("JnJ"): a ticker, not a word."""
    return word == word.upper() or sum(c.isupper() for c in word) >= 2


def _word_runs(text: str, longest: int = 4) -> list[tuple[str, ...]]:
    """Runs of 1..``longest`` consecutive words of ``text`` (possessives dropped), by start."""
    words = re.findall(r"[A-Za-z0-9&]+", re.sub(r"['’]s?\b", "", text))
    return [
        tuple(words[start : start + size])
        for start in range(len(words))
        for size in range(1, longest + 1)
        if start + size <= len(words)
    ]


def _reading(
    company: str, cal: FiscalCalendar, docs: list[Document], ref: PeriodRef, naming: Naming
) -> tuple[int, Resolution]:
    """``ref`` read with ``naming``; with the best fit rank among its filings (2: none)."""
    reading = cal.model_copy(update={"naming": naming})
    span = fiscal_span(ref, reading)
    ranked = ((_span_rank(d, span, reading), d) for d in docs)
    hits = sorted(
        ((rank, d) for rank, d in ranked if rank is not None),
        key=lambda h: (h[0], _TYPE_ORDER.index(h[1].doc_type), -_ordinal(h[1])),
    )
    resolution = Resolution(
        company=company, period=ref, naming=naming, span=span, doc_ids=[d.doc_id for _, d in hits]
    )
    return (hits[0][0] if hits else 2), resolution


def _ordinal(doc: Document) -> int:
    return doc.period_end.toordinal() if doc.period_end else 0
