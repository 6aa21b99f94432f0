"""A filing's income statement, balance sheet and cash-flow statement as labelled records.

Ingestion reads a filing into pages of paragraphs and tables (:mod:`.pdf`, :mod:`.html`);
here the tables that are primary statements are found (:func:`find_statement_tables`: a
heading such as "CONSOLIDATED BALANCE SHEETS" above a table whose rows name the statement's
line items, or a table continuing the statement of the page before), their row labels are
read as concepts (:mod:`filingqa.retrieval.vocabulary.line_items`), their column headers as
fiscal periods under the company's calendar (:func:`column_period`), the scale from the
"(in millions, except per share data)" line, and each figure becomes a
:class:`~filingqa.records.statements.StatementRecord` (:func:`statement_records`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import date, timedelta

from filingqa.core.numbers import parse_number
from filingqa.records.concepts import Statement
from filingqa.records.documents import Document
from filingqa.records.qa_record import Table
from filingqa.records.statements import PeriodSpan, Scale, StatementRecord, Unit
from filingqa.retrieval.ingest.metadata import ANNUAL_TYPES
from filingqa.retrieval.ingest.pdf import PageContent
from filingqa.retrieval.ingest.tables import header_count
from filingqa.retrieval.vocabulary.fiscal import (
    DATE_RE,
    SPILL_DAYS,
    FiscalCalendar,
    december_calendar,
    find_periods,
    fiscal_period_of,
    fiscal_span,
    match_date,
    period_bounds,
)
from filingqa.retrieval.vocabulary.line_items import (
    line_concept,
    normalize_label,
    statement_heading,
)

MIN_HEADED_CONCEPTS = 2  # line items a table under a statement heading names, at least
MIN_CONTINUED_CONCEPTS = 3  # ... and a table continuing the statement of the page before
MAX_HEADING_WORDS = 12
MAX_TITLE_LINES = 6  # short lines above a table read as its title (heading, scale, period)
RECORDS_RECIPE = "2"
"""The version of what :func:`statement_records` makes of a filing: raised when a change
gives a filing other records, so an index's stored records are read again."""
SUMMED_PARTS = frozenset({"cost_of_revenue"})
"""Concepts a statement may print only in parts, with no total row ("Cost of products",
"Cost of services"): the parts' sum carries the concept."""

_GROUP_STATEMENT = re.compile(
    r"obligor|guarant|consolidating|parent company|registrant only|issuer and|non-guarantor",
    re.IGNORECASE,
)  # headings of statements of part of the group, not of the company
_SCALE = re.compile(r"\b(thousands|millions|billions)\b", re.IGNORECASE)
_SCALE_NAMES: dict[str, Scale] = {
    "thousands": "thousands",
    "millions": "millions",
    "billions": "billions",
}
_DASH = re.compile(r"^\$?\s*[—–-]+\s*$")
_FOOTNOTE = re.compile(r"(?<=[\d)])\s*\((?:[a-z]|\d)\)$|(?<=\d)\s*\*+$")
_YEAR = re.compile(r"\b((?:19|20)\d{2})\b")
_MONTH = r"\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+(\d{1,2})\b"
_MONTH_DAY = re.compile(_MONTH + r"(?!,?\s*\d{4})", re.IGNORECASE)  # no year after it
_MONTH_DAY_TEXT = re.compile(_MONTH + ",?", re.IGNORECASE)
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_SPANS: tuple[tuple[PeriodSpan, re.Pattern[str]], ...] = (
    (
        "quarter",
        re.compile(
            r"\b(?:three|3)[-\s]months?\b|\b(?:12|13|16|17|twelve|thirteen|sixteen)[-\s]weeks?\b"
            r"|\bquarters?\b|\bq[1-4]\b|\b[1-4]q\b",
            re.IGNORECASE,
        ),
    ),
    (
        "half",
        re.compile(
            r"\b(?:six|6)[-\s]months?\b|\b(?:24|26|28|twenty[-\s](?:four|six|eight))[-\s]weeks?\b",
            re.IGNORECASE,
        ),
    ),
    (
        "nine_months",
        re.compile(
            r"\b(?:nine|9)[-\s]months?\b|\b(?:36|39|40|thirty[-\s](?:six|nine)|forty)[-\s]weeks?\b",
            re.IGNORECASE,
        ),
    ),
    (
        "year",
        re.compile(
            r"\b(?:twelve|12)[-\s]months?\b|\b(?:52|53|fifty[-\s]two|fifty[-\s]three)[-\s]weeks?"
            r"\b|\byears?\b|\bfiscal\b|\bannual\b|\bfy",
            re.IGNORECASE,
        ),
    ),
)
_NUMERIC_DATE = re.compile(r"\b(\d{1,2})/(\d{1,2})/((?:19|20)?\d{2})\b")
_PER_SHARE = re.compile(r"\bper (?:common |ordinary )?share\b|\bpershare\b")
_THOUSANDS = re.compile(r"\(0{3}'?s\)|\bin 0{3}'?s\b")
_SHARE_COUNT = re.compile(
    r"\bshares\b.*\b(?:outstanding|weighted|average)\b|\baverage\b.*\bshares\b"
)


