"""The records retrieval works on: a filing (:class:`Document`) and its passages."""

from __future__ import annotations

from datetime import date
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

DocType = Literal["10k", "10q", "8k", "earnings", "annual_report", "other"]
PassageKind = Literal["table", "text"]
FORM_NAMES: dict[DocType, str] = {
    "10k": "10-K",
    "10q": "10-Q",
    "8k": "8-K",
    "earnings": "earnings release",
    "annual_report": "annual report",
    "other": "filing",
}
"""How a person names each document type."""


class Document(BaseModel):
    """One filing and what is known about it."""

    model_config = ConfigDict(extra="forbid")

    doc_id: str = Field(description="stable id, e.g. 3M_2018_10K (FinanceBench doc_name)")
    company: str | None = None
    ticker: str | None = None
    doc_type: DocType = "other"
    fiscal_year: int | None = Field(default=None, description="fiscal year the filing reports")
    fiscal_quarter: int | None = Field(default=None, ge=1, le=4, description="None for annual")
    period_end: date | None = Field(default=None, description="last day of the period covered")
    source: str | None = Field(default=None, description="path or URL it was read from")
    pages: int | None = Field(default=None, ge=0)


class Passage(BaseModel):
    """A retrievable block of a filing: a table (or row group of one) or a text chunk.

    ``page`` is 1-based, as a PDF viewer numbers pages (FinanceBench's
    ``evidence_page_num`` is 0-based: page = evidence_page_num + 1). ``parent_id`` links
    the row groups of one table (and the chunks of one text block) so they can be re-joined.
    """

    model_config = ConfigDict(extra="forbid")

    id: str = Field(description="unique and stable: <doc_id>:p<page>:<kind><n>[.<part>]")
    doc_id: str
    page: int = Field(ge=1)
    kind: PassageKind
    text: str = Field(description="what is embedded and shown: caption/units and header included")
    parent_id: str | None = None
    item: str | None = Field(default=None, description="10-K/10-Q Item, e.g. 'Item 7'")
    title: str | None = Field(default=None, description="table caption or section heading")
