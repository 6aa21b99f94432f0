"""Document metadata: who filed it, what it is, which fiscal period it covers.

Three sources, combined per document: the FinanceBench-style ``doc_name``
(``BESTBUY_2024Q2_10Q``), the dataset's document information (company, type, year) and the
filing's cover page (:mod:`~filingqa.retrieval.ingest.cover_page`). Cover-page dates win over
names. Each company's :class:`FiscalCalendar` is inferred from the period-end dates of its
filings. :class:`MetadataStore` saves it all as JSON and answers the program's lookups:
``calendar``, ``document``, ``resolve("Best Buy", "Q2 FY2024")``.

Years in ``doc_name`` follow the dataset's convention (the calendar year in which the fiscal
year ends, for every company); :attr:`Document.fiscal_year` follows the company's own naming.
"""

from __future__ import annotations

import json
import re
from calendar import monthrange
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from filingqa.records.documents import DocType, Document
from filingqa.retrieval.ingest.cover_page import CoverPage, parse_cover_page
from filingqa.retrieval.vocabulary.fiscal import (
    FiscalCalendar,
    Naming,
    december_calendar,
    fiscal_period_of,
    nominal_month,
    period_bounds,
    shift_month,
)

PeriodSource = Literal["cover", "name", "none"]

ANNUAL_TYPES: tuple[DocType, ...] = ("10k", "annual_report")
_INFO_TYPES: dict[str, DocType] = {
    "10k": "10k",
    "10q": "10q",
    "8k": "8k",
    "earnings": "earnings",
    "10k_annualreport": "annual_report",
    "annualreport": "annual_report",
}


# --- doc_name -----------------------------------------------------------------------------

_DOC_NAME = re.compile(
    r"^(?P<company>.+?)(?:_(?P<year>\d{4})(?:Q(?P<quarter>[1-4]))?)?"
    r"_(?P<type>10K|10Q|8K|EARNINGS|ANNUALREPORT)"
    r"(?:[_-]dated[_-](?P<dated>\d{4}-\d{2}-\d{2}))?$",
    re.IGNORECASE,
)


class NameInfo(BaseModel):
    """What a ``{COMPANY}_{PERIOD}_{TYPE}[_dated-YYYY-MM-DD]`` name says."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    company_key: str
    year: int | None = Field(default=None, description="dataset label: FY end calendar year")
    quarter: int | None = Field(default=None, ge=1, le=4)
    doc_type: DocType
    dated: date | None = None


def parse_doc_name(doc_name: str) -> NameInfo | None:
    """Parse ``3M_2018_10K``, ``BESTBUY_2024Q2_10Q``, ``AMCOR_2022_8K_dated-2022-07-01``."""
    match = _DOC_NAME.match(doc_name.strip())
    if match is None:
        return None
    return NameInfo(
        company_key=match["company"],
        year=int(match["year"]) if match["year"] else None,
        quarter=int(match["quarter"]) if match["quarter"] else None,
        doc_type=_INFO_TYPES[match["type"].lower()],
        dated=date.fromisoformat(match["dated"]) if match["dated"] else None,
    )


# --- dataset document information ---------------------------------------------------------


class DocumentInfo(BaseModel):
    """One line of ``financebench_document_information.jsonl`` (only doc_name required)."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    doc_name: str
    company: str | None = None
    doc_type: str | None = None
    doc_period: int | None = None
    doc_link: str | None = None


def load_document_info(path: Path) -> list[DocumentInfo]:
    """Read a document-information JSONL file (duplicate doc_names kept once)."""
    seen: dict[str, DocumentInfo] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            info = DocumentInfo.model_validate(json.loads(line))
            seen.setdefault(info.doc_name, info)
    return list(seen.values())


# --- fiscal calendar inference ------------------------------------------------------------


