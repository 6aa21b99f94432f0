"""A filing's cover page: the facts its first pages state, read from their text.

Form ("FORM 10-K"), period end ("For the fiscal year ended January 28, 2023"; a release's
"quarter ended …"), an 8-K's date of report, the registrant ("(Exact name of registrant as
specified in its charter)"), the ticker ("Trading Symbol(s)", "(NYSE: XYZ)"), the Commission
file number and the first "fiscal YYYY" named. Whitespace is normalised before matching, so
text extracted from a PDF or an HTML filing reads alike.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from datetime import date
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from filingqa.records.documents import DocType
from filingqa.retrieval.vocabulary.fiscal import DATE_RE, find_periods, match_date

CoverReader = Callable[[Path], str]
"""Reads the first pages' text of the filing at a path."""

_FORM_TYPES: dict[str, DocType] = {"10-K": "10k", "10-Q": "10q", "8-K": "8k"}
_COVER_PERIOD = re.compile(
    r"for\s+the\s+(?:fiscal\s+year|year|quarterly\s+period|quarter)\s+ended\s*:?.{0,40}?" + DATE_RE,
    re.IGNORECASE,
)
_RELEASE_PERIOD = re.compile(
    r"\b(?:quarter|period|year|weeks|months)\b[^.]{0,60}?\bended\s+" + DATE_RE, re.IGNORECASE
)
_REPORT_DATE = re.compile(
    r"date\s+of\s+report\s*\(\s*date\s+of\s+earliest\s+event\s+reported\s*\)\s*:?.{0,40}?"
    + DATE_RE,
    re.IGNORECASE,
)
_FORM = re.compile(r"\bFORM\s+(10-K|10-Q|8-K)\b", re.IGNORECASE)
_FILE_NUMBER = re.compile(
    r"commission\s+file\b.{0,40}?\b(?:number|no\.?)\s*:?\s*(?P<n>\d{1,3}-\d{3,6})\b",
    re.IGNORECASE,
)
_EXCHANGE = r"(?:The\s+)?(?:New\s+York\s+Stock\s+Exchange|NYSE|Nasdaq|NASDAQ)"
_TICKER_TABLE = re.compile(
    r"(?i:trading\s+symbols?(?:\(s\))?).{0,400}?\b(?P<t>[A-Z]{1,5})\s+" + _EXCHANGE
)
_TICKER_INLINE = re.compile(r"\((?:NYSE|NASDAQ|Nasdaq)\s*:\s*(?P<t>[A-Z][A-Z.]{0,5})\)")
_EXACT_NAME = re.compile(r"(?P<pre>.{0,120}?)\(\s*exact\s+name\s+of", re.IGNORECASE)
_NAME_AFTER_FILE_NUMBER = re.compile(
    r"(?i:commission\s+file\s+(?:number|no\.?))\s*:?\s*\d{1,3}-\d{3,6}\b\.?[\s_-]*"
    r"(?P<name>[A-Z0-9][A-Z0-9&.,' -]{1,60}?)\s+(?=[A-Z][a-z]|\(|\d{2}-)"
)


class CoverPage(BaseModel):
    """What a filing's first pages state."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    form: DocType | None = None
    period_end: date | None = Field(default=None, description="'for the … ended <date>'")
    report_date: date | None = Field(default=None, description="8-K 'Date of report'")
    registrant: str | None = None
    ticker: str | None = None
    commission_file_number: str | None = None
    fiscal_year_label: int | None = Field(default=None, description="first 'fiscal YYYY' named")


def _date(match: re.Match[str] | None) -> date | None:
    return match_date(match) if match else None


def _registrant(text: str) -> str | None:
    exact = _EXACT_NAME.search(text)
    after_number = _NAME_AFTER_FILE_NUMBER.search(text)
    candidates = [
        re.split(r"_{2,}|-{3,}|\)|\b\d[\d-]*\d\b", exact["pre"])[-1] if exact else "",
        after_number["name"] if after_number else "",
    ]
    names = (c.strip(" ,:;-_") for c in candidates)
    return next((n for n in names if len(re.sub(r"[^A-Za-z]", "", n)) >= 2), None)


def _fiscal_label(text: str) -> int | None:
    explicit = (r for r in find_periods(text) if re.search(r"fiscal|FY", r.text, re.IGNORECASE))
    return next((r.year for r in explicit if r.year is not None), None)


def parse_cover_page(text: str) -> CoverPage:
    """Read the cover-page facts from the first pages' text (whitespace is normalised)."""
    flat = re.sub(r"\s+", " ", text)
    form = _FORM.search(flat)
    ticker = _TICKER_TABLE.search(flat) or _TICKER_INLINE.search(flat)
    number = _FILE_NUMBER.search(flat)
    return CoverPage(
        form=_FORM_TYPES[form[1].upper()] if form else None,
        period_end=_date(_COVER_PERIOD.search(flat) or _RELEASE_PERIOD.search(flat)),
        report_date=_date(_REPORT_DATE.search(flat)),
        registrant=_registrant(flat),
        ticker=ticker["t"] if ticker else None,
        commission_file_number=number["n"] if number else None,
        fiscal_year_label=_fiscal_label(flat),
    )


def pdf_first_pages(path: Path, pages: int = 3) -> str:
    """Text of a PDF's first ``pages`` pages (pypdfium2), joined by form feeds: the default
    :data:`CoverReader`."""
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument(path)
    try:
        count = min(pages, len(pdf))
        return "\f".join(pdf[i].get_textpage().get_text_range() for i in range(count))
    finally:
        pdf.close()


def read_cover_texts(
    pdf_dir: Path, doc_names: Iterable[str], reader: CoverReader = pdf_first_pages
) -> dict[str, str]:
    """``doc_name → first pages' text`` for every ``<pdf_dir>/<doc_name>.pdf`` that exists."""
    paths = {name: pdf_dir / f"{name}.pdf" for name in doc_names}
    return {name: reader(path) for name, path in paths.items() if path.is_file()}