@dataclass(frozen=True)
class StatementTable:
    """A table printing (part of) a primary statement, with the text around it."""

    statement: Statement
    page: int
    number: int  # the table's number on its page, from 1 (as in its passage id)
    table: Table
    context: str  # the short title lines above it, its caption and header label cells


@dataclass(frozen=True)
class ColumnPeriod:
    """The fiscal period a statement column reports."""

    label: str
    span: PeriodSpan
    fiscal_year: int
    fiscal_quarter: int
    end: date


@dataclass(frozen=True)
class _Row:
    label: str
    section: str | None
    cells: list[str]


# --- finding the statements -------------------------------------------------------------


def find_statement_tables(pages: Sequence[PageContent]) -> list[StatementTable]:
    """The tables of ``pages`` that print an income statement, balance sheet or cash-flow
    statement, in page order.

    A table is a statement's when the heading lines above it (or its caption) title the
    statement and its rows name at least :data:`MIN_HEADED_CONCEPTS` of its line items; a
    table with no heading continues the statement of the table before it (on its page or
    the page before) when its rows name :data:`MIN_CONTINUED_CONCEPTS` of that statement's.
    """
    found: list[StatementTable] = []
    for page in pages:
        for number, table, lines in _page_tables(page):
            titles = [line for line in lines if len(line.split()) <= MAX_HEADING_WORDS]
            context = "\n".join([*titles[-MAX_TITLE_LINES:], *_titles(table)[:2]]).strip()
            statement = _statement_of(table, lines, found[-1] if found else None, page.number)
            if statement is not None:
                found.append(StatementTable(statement, page.number, number, table, context))
    primary = [table for run in _primary_runs(found) for table in run]
    return sorted(primary, key=lambda t: (t.page, t.number))


def _primary_runs(found: list[StatementTable]) -> list[list[StatementTable]]:
    """Per statement, the run of tables on consecutive pages naming the most of its line
    items (the first such run on a tie): the company's own statement, not a summary of a
    guarantor group or an affiliate printed in the notes."""
    runs: dict[Statement, list[list[StatementTable]]] = {}
    for table in found:
        own = runs.setdefault(table.statement, [])
        if own and table.page - own[-1][-1].page <= 1:
            own[-1].append(table)
        else:
            own.append([table])
    return [max(group, key=_run_concepts) for group in runs.values()]


def _run_concepts(run: list[StatementTable]) -> int:
    return len({c for t in run for row in _body(t.table) if (c := _concept(row, t.statement))})


def _page_tables(page: PageContent) -> Iterator[tuple[int, Table, list[str]]]:
    """Each table of a page with its number and the text lines between it and the table
    before it."""
    lines: list[str] = []
    number = 0
    for block in page.blocks:
        if isinstance(block, str):
            lines += [line.strip() for line in block.split("\n") if line.strip()]
            continue
        number += 1
        yield number, block, lines
        lines = []


def _statement_of(
    table: Table, lines: list[str], previous: StatementTable | None, page: int
) -> Statement | None:
    """The statement a table prints, or None (see :func:`find_statement_tables`); a table
    titled as a statement of part of the group (guarantors, obligors, the parent alone) is
    none."""
    headings = [line for line in lines if len(line.split()) <= MAX_HEADING_WORDS]
    if any(_GROUP_STATEMENT.search(text) for text in [*_titles(table), *headings]):
        return None
    heading = _heading(lines, table)
    if heading is not None:
        return heading if _concept_count(table, heading) >= MIN_HEADED_CONCEPTS else None
    if previous is None or page - previous.page > 1:
        return None
    continued = _concept_count(table, previous.statement) >= MIN_CONTINUED_CONCEPTS
    return previous.statement if continued else None


def _heading(lines: list[str], table: Table) -> Statement | None:
    """The statement titled by the table's own title (unless a lead-in sentence ending in a
    colon) or else by the nearest short heading line above it."""
    for title in _titles(table):
        if not title.endswith(":") and (statement := statement_heading(title)):
            return statement
    for line in reversed(lines):
        short = len(line.split()) <= MAX_HEADING_WORDS and not line.endswith((".", ":"))
        statement = statement_heading(line) if short else None
        if statement is not None:
            return statement
    return None


