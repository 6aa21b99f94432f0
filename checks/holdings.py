"""The holdings rule: a question about a company, or a company and period, that no indexed
filing reports is not answered from other filings; a company-specific question searches
and cites only its company's filings. No LM: the search handle's
:class:`~filingqa.records.search_handle.Holdings` against the question's words.

:func:`check_holdings` rules on a question: :class:`NotIndexed` (with an answer naming what
the index holds for the company, or that it holds none of its filings), a
:class:`CompanyScope` (the question's companies and their filings), or None (the question
names no company the rule can check: it is left to the program). A filing reports its own
period and its comparative columns: a 10-K for fiscal year Y the years Y-2 to Y (and the
year ends of Y-1 and Y); a 10-Q for quarter q of Y that quarter and the year to date, both
for Y and Y-1, and the year end of Y-1; any other filing its fiscal year and the one before.
:class:`ScopedSearch` keeps a handle's passages to a scope's filings.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from filingqa.records import Document, Passage
from filingqa.records.documents import FORM_NAMES
from filingqa.records.refusal import NOT_INDEXED
from filingqa.records.search_handle import HeldCompany, Holdings, SearchHandle
from filingqa.retrieval.ingest.metadata import ANNUAL_TYPES
from filingqa.retrieval.vocabulary.companies import normalise_company
from filingqa.retrieval.vocabulary.fiscal import (
    FiscalCalendar,
    Naming,
    PeriodRef,
    find_periods,
    fiscal_period_of,
    fiscal_span,
)
from filingqa.retrieval.vocabulary.lexicon import metric_terms, statements

Span = tuple[int, tuple[int, ...]]  # fiscal year and the quarters of it
FULL_YEAR = (1, 2, 3, 4)
LISTED = 10  # companies named when the index holds none of the question's
# Questions about what a filing expects of later periods name periods no filing reports.
_FORWARD = re.compile(
    r"\b(?:guidance|outlook|forecast\w*|project(?:ed|ions?)|expect\w*|anticipat\w*|due|"
    r"matur\w+|targets?)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class NotIndexed:
    """The index holds no filing that reports what the question asks about; ``answer`` says
    what it holds instead."""

    answer: str
    reason: str


@dataclass(frozen=True)
class CompanyScope:
    """The indexed companies a question is about, whose filings alone it may use."""

    companies: tuple[HeldCompany, ...]

    @property
    def doc_ids(self) -> frozenset[str]:
        """The filings of the scope's companies."""
        return frozenset(d.doc_id for c in self.companies for d in c.documents)

    @property
    def company(self) -> str | None:
        """The one company's name (None when the question names several)."""
        return self.companies[0].name if len(self.companies) == 1 else None

    def describe(self) -> str:
        """The scope as a trace note."""
        return "; ".join(
            f"{c.name}: {len(c.documents)} indexed filing(s) searched" for c in self.companies
        )


Ruling = NotIndexed | CompanyScope | None


def check_holdings(question: str, holdings: Holdings, company: str | None = None) -> Ruling:
    """Rule on ``question`` (about ``company`` when given) over what the index holds."""
    if not holdings.companies:
        return None
    if company:
        held = resolve_company(company, holdings)
        if held is None:
            return _absent(company, holdings)
        named = [held]
    else:
        named = named_companies(question, holdings)
        if not named:
            mentioned = mentioned_company(question, holdings)
            if mentioned is None:
                return None
            if isinstance(mentioned, str):
                return _absent(mentioned, holdings)
            named = [mentioned]
    periods = [] if _FORWARD.search(question) else find_periods(question)
    reporting = [c for c in named if not periods or _reports_any(c, periods)]
    if not reporting:
        return _unreported(named, periods)
    return CompanyScope(tuple(reporting))


# --- companies ----------------------------------------------------------------------------


def _keys(company: HeldCompany) -> set[str]:
    return {normalise_company(name) for name in (company.name, *company.aliases)} - {""}