class PeriodObservation(BaseModel):
    """A dated filing of one company, as evidence for its fiscal calendar."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    period_end: date
    annual: bool
    quarter: int | None = Field(default=None, ge=1, le=4, description="for a quarterly filing")
    fiscal_label: int | None = Field(default=None, description="'fiscal YYYY' it names")


def _year_end_month(obs: PeriodObservation) -> int:
    year, month = nominal_month(obs.period_end)
    return month if obs.annual else shift_month(year, month, 3 * (4 - (obs.quarter or 4)))[1]


def _is_month_end(day: date) -> bool:
    return day.day == monthrange(day.year, day.month)[1]


def _infer_naming(
    observations: Iterable[PeriodObservation], cal: FiscalCalendar
) -> tuple[Naming, str]:
    votes: Counter[Naming] = Counter()
    for obs in observations:
        if obs.fiscal_label is None:
            continue
        end_label = fiscal_period_of(obs.period_end, cal)[0]
        if obs.fiscal_label == end_label:
            votes["end_year"] += 1
        elif obs.fiscal_label == end_label - 1 and cal.fiscal_year_end_month != 12:
            votes["start_year"] += 1
    if not votes:
        return "end_year", "end_year naming by default"
    naming: Naming = "start_year" if votes["start_year"] > votes["end_year"] else "end_year"
    return naming, f"{naming} naming from {votes[naming]} 'fiscal YYYY' label(s)"


def infer_calendar(company: str, observations: Iterable[PeriodObservation]) -> FiscalCalendar:
    """A company's fiscal calendar from its dated filings.

    The year-end month is the (majority) nominal month of annual period ends; failing those,
    a quarterly period end shifted by its quarter number (Q2 ending July → January). The day
    is the month end when every observed period (annual or quarterly) ends on a month end,
    else None: 52/53-week years, or quarters ending on a weekday (Pfizer: July 2). Naming
    comes from "fiscal YYYY" labels next to period ends; the default is end_year. Without any
    dated filing the calendar is the calendar year, marked as a default.
    """
    observations = list(observations)
    annual = [o for o in observations if o.annual]
    used = annual or [o for o in observations if o.quarter is not None]
    if not used:
        return december_calendar(company, basis="default: no dated filing")
    months = [_year_end_month(o) for o in used]
    month = Counter(months).most_common(1)[0][0]
    ends = [o.period_end for o, m in zip(used, months, strict=True) if m == month]
    fixed = all(_is_month_end(o.period_end) for o in observations)
    provisional = FiscalCalendar(
        company=company,
        fiscal_year_end_month=month,
        fiscal_year_end_day=monthrange(2001, month)[1] if fixed else None,
    )
    naming, naming_basis = _infer_naming(observations, provisional)
    kind = "annual" if annual else "quarterly (shifted by quarter number)"
    dates = ", ".join(sorted(d.isoformat() for d in ends))
    length = "periods end on month ends" if fixed else "periods end near month ends"
    basis = f"month from {len(ends)} {kind} cover date(s) [{dates}]; {length}; {naming_basis}"
    return provisional.model_copy(update={"naming": naming, "basis": basis})


# --- building the records -----------------------------------------------------------------


class DocumentRecord(BaseModel):
    """A :class:`Document` plus where its period came from and its cover-page identity."""

    model_config = ConfigDict(extra="forbid")

    document: Document
    period_source: PeriodSource = Field(description="cover page, doc_name, or not known")
    registrant: str | None = None
    commission_file_number: str | None = None


@dataclass(frozen=True)
class _Draft:
    info: DocumentInfo
    name: NameInfo | None
    cover: CoverPage | None
    company: str
    doc_type: DocType

    @property
    def observation(self) -> PeriodObservation | None:
        if self.cover is None or self.cover.period_end is None or self.doc_type == "8k":
            return None
        return PeriodObservation(
            period_end=self.cover.period_end,
            annual=self.doc_type in ANNUAL_TYPES,
            quarter=self.name.quarter if self.name else None,
            fiscal_label=self.cover.fiscal_year_label,
        )


def _draft(info: DocumentInfo, cover_text: str | None) -> _Draft:
    name = parse_doc_name(info.doc_name)
    cover = parse_cover_page(cover_text) if cover_text else None
    doc_type = (
        _INFO_TYPES.get((info.doc_type or "").lower())
        or (name.doc_type if name else None)
        or (cover.form if cover else None)
        or "other"
    )
    company = (
        info.company
        or (cover.registrant if cover else None)
        or (name.company_key if name else info.doc_name)
    )
    return _Draft(info, name, cover, company, doc_type)


def _dataset_reading(cal: FiscalCalendar) -> FiscalCalendar:
    """``cal`` with the dataset's naming: every fiscal year named by its end year."""
    return cal.model_copy(update={"naming": "end_year"})


