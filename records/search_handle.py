"""What the program needs from retrieval: one call from a query to ranked passages, and,
from a handle that can tell, what it holds (:class:`Holdings`) and the statement figures
its filings print (:func:`statement_records_of`)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

from filingqa.records.documents import Document, Passage
from filingqa.records.statements import StatementRecord

YearNaming = Literal["end_year", "start_year"]


class SearchHandle(Protocol):
    """Ranked passages for a query, optionally narrowed to a company and a period.

    The retrieval layer's search pipeline implements it over an index; tests implement it
    over a list. ``company`` and ``period`` are as the question states them ("Best Buy",
    "Q2 FY2024"); resolving them to documents is the handle's job.

    A handle may also tell what it holds with a ``holdings()`` method returning
    :class:`Holdings` (None: it cannot tell); :func:`holdings_of` asks for it. It may look
    statement figures up with ``statement_records(company, concepts, periods, prior=)``
    returning :class:`~filingqa.records.statements.StatementRecord` s;
    :func:`statement_records_of` asks for them.
    """

    def search(
        self, query: str, *, k: int, company: str | None = None, period: str | None = None
    ) -> list[Passage]: ...


class HeldCompany(BaseModel):
    """A company whose filings a handle holds: the names it goes by, its fiscal calendar
    (the month and day its fiscal year ends, how it names its years) and its filings, each
    with its form (``doc_type``) and the fiscal period it reports."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    aliases: list[str] = Field(default_factory=list, description="ticker, registrant, name key")
    year_end_month: int = Field(default=12, ge=1, le=12)
    year_end_day: int | None = Field(default=31, ge=1, le=31, description="None: 52/53 weeks")
    naming: YearNaming = "end_year"
    documents: list[Document]


class Holdings(BaseModel):
    """What a search handle holds: the companies of its filings and their filings."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    companies: list[HeldCompany]


def holdings_of(search: object) -> Holdings | None:
    """What ``search`` holds, or None when it cannot tell (no ``holdings`` method, or the
    method returns None)."""
    tell = getattr(search, "holdings", None)
    if not callable(tell):
        return None
    found = tell()
    return found if isinstance(found, Holdings) else None


def looks_up_statements(search: object) -> bool:
    """Whether ``search`` looks statement records up (has a ``statement_records`` method)."""
    return callable(getattr(search, "statement_records", None))


def statement_records_of(
    search: object,
    company: str,
    concepts: Iterable[str],
    periods: Iterable[str],
    *,
    prior: bool = False,
) -> list[StatementRecord] | None:
    """The statement records ``search`` holds of ``company`` for ``concepts`` in the periods
    ``periods`` name (with ``prior``, each one's prior year too), or None when it cannot look
    them up (:func:`looks_up_statements`)."""
    look_up = getattr(search, "statement_records", None)
    if not callable(look_up):
        return None
    return list(look_up(company, list(concepts), list(periods), prior=prior))