def resolve_company(name: str, holdings: Holdings) -> HeldCompany | None:
    """The held company ``name`` refers to: the one whose name or alias has its key, else
    the one whose key starts, or is the start of, it (three characters or more)."""
    key = normalise_company(name)
    exact = [c for c in holdings.companies if key in _keys(c)]
    if exact or len(key) < 3:
        return exact[0] if len(exact) == 1 else None
    near = [
        c
        for c in holdings.companies
        if any(len(k) >= 3 and (k.startswith(key) or key.startswith(k)) for k in _keys(c))
    ]
    return near[0] if len(near) == 1 else None


_WORD = re.compile(r"[A-Za-z0-9&][A-Za-z0-9&\-]*")


def _name_runs(text: str, longest: int = 4) -> list[list[str]]:
    """Runs of up to ``longest`` adjacent words of ``text`` each holding a capital or a
    digit ("Best Buy", "3M", "AT&T"), possessives dropped: where a question names a
    company."""
    text = re.sub(r"['’]s?\b", "", text)
    groups: list[list[str]] = []
    end = -1
    for match in _WORD.finditer(text):
        word = match[0].strip("-")
        if not re.search(r"[A-Z0-9&]", word):
            end = -1
            continue
        if end >= 0 and text[end : match.start()].strip() == "":
            groups[-1].append(word)
        else:
            groups.append([word])
        end = match.end()
    return [
        group[start : start + size]
        for group in groups
        for start in range(len(group))
        for size in range(1, longest + 1)
        if start + size <= len(group)
    ]


def _capitalised(word: str) -> bool:
    """In capitals ("MMM", "3M"), or with two of them ("JnJ"): a ticker, not a word."""
    return word == word.upper() or sum(c.isupper() for c in word) >= 2


def named_companies(question: str, holdings: Holdings) -> list[HeldCompany]:
    """The held companies ``question`` names (by name, ticker, registrant or name key,
    capitalised), in order of first mention; a key of three characters or fewer counts
    only as one word in capitals."""
    found: dict[str, HeldCompany] = {}
    for run in _name_runs(question):
        key = normalise_company(" ".join(run))
        if len(key) <= 3 and (len(run) > 1 or not _capitalised(run[0])):
            continue
        matching = [c for c in holdings.companies if key in _keys(c)]
        if len(matching) == 1:
            found.setdefault(matching[0].name, matching[0])
    return list(found.values())