def _named_period_end(draft: _Draft, cal: FiscalCalendar) -> date | None:
    """The approximate period end a doc_name implies (dataset years are FY-end years)."""
    name = draft.name
    year = (name.year if name else None) or draft.info.doc_period
    quarter = name.quarter if name else None
    if year is None or (quarter is None and draft.doc_type not in ANNUAL_TYPES):
        return None
    return period_bounds(_dataset_reading(cal), year, quarter)[1]


def _company_label(cal: FiscalCalendar, dataset_year: int) -> int:
    """The company's name for the fiscal year the dataset labels ``dataset_year``."""
    year_end = period_bounds(_dataset_reading(cal), dataset_year)[1]
    return fiscal_period_of(year_end, cal)[0]


def _record(
    draft: _Draft, cal: FiscalCalendar, ticker: str | None, source: str | None
) -> DocumentRecord:
    cover, name = draft.cover, draft.name
    if draft.doc_type == "8k":
        from_cover = cover.report_date if cover else None
        from_name = (name.dated if name else None) or _named_period_end(draft, cal)
    else:
        from_cover = cover.period_end if cover else None
        from_name = _named_period_end(draft, cal)
    period_end = from_cover or from_name
    fiscal_year = quarter = None
    if period_end is not None:
        fiscal_year, quarter = fiscal_period_of(period_end, cal)
    elif name and name.year:
        fiscal_year = _company_label(cal, name.year)
    document = Document(
        doc_id=draft.info.doc_name,
        company=draft.company,
        ticker=ticker,
        doc_type=draft.doc_type,
        fiscal_year=fiscal_year,
        fiscal_quarter=None if draft.doc_type in ANNUAL_TYPES else quarter,
        period_end=period_end,
        source=source or draft.info.doc_link,
    )
    return DocumentRecord(
        document=document,
        period_source="cover" if from_cover else "name" if from_name else "none",
        registrant=cover.registrant if cover else None,
        commission_file_number=cover.commission_file_number if cover else None,
    )


def build_records(
    infos: Iterable[DocumentInfo],
    cover_texts: Mapping[str, str],
    sources: Mapping[str, str] | None = None,
) -> tuple[list[DocumentRecord], list[FiscalCalendar]]:
    """Documents and per-company calendars from document information and cover texts.

    ``cover_texts`` maps doc_name → its first pages' text; ``sources`` maps doc_name → where
    it was read from (default: the info's ``doc_link``). A company's ticker, when any of its
    covers states one, is given to all of its documents.
    """
    drafts = [_draft(info, cover_texts.get(info.doc_name)) for info in infos]
    by_company: dict[str, list[_Draft]] = {}
    for draft in drafts:
        by_company.setdefault(draft.company, []).append(draft)
    calendars: dict[str, FiscalCalendar] = {}
    tickers: dict[str, str | None] = {}
    for company, group in by_company.items():
        observations = [d.observation for d in group if d.observation is not None]
        calendars[company] = infer_calendar(company, observations)
        found = Counter(d.cover.ticker for d in group if d.cover and d.cover.ticker)
        tickers[company] = found.most_common(1)[0][0] if found else None
    sources = sources or {}
    records = [
        _record(d, calendars[d.company], tickers[d.company], sources.get(d.info.doc_name))
        for d in drafts
    ]
    return records, list(calendars.values())