def _titles(table: Table) -> list[str]:
    """Where a table's own title is printed: its caption, its header rows' label cell, its
    first column header."""
    return [table.caption or "", *_header_labels(table), *column_headers(table)[:1]]


def _concept_count(table: Table, statement: Statement) -> int:
    """How many distinct concepts of ``statement`` the table's rows name."""
    return len({c for row in _body(table) if (c := _concept(row, statement))})


def _concept(row: _Row, statement: Statement) -> str | None:
    """The row's concept; an unlabelled subtotal's is its section's total ("Revenues")."""
    if not row.label:
        return line_concept(f"total {row.section}", statement) if row.section else None
    return line_concept(row.label, statement, row.section)


def _body(table: Table) -> list[_Row]:
    """The table's body rows with values, each with the section row it falls under (section
    rows in a row joined: a section label wrapped over two lines). An unlabelled row is
    kept only as the first one of its section: the section's subtotal."""
    rows: list[_Row] = []
    section: str | None = None
    in_section = False  # the row before was a section row too: a wrapped section label
    subtotalled = True  # the section's unlabelled subtotal row has been seen
    for row in table.rows[header_count(table.rows) :]:
        label, cells = (row[0].strip(), row[1:]) if row else ("", [])
        has_values = any(cell.strip() for cell in cells)
        if label and not has_values:
            section = f"{section} {label}" if in_section and section else label
            in_section, subtotalled = True, False
            continue
        if label or (has_values and not subtotalled):
            rows.append(_Row(label, section, list(cells)))
            subtotalled = subtotalled or not label
        in_section = False
    return rows


# --- reading a statement table ----------------------------------------------------------


def _header_labels(table: Table) -> list[str]:
    """The label cells of the table's header rows (where some filings print the title)."""
    return [row[0] for row in table.rows[: header_count(table.rows)] if row and row[0]]


def column_headers(table: Table) -> list[str]:
    """Each data column's header rows joined (the label column left out)."""
    count = header_count(table.rows)
    width = max((len(row) for row in table.rows), default=0)
    headers = [
        " ".join(row[i] for row in table.rows[:count] if i < len(row) and row[i]).strip()
        for i in range(1, width)
    ]
    return split_shared_dates(headers)


def split_shared_dates(headers: list[str]) -> list[str]:
    """Headers that each hold every column's month and day ("January 28, January 29, 2023"
    and "January 28, January 29, 2022": header lines spread over all columns) given their
    own: the i-th month and day to the i-th column."""
    shared = [[m[0] for m in _MONTH_DAY_TEXT.finditer(header)] for header in headers]
    if len(headers) < 2 or any(found != shared[0] for found in shared):
        return headers
    if len(shared[0]) != len(headers):
        return headers
    return [
        f"{day} {_MONTH_DAY_TEXT.sub('', header).strip()}"
        for day, header in zip(shared[0], headers, strict=True)
    ]


def table_scale(text: str) -> Scale | None:
    """The scale a table's title or header states ("(In millions, except per share data)")."""
    match = _SCALE.search(text)
    return _SCALE_NAMES[match[1].lower()] if match else None


def cell_value(text: str) -> float | None:
    """A statement cell's number as printed: parentheses negative, a dash nil, footnote marks
    dropped; None for a cell that is no amount (a percentage, words)."""
    text = " ".join(text.split())
    if _DASH.match(text):
        return 0.0
    number = parse_number(_FOOTNOTE.sub("", text))
    if number is None or number.is_percent or number.scale_word is not None:
        return None
    return number.magnitude


def row_unit(label: str, section: str | None, scale: Scale) -> tuple[Unit, Scale]:
    """A row's unit and scale: per-share figures are in dollars whatever the table's scale;
    share counts and amounts take the scale their label or section states ("Shares used
    (000's)"), else the table's ``scale``."""
    text = normalize_label(label)
    under = normalize_label(section or "")
    bare = text in ("basic", "diluted")
    if _PER_SHARE.search(text) or (bare and _PER_SHARE.search(under)):
        return "USD/share", "units"
    stated = table_scale(f"{text} {under}") or ("thousands" if _THOUSANDS.search(text) else None)
    if _SHARE_COUNT.search(text) or (bare and "shares" in under):
        return "shares", stated or ("thousands" if _THOUSANDS.search(under) else scale)
    return "USD", stated or scale