_NAME_WORD = r"(?=[a-z]*[A-Z0-9&])[A-Za-z0-9&][A-Za-z0-9&.\-]*"
_NAME = rf"(?<![\w&.\-]){_NAME_WORD}(?:[ \t]+{_NAME_WORD}){{0,3}}"
_AFTER_NAME = (
    r"(?=\s*(?:[?.,;:)]|$)|\s+(?:in|during|for|as|at|on|based|from|over|between|to|and|"
    r"with|compared|since|through)\b)"
)
_AUXILIARY = "is|does|did|has|have|was|were|can|could|will|would|should|do"
_MENTIONS = [
    re.compile(rf"(?P<name>{_NAME})['’]s?(?![A-Za-z])"),  # "AES's", "Walmarts'"
    re.compile(rf"\b(?:for|of)\s+(?P<name>{_NAME}){_AFTER_NAME}"),  # "for PayPal?"
    re.compile(  # "Does AMD have", "Is Coca-Cola a"
        rf"(?:^|[.?!:]\s+)(?i:{_AUXILIARY})\s+(?P<name>{_NAME})\s+(?=[a-z])"
    ),
    re.compile(  # "how many times has AES Corporation sold"
        rf"\b(?:{_AUXILIARY})\s+(?P<name>{_NAME})\s+(?:been|had|have|a|an|\w+ed|sold|paid|"
        r"made|done|spent|seen|grown)\b"
    ),
    re.compile(  # "in which AMD reporting segment"
        rf"\bwhich\s+(?P<name>{_NAME})\s+(?:reporting|operating|business)\s+segments?\b"
    ),
    re.compile(  # "acquisitions that AMD has done"
        rf"\bthat\s+(?P<name>{_NAME})\s+(?:has|have|had|did|does|reported|recorded|made|"
        r"sells|sold|offers|owns|acquired|paid|pays|issued|operates)\b"
    ),
]
_NOT_NAME_WORDS = """
    WHAT WHICH WHO HOW WHY WHEN WHERE IS ARE DOES DID DO HAS HAVE HAD WAS WERE CAN COULD WILL
    WOULD SHOULD IF IN ON FOR OF FROM BY AT TO AND OR THE A AN AS ALSO BASED BASE USING USE
    ASSUME ANSWER ROUND CALCULATE COMPUTE DEFINE DEFINED GIVE PROVIDE PLEASE AMONG BETWEEN
    EXCLUDING INCLUDING YES NO NOTE NOTES ITEM PART SECTION TABLE EXHIBIT APPENDIX COMPANY
    COMPANIES CORPORATION CORP INC GROUP HOLDINGS REGISTRANT MANAGEMENT BOARD DIRECTORS
    STATEMENT STATEMENTS BALANCE SHEET SHEETS INCOME CASH FLOW FLOWS CONSOLIDATED FINANCIAL
    FINANCIALS OPERATIONS EQUITY SHAREHOLDERS STOCKHOLDERS NET TOTAL REVENUE REVENUES SALES
    SEGMENT SEGMENTS DIVISION BUSINESS FISCAL YEAR YEARS QUARTER QUARTERS ANNUAL QUARTERLY
    REPORT FORM MD&A US U.S USA USD EUR GBP JPY CNY GAAP NON-GAAP IFRS SEC FASB ASC ASU EBIT
    EBITDA EBITDAR EPS ROA ROE ROIC ROCE ROI PP&E PPNE SG&A R&D M&A D&A COGS CAPEX FCF LTM
    TTM YOY QOQ DPO DSO DIO CCC NOPAT WACC ESG CEO CFO COO CAGR IPO LIFO FIFO NYSE NASDAQ
    ADJUSTED ORGANIC NORTH SOUTH EAST WEST AMERICA AMERICAS EUROPE EMEA ASIA PACIFIC APAC
    LATAM CHINA JAPAN INTERNATIONAL DOMESTIC UNITED STATES KINGDOM LATIN MIDDLE AFRICA CANADA
    JANUARY FEBRUARY MARCH APRIL MAY JUNE JULY AUGUST SEPTEMBER OCTOBER NOVEMBER DECEMBER
"""
_NOT_NAMES = frozenset(_NOT_NAME_WORDS.split())  # words at a name's ends that are no name
_PERIOD_WORD = re.compile(r"^(?:FY|CY|[QH][1-4]|[1-4][QH]|9M)?'?\d{0,4}$", re.IGNORECASE)


def _not_name(word: str) -> bool:
    return word.upper().rstrip(".") in _NOT_NAMES or bool(_PERIOD_WORD.match(word))


def _candidate(raw: str) -> str | None:
    """``raw`` without the words at its ends that name no company; None if nothing is left
    or what is left is a metric, a statement or a period."""
    words = [w.rstrip(".-") for w in raw.split()]
    while words and _not_name(words[0]):
        words.pop(0)
    while words and _not_name(words[-1]):
        words.pop()
    name = " ".join(words)
    if not name or metric_terms(name) or statements(name) or find_periods(name):
        return None
    return name


def mentioned_company(question: str, holdings: Holdings) -> HeldCompany | str | None:
    """The first company ``question`` names where a company's name stands ("AES's", "for
    PayPal?", "Does AMD have", "that AMD has"): the held company it refers to, else the
    name as written; None when it names none."""
    for pattern in _MENTIONS:
        for match in pattern.finditer(question):
            name = _candidate(match["name"])
            if name:
                return resolve_company(name, holdings) or name
    return None


# --- periods ------------------------------------------------------------------------------


def _calendar(company: HeldCompany, naming: Naming) -> FiscalCalendar:
    return FiscalCalendar(
        company=company.name,
        fiscal_year_end_month=company.year_end_month,
        fiscal_year_end_day=company.year_end_day,
        naming=naming,
    )


def _spans(ref: PeriodRef, company: HeldCompany) -> set[Span]:
    """``ref`` as the company's fiscal year and quarters, its year number read with either
    naming (a dataset may name a fiscal year the other way)."""
    own = _calendar(company, company.naming)
    spans = (fiscal_span(ref, _calendar(company, n)) for n in ("end_year", "start_year"))
    return {(fiscal_period_of(span.end, own)[0], span.quarters) for span in spans}


