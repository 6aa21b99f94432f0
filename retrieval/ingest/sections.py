"""10-K / 10-Q / 8-K Item sections: find the headings, then the Item each block falls in.

A heading is a line starting "Item 7." / "ITEM 8 — FINANCIAL STATEMENTS" / "Item 2.02"
(optionally after "Part II"), whose title (if on the same line) starts in upper case. Items
only go forward within a Part, so a cross-reference that happens to start a line ("Item 1A.
Risk Factors of our Annual Report") is ignored; a "PART II" line starts a new Part. Pages
listing many Items with nothing between them (tables of contents) are skipped. 10-Q Items are
named with their Part ("Part I, Item 2"), since both Parts number from 1; text after a Part
line and before its first Item is in "Part I".
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from statistics import median

from pydantic import BaseModel, ConfigDict

from filingqa.records.qa_record import Table

_ITEM = re.compile(
    r"^\s*(?:part\s+(?P<part>iv|i{1,3})\s*[,.:\-—–]?\s*)?"
    r"items?\s+(?P<num>\d{1,2}(?:\.\d{2})?[a-c]?)\b"
    r"(?:\s*(?:and|&|,)\s*\d{1,2}[a-c]?\b)?(?:\s*[.:\-—–])*\s*(?P<title>.*)$",
    re.IGNORECASE,
)
_PART = re.compile(r"^\s*part\s+(?P<part>iv|i{1,3})\b\s*[.:\-—–]?\s*(?P<rest>.*)$", re.I)
_PAGE_REF = re.compile(r"[\s.·…]*(\d{1,3}|[A-Z]-\d{1,3})?\s*$")
CONTENTS_MIN_ITEMS = 6  # a contents page lists at least this many Items ...
CONTENTS_MAX_GAP = 40  # ... with at most this many characters between two, as a median
MAX_HEADING_CHARS = 160


class Section(BaseModel):
    """The Item a passage falls in, e.g. ``Item 7`` with its heading title."""

    model_config = ConfigDict(extra="forbid")

    item: str
    title: str | None = None


def parse_heading(line: str) -> tuple[str | None, str, str] | None:
    """``(part, item number, title)`` if ``line`` is an Item heading, else None.

    >>> parse_heading("ITEM 7A. QUANTITATIVE AND QUALITATIVE DISCLOSURES ABOUT MARKET RISK")
    (None, '7A', 'QUANTITATIVE AND QUALITATIVE DISCLOSURES ABOUT MARKET RISK')
    """
    match = _ITEM.match(line)
    if not match or len(line) > MAX_HEADING_CHARS:
        return None
    title = _PAGE_REF.sub("", match["title"]).strip()
    if title and not (title[0].isupper() or title[0] in "\"“‘'[("):
        return None
    part = match["part"].upper() if match["part"] else None
    return part, match["num"].upper(), title


def parse_part(line: str) -> str | None:
    """``"II"`` for a "PART II" / "Part II — Other Information" line, else None."""
    match = _PART.match(line)
    if not match or len(line) > 80 or _ITEM.match(line):
        return None
    rest = match["rest"].strip()
    return match["part"].upper() if not rest or rest[0].isupper() else None


def is_contents(blocks: Sequence[str | Table]) -> bool:
    """Whether a page is a table of contents: six or more Item headings with almost nothing
    between them (page numbers, Part lines), unlike a page of short Items ("None.")."""
    lines = [line for block in blocks for line in _lines(block)]
    found = [(i, h[1]) for i, h in enumerate(map(parse_heading, lines)) if h is not None]
    if len(found) < CONTENTS_MIN_ITEMS:
        return False
    gaps = [
        sum(len(line) for line in lines[a + 1 : b]) for (a, _), (b, _) in itertools.pairwise(found)
    ]
    return median(gaps) <= CONTENTS_MAX_GAP


def _lines(block: str | Table) -> list[str]:
    if isinstance(block, str):
        return block.splitlines()
    return [" ".join(cell for cell in row if cell) for row in block.rows]


def assign_sections(
    pages: Sequence[Sequence[str | Table]], doc_type: str | None = None
) -> list[list[Section | None]]:
    """The Section each block (paragraph or table) of each page is in.

    A paragraph takes the Item of its first heading lines (the last of "PART I" then
    "Item 1."), else the one in force before it; a table the one in force. Headings carry
    over to the following pages.
    """
    tracker = _Tracker(with_part=doc_type == "10q")
    result: list[list[Section | None]] = []
    for blocks in pages:
        skip = is_contents(blocks)
        result.append([tracker.block(b if isinstance(b, str) else None, skip) for b in blocks])
    return result


class _Tracker:
    """The Part and Item in force while reading blocks in order."""

    def __init__(self, with_part: bool) -> None:
        self.with_part = with_part
        self.part: str | None = None
        self.rank: tuple[int, int, str] | None = None
        self.section: Section | None = None

    def block(self, text: str | None, skip: bool) -> Section | None:
        if text is None or skip:
            return self.section
        opening: Section | None = None  # of the block's first heading lines ("PART I", "Item 1")
        settled = False
        lines = text.splitlines()
        for i, line in enumerate(lines):
            found = self._line(line, lines[i + 1] if i + 1 < len(lines) else "")
            if found and not settled:
                opening = found
            settled = settled or (opening is not None and found is None)
        return opening or self.section

    def _line(self, line: str, following: str) -> Section | None:
        part = parse_part(line)
        if part:
            self.part, self.rank = part, None
            if not self.with_part:
                return None
            self.section = Section(item=f"Part {part}", title=line.strip())
            return self.section
        heading = parse_heading(line)
        if heading is None:
            return None
        part, number, title = heading
        if part and part != self.part:
            self.part, self.rank = part, None
        rank = _rank(number)
        if self.rank is not None and rank <= self.rank:
            return None
        self.rank = rank
        name = f"Item {number}"
        if self.with_part and self.part:
            name = f"Part {self.part}, {name}"
        self.section = Section(item=name, title=title or _title(following))
        return self.section


def _rank(number: str) -> tuple[int, int, str]:
    """Sort key of an Item number: 1 < 1A < 1B < 2 < 2.02 < 7 < 7A < 10."""
    match = re.match(r"(\d+)(?:\.(\d+))?([A-C]?)", number)
    assert match is not None
    return int(match[1]), int(match[2] or 0), match[3]


def _title(line: str) -> str | None:
    """The next line as a heading title, when it looks like one."""
    line = line.strip()
    return line if line and line[0].isupper() and len(line) <= MAX_HEADING_CHARS else None