def span_of(text: str) -> PeriodSpan | None:
    """The period length words in ``text`` name ("Three Months Ended" → quarter); None when
    they name none, or several different ones."""
    spans = {span for span, pattern in _SPANS if pattern.search(text)}
    for span in ("quarter", "half", "nine_months"):
        if span in spans:
            return span if len(spans - {"year"}) == 1 else None
    return "year" if spans else None


def column_period(
    header: str,
    context: str,
    statement: Statement,
    calendar: FiscalCalendar,
    annual: bool,
) -> ColumnPeriod | None:
    """The fiscal period of a column headed ``header`` under a table titled ``context``.

    The end date is the date the header names ("July 29, 2023", "3/25/2023"), a year with
    the month and day the title gives ("Year Ended December 31," over "2019"), or the end of
    the fiscal year or quarter the header names ("Fiscal 2019", "Q4 2022"). A balance sheet
    column is an instant; a flow's length comes from the header, else the title, else the
    filing (a year for an annual report, a quarter otherwise).
    """
    span: PeriodSpan | None = "instant" if statement == "balance" else span_of(header)
    span = span or span_of(context) or ("year" if annual else "quarter")
    end = _column_end(header, context, span, calendar)
    if end is None:
        return None
    fiscal_year, quarter = fiscal_period_of(end, calendar)
    return ColumnPeriod(_label(span, fiscal_year, quarter), span, fiscal_year, quarter, end)


def _column_end(
    header: str, context: str, span: PeriodSpan, calendar: FiscalCalendar
) -> date | None:
    dated = re.search(DATE_RE, header, re.IGNORECASE)
    if dated:
        return match_date(dated)
    numeric = _NUMERIC_DATE.search(header)
    if numeric:
        return _numeric_date(numeric)
    named = [r for r in find_periods(header) if r.year is not None]
    if named and named[0].kind in ("quarter", "half") and span != "instant":
        return fiscal_span(named[0], calendar).end
    year = _YEAR.search(header)
    if year is None:
        return None
    month_day = _MONTH_DAY.search(header) or _MONTH_DAY.search(context)
    if month_day:
        return _date(int(year[1]), month_day)
    if span in ("year", "instant"):
        return period_bounds(calendar, int(year[1]))[1]
    return None


def _numeric_date(match: re.Match[str]) -> date | None:
    """A US-style date ("3/25/2023", "3/25/23")."""
    year = int(match[3]) + (2000 if len(match[3]) == 2 else 0)
    try:
        return date(year, int(match[1]), int(match[2]))
    except ValueError:
        return None


def _date(year: int, month_day: re.Match[str]) -> date | None:
    month = _MONTHS.index(month_day[1][:3].lower()) + 1
    try:
        return date(year, month, int(month_day[2]))
    except ValueError:
        return None


def _label(span: PeriodSpan, fiscal_year: int, quarter: int) -> str:
    if span == "year" or (span == "instant" and quarter == 4):
        return f"FY{fiscal_year}"
    if span == "half":
        return f"H{1 if quarter <= 2 else 2} FY{fiscal_year}"
    if span == "nine_months":
        return f"9M FY{fiscal_year}"
    return f"Q{quarter} FY{fiscal_year}"


# --- records ----------------------------------------------------------------------------


def statement_records(
    document: Document,
    pages: Sequence[PageContent],
    calendar: FiscalCalendar | None = None,
) -> list[StatementRecord]:
    """Every figure of the filing's primary statements as a record.

    ``calendar`` is the company's fiscal calendar (default: the calendar year). A column
    ending before the filing's period (``document.period_end``, else the latest column's
    end) is marked comparative. Where one table prints a concept on several rows, the
    "Total ..." row (else the first) carries it and the others none. A table that states
    no scale takes the scale of the table before it when both print the same statement.
    """
    calendar = calendar or december_calendar(document.company or "")
    annual = document.doc_type in ANNUAL_TYPES
    records: list[StatementRecord] = []
    scale: Scale = "units"
    previous: Statement | None = None
    for found in find_statement_tables(pages):
        stated = table_scale(found.context) or table_scale(" ".join(column_headers(found.table)))
        scale = stated or (scale if found.statement == previous else "units")
        previous = found.statement
        records += table_records(document, found, calendar, annual, scale)
    ends = [r.period_end for r in records if r.period_end is not None]
    filing_end = document.period_end or max(ends, default=None)
    if filing_end is None:
        return records
    cutoff = filing_end - timedelta(days=SPILL_DAYS)
    return [
        r.model_copy(update={"comparative": r.period_end is not None and r.period_end < cutoff})
        for r in records
    ]


