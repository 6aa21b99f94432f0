"""The statement records of an index's filings, stored beside its metadata.

A build reads each filing's income statement, balance sheet and cash-flow statement into
:class:`~filingqa.records.statements.StatementRecord` s
(:func:`~filingqa.retrieval.ingest.statements.statement_records`) and writes them to
``<state dir>/statements/<doc id>.jsonl``, one record a line, before the ledger marks the
filing done. A filing with a file (empty for one without statements) has its records; a
rebuild adds them for the filings an older build indexed without (from the ingest cache),
and reads every filing's again when the store was written by another
:data:`~filingqa.retrieval.ingest.statements.RECORDS_RECIPE` than the code's.
The search side reads them all once into a :class:`~filingqa.records.statements.StatementBook`
(:meth:`StatementStore.book`) and looks figures up by the periods a question names
(:func:`record_periods`).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable
from pathlib import Path
from urllib.parse import quote, unquote

from filingqa.records.statements import StatementBook, StatementRecord
from filingqa.retrieval.ingest.metadata_store import MetadataStore
from filingqa.retrieval.ingest.statements import RECORDS_RECIPE
from filingqa.retrieval.vocabulary.fiscal import (
    FiscalCalendar,
    FiscalSpan,
    december_calendar,
    find_periods,
    fiscal_period_of,
    fiscal_span,
)

STATEMENTS_DIR = "statements"
RECIPE_FILE = "recipe.txt"
_SUFFIX = ".jsonl"


class StatementStore:
    """Each filing's statement records, one JSON-lines file per filing under
    ``<state_dir>/statements``; the records of all of them read once, on first use."""

    def __init__(self, state_dir: Path) -> None:
        self.directory = state_dir / STATEMENTS_DIR
        self._book: StatementBook | None = None
        self._reading = threading.Lock()  # concurrent readings of a question share one read

    @classmethod
    def found(cls, state_dir: Path | None) -> StatementStore | None:
        """The store in ``state_dir`` when a build has written one, else None."""
        if state_dir is None or not (state_dir / STATEMENTS_DIR).is_dir():
            return None
        return cls(state_dir)

    def path(self, doc_id: str) -> Path:
        """The file of ``doc_id``'s records (the id quoted to be one file name)."""
        return self.directory / f"{quote(doc_id, safe='')}{_SUFFIX}"

    def has(self, doc_id: str) -> bool:
        """Whether the records of ``doc_id`` are stored (none at all counts)."""
        return self.path(doc_id).is_file()

    def doc_ids(self) -> list[str]:
        """The filings whose records are stored, sorted."""
        if not self.directory.is_dir():
            return []
        return sorted(unquote(p.name.removesuffix(_SUFFIX)) for p in self.directory.glob("*.jsonl"))

    def current(self) -> bool:
        """Whether the stored records were read by this code's :data:`RECORDS_RECIPE` (an
        empty store is)."""
        recipe = self.directory / RECIPE_FILE
        if recipe.is_file():
            return recipe.read_text(encoding="utf-8").strip() == RECORDS_RECIPE
        return not self.doc_ids()

    def mark_current(self) -> None:
        """Record that every stored filing's records were read by :data:`RECORDS_RECIPE`."""
        self.directory.mkdir(parents=True, exist_ok=True)
        (self.directory / RECIPE_FILE).write_text(RECORDS_RECIPE + "\n", encoding="utf-8")

    def write(self, doc_id: str, records: Iterable[StatementRecord]) -> None:
        """Store ``doc_id``'s records durably and atomically (replacing earlier ones); the
        first filing of a new store marks it :meth:`current`."""
        if not self.doc_ids() and not (self.directory / RECIPE_FILE).is_file():
            self.mark_current()
        path = self.path(doc_id)
        staged = path.with_name(path.name + ".tmp")
        with staged.open("w", encoding="utf-8") as out:
            out.write("".join(record.model_dump_json() + "\n" for record in records))
            out.flush()
            os.fsync(out.fileno())
        staged.replace(path)
        self._book = None

    def read(self, doc_id: str) -> list[StatementRecord]:
        """The stored records of ``doc_id`` ([] when none are stored)."""
        if not self.has(doc_id):
            return []
        lines = self.path(doc_id).read_text(encoding="utf-8").splitlines()
        return [StatementRecord.model_validate_json(line) for line in lines if line]

    def book(self) -> StatementBook:
        """Every stored record in one lookup, read on the first call."""
        with self._reading:
            if self._book is None:
                records = (r for doc_id in self.doc_ids() for r in self.read(doc_id))
                self._book = StatementBook(records)
            return self._book


def record_periods(
    metadata: MetadataStore | None, company: str, periods: Iterable[str], prior: bool = False
) -> list[str]:
    """The record labels (``FY2019``, ``Q2 FY2023``, ``H1 FY2023``, ``9M FY2023``) of the
    periods named in ``periods`` for ``company``, read as the search reads them
    (:meth:`MetadataStore.resolve`) and labelled under the company's calendar; with
    ``prior``, each one's prior period (a fiscal year earlier) follows it.

    Periods named apart are different periods: when the search's reading makes two of them
    one (it reads a year by the other naming where only that finds a filing, so Nike's
    "FY2020", of which no filing is held, would read as the year its FY2021 10-K reports),
    every period is read by the company's own naming instead."""
    calendar = (metadata.calendar(company) if metadata else None) or december_calendar(company)
    texts = list(periods)
    own = [[fiscal_span(ref, calendar) for ref in find_periods(text)] for text in texts]
    spans = own
    if metadata is not None:
        resolved = [[r.span for r in metadata.resolve(company, text)] for text in texts]
        spans = [read or mine for read, mine in zip(resolved, own, strict=True)]
        if len(_labels(own, calendar)) > len(_labels(spans, calendar)):
            spans = own
    labels: dict[str, None] = {}
    for span in (span for group in spans for span in group):
        fiscal_year, quarter = fiscal_period_of(span.end, calendar)
        labels[_label(span, fiscal_year, quarter)] = None
        if prior:
            labels[_label(span, fiscal_year - 1, quarter)] = None
    return list(labels)


def _labels(spans: list[list[FiscalSpan]], calendar: FiscalCalendar) -> set[str]:
    """The distinct record labels of ``spans``."""
    return {
        _label(span, *fiscal_period_of(span.end, calendar)) for group in spans for span in group
    }


def _label(span: FiscalSpan, fiscal_year: int, quarter: int) -> str:
    """The record label of a span of ``len(span.quarters)`` quarters ending in ``quarter``."""
    count = len(span.quarters)
    if count == 4:
        return f"FY{fiscal_year}"
    if count == 3:
        return f"9M FY{fiscal_year}"
    if count == 2:
        return f"H{1 if quarter <= 2 else 2} FY{fiscal_year}"
    return f"Q{quarter} FY{fiscal_year}"