def reports(document: Document, span: Span) -> bool:
    """Whether ``document`` reports ``span``: its own period or a comparative column (a
    filing whose fiscal year is not known is not ruled out)."""
    year, (asked, quarters) = document.fiscal_year, span
    if year is None:
        return True
    year_end = quarters in (FULL_YEAR, (4,))
    if document.doc_type in ANNUAL_TYPES:
        return (quarters == FULL_YEAR and year - 2 <= asked <= year) or (
            year_end and year - 1 <= asked <= year
        )
    quarter = document.fiscal_quarter
    if document.doc_type == "10q" and quarter is not None:
        if asked == year - 1 and year_end:
            return True
        return asked in (year, year - 1) and quarters in ((quarter,), tuple(range(1, quarter + 1)))
    return asked in (year, year - 1)


def _reports_any(company: HeldCompany, periods: list[PeriodRef]) -> bool:
    return any(
        reports(document, span)
        for ref in periods
        for span in _spans(ref, company)
        for document in company.documents
    )


# --- what the answer says -----------------------------------------------------------------


def describe_filing(document: Document) -> str:
    """A filing as ``3M_2022_10K (10-K for FY2022; reports FY2020–FY2022)``."""
    form = FORM_NAMES[document.doc_type]
    year, quarter = document.fiscal_year, document.fiscal_quarter
    if year is None:
        return f"{document.doc_id} ({form}, period not known)"
    if document.doc_type in ANNUAL_TYPES:
        return f"{document.doc_id} ({form} for FY{year}; reports FY{year - 2}–FY{year})"
    if document.doc_type == "10q" and quarter is not None:
        return (
            f"{document.doc_id} ({form} for Q{quarter} FY{year}; reports Q{quarter} and the "
            f"year to date of FY{year} and FY{year - 1})"
        )
    return f"{document.doc_id} ({form} of FY{year})"


def _absent(name: str, holdings: Holdings) -> NotIndexed:
    names = sorted(c.name for c in holdings.companies)
    more = len(names) - LISTED
    listed = ", ".join(names[:LISTED]) + (f" and {more} more" if more > 0 else "")
    answer = f"{NOT_INDEXED} no filing of {name} is indexed (the index holds filings of {listed})."
    return NotIndexed(answer=answer, reason=f"the index holds no filings of {name}")


def _unreported(companies: list[HeldCompany], periods: list[PeriodRef]) -> NotIndexed:
    asked = " or ".join(dict.fromkeys(ref.text for ref in periods))
    names = " or ".join(c.name for c in companies)
    held = " ".join(
        f"Indexed for {c.name}: "
        + "; ".join(describe_filing(d) for d in sorted(c.documents, key=_chronological))
        + "."
        for c in companies
    )
    answer = f"{NOT_INDEXED} no indexed filing of {names} reports {asked}. {held}"
    return NotIndexed(answer=answer, reason=f"no indexed filing of {names} reports {asked}")


def _chronological(document: Document) -> tuple[int, int, str]:
    return (document.fiscal_year or 0, document.fiscal_quarter or 5, document.doc_id)


# --- the search -----------------------------------------------------------------------------


class ScopedSearch:
    """A search handle kept to a :class:`CompanyScope`: searches name its company (when the
    caller names none) and passages of other filings are dropped; ``on_dropped`` hears of
    each one dropped. Anything else is the wrapped handle's."""

    def __init__(
        self, inner: SearchHandle, scope: CompanyScope, on_dropped: Callable[[list[str]], None]
    ) -> None:
        self.inner = inner
        self.scope = scope
        self.on_dropped = on_dropped

    def search(
        self, query: str, *, k: int, company: str | None = None, period: str | None = None
    ) -> list[Passage]:
        """The wrapped handle's passages for ``query`` from the scope's filings."""
        company = company or self.scope.company
        found = self.inner.search(query, k=k, company=company, period=period)
        allowed = self.scope.doc_ids
        dropped = [p.id for p in found if p.doc_id not in allowed]
        if dropped:
            self.on_dropped(dropped)
        return [p for p in found if p.doc_id in allowed]

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)