def table_records(
    document: Document,
    found: StatementTable,
    calendar: FiscalCalendar,
    annual: bool,
    scale: Scale,
) -> list[StatementRecord]:
    """The figures of one statement table, none marked comparative yet; a concept printed
    only in parts (:data:`SUMMED_PARTS`) gets one more record per column, the parts' sum."""
    periods = [
        column_period(header, found.context, found.statement, calendar, annual)
        for header in column_headers(found.table)
    ]
    rows = _body(found.table)
    read = [_concept(row, found.statement) for row in rows]
    parts = _printed_parts(rows, read)
    concepts = _row_concepts(rows, [None if c in parts else c for c in read])
    records: list[StatementRecord] = []
    for row, concept in zip(rows, concepts, strict=True):
        unit, row_scale = row_unit(row.label, row.section, scale)
        for cell, period in zip(row.cells, periods, strict=False):
            value = cell_value(cell)
            if period is None or value is None:
                continue
            printed = " ".join(cell.split())
            records.append(
                _record(document, found, row, concept, period, value, printed, unit, row_scale)
            )
    for concept, indexes in parts.items():
        records += _part_sums(document, found, [rows[i] for i in indexes], concept, periods, scale)
    return records


def _record(
    document: Document,
    found: StatementTable,
    row: _Row,
    concept: str | None,
    period: ColumnPeriod,
    value: float,
    printed: str,
    unit: Unit,
    scale: Scale,
) -> StatementRecord:
    """The figure ``value`` of ``row`` of ``found`` in the column of ``period``."""
    return StatementRecord(
        company=document.company or document.doc_id,
        statement=found.statement,
        line_item=row.label,
        section=row.section,
        concept=concept,
        period=period.label,
        span=period.span,
        fiscal_year=period.fiscal_year,
        fiscal_quarter=None if period.span == "year" else period.fiscal_quarter,
        period_end=period.end,
        value=value,
        printed=printed,
        unit=unit,
        scale=scale,
        doc_id=document.doc_id,
        page=found.page,
        table_id=f"{document.doc_id}:p{found.page}:table{found.number}",
        comparative=False,
    )


def _printed_parts(rows: list[_Row], concepts: list[str | None]) -> dict[str, list[int]]:
    """The rows of each concept of :data:`SUMMED_PARTS` (``concepts``: each row's) the table
    prints in two or more plain rows and no total ("Cost of products", "Cost of services")."""
    found: dict[str, list[int]] = {}
    for index, concept in enumerate(concepts):
        if concept in SUMMED_PARTS:
            found.setdefault(concept, []).append(index)
    return {
        concept: indexes
        for concept, indexes in found.items()
        if len(indexes) > 1 and all(_preference(rows[i]) == 1 for i in indexes)
    }


def _part_sums(
    document: Document,
    found: StatementTable,
    parts: list[_Row],
    concept: str,
    periods: list[ColumnPeriod | None],
    scale: Scale,
) -> list[StatementRecord]:
    """One record of ``concept`` per column where every row of ``parts`` holds a figure:
    their sum, labelled by the parts' labels joined with "+"."""
    label = " + ".join(" ".join(row.label.split()) for row in parts)
    unit, row_scale = row_unit(parts[0].label, parts[0].section, scale)
    summed = _Row(label=label, section=parts[0].section, cells=[])
    records: list[StatementRecord] = []
    for column, period in enumerate(periods):
        values = [
            cell_value(row.cells[column]) if column < len(row.cells) else None for row in parts
        ]
        if period is None or None in values:
            continue
        total = sum(v for v in values if v is not None)
        printed = f"({abs(total):,.0f})" if total < 0 else f"{total:,.0f}"
        records.append(
            _record(document, found, summed, concept, period, total, printed, unit, row_scale)
        )
    return records


def _row_concepts(rows: list[_Row], concepts: list[str | None]) -> list[str | None]:
    """Each row's concept of ``concepts``, a concept kept only on its preferred row of the
    table."""
    chosen: dict[str, int] = {}
    for index, concept in enumerate(concepts):
        if concept is None:
            continue
        best = chosen.get(concept)
        if best is None or _preference(rows[index]) < _preference(rows[best]):
            chosen[concept] = index
    return [c if c is not None and chosen[c] == i else None for i, c in enumerate(concepts)]


def _preference(row: _Row) -> int:
    """Lower is preferred: a total (an unlabelled subtotal is one), then a plain row, then
    a continuing-operations part."""
    text = normalize_label(row.label) if row.label else "total"
    if "continuing operations" in text or "discontinued" in text:
        return 2
    return 0 if text.startswith("total") else 1
