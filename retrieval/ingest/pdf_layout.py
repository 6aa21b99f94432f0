"""A PDF page's characters grouped into lines, and each line's words into cells.

Characters come with loose (font-height) boxes in top-down coordinates; a line is a run of
characters whose vertical centres agree, and its words join into one cell unless a wide gap
(or a new number after a number) separates them."""

from __future__ import annotations

import re
from collections.abc import Iterator
from statistics import median
from typing import NamedTuple

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

_NUMBER = re.compile(r"^[(\-–—]?[$€£¥]?\(?-?(\d[\d,]*(\.\d+)?|\.\d+)\)?%?\)?\*?$")
_DASH = re.compile(r"^[—–\-]+$")
_YEAR = re.compile(r"^(19|20)\d\d$")
_CURRENCY = frozenset("$€£¥")
_LEADERS = re.compile(r"(\s*\.){4,}\s*")  # dot leaders between a label and its values
_TRAILERS = frozenset({"%", ")", "%)"})
# Page furniture: page numbers, "Table of Contents", "Index".
NOISE_LINE = re.compile(r"^(table of contents|index|\d{1,3}|[a-z]?-?\d{1,3}|page \d+)$", re.I)
WORD_GAP = 0.15  # a gap wider than this many line heights separates words
CELL_GAP = 1.0  # ... and this many, cells


class Char(NamedTuple):
    text: str
    x0: float
    top: float  # distance from the page top
    x1: float
    bottom: float
    spaced: bool  # a space (real or inferred by PDFium) comes before it in the text stream


class Cell(NamedTuple):
    text: str
    x0: float
    x1: float
    anchor: float  # right edge of the last digit (numbers align on it), else x1


class Line(NamedTuple):
    cells: list[Cell]
    top: float
    bottom: float

    @property
    def height(self) -> float:
        return self.bottom - self.top

    @property
    def text(self) -> str:
        return " ".join(cell.text for cell in self.cells)


def page_chars(textpage: pdfium.PdfTextPage, page_height: float) -> list[Char]:
    """The page's visible characters with loose (font-height) boxes, top-down coordinates."""
    chars: list[Char] = []
    spaced = False
    for i in range(textpage.count_chars()):
        code = pdfium_c.FPDFText_GetUnicode(textpage.raw, i)
        if not code or chr(code).isspace():
            spaced = True
            continue
        x0, y0, x1, y1 = textpage.get_charbox(i, loose=True)
        if y1 > y0:
            chars.append(Char(chr(code), x0, page_height - y1, x1, page_height - y0, spaced))
            spaced = False
    return chars


def page_lines(chars: list[Char]) -> list[Line]:
    """Characters grouped into lines (vertical centres within ~half a height), top to bottom."""
    groups: list[list[Char]] = []
    centre = height = 0.0
    for char in sorted(chars, key=lambda c: (c.top + c.bottom) / 2):
        mid, size = (char.top + char.bottom) / 2, char.bottom - char.top
        if groups and abs(mid - centre) < 0.45 * max(size, height):
            groups[-1].append(char)
        else:
            groups.append([char])
            centre, height = mid, size
    lines = []
    for group in groups:
        group.sort(key=lambda c: c.x0)
        size = median(c.bottom - c.top for c in group)
        top = median(c.top for c in group)
        lines.append(Line(_cells(group, size), top, top + size))
    return lines


def _cells(chars: list[Char], height: float) -> list[Cell]:
    """One line's characters (left to right) as words, then cells split at wide gaps."""
    cells: list[Cell] = []
    for word, gap in _words(chars, height):
        if cells and _joins(cells[-1].text, word.text, gap / height):
            last = cells[-1]
            separator = "" if last.text in _CURRENCY or word.text in _TRAILERS else " "
            keeps = has_digit(last.text) and not has_digit(word.text)
            anchor = last.anchor if keeps else word.anchor
            cells[-1] = Cell(last.text + separator + word.text, last.x0, word.x1, anchor)
        else:
            cells.append(word)
    return [cell._replace(text=_LEADERS.sub(" ", cell.text).strip()) for cell in cells]


def _words(chars: list[Char], height: float) -> Iterator[tuple[Cell, float]]:
    """Words of a line and the gap before each; a glyph drawn twice (fake bold) counts once."""
    word: list[Char] = []
    gap = 0.0
    for char in chars:
        if word and char.text == word[-1].text and abs(char.x0 - word[-1].x0) < 0.5:
            continue
        if word and (char.spaced or char.x0 - word[-1].x1 > WORD_GAP * height):
            yield _word(word), gap
            gap, word = char.x0 - word[-1].x1, []
        word.append(char)
    if word:
        yield _word(word), gap


def _word(chars: list[Char]) -> Cell:
    right = max(c.x1 for c in chars)
    digits = [c.x1 for c in chars if c.text.isdigit()]
    return Cell("".join(c.text for c in chars), chars[0].x0, right, max(digits, default=right))


def has_digit(text: str) -> bool:
    return any(ch.isdigit() for ch in text)


def _joins(cell: str, word: str, gap: float) -> bool:
    """Whether ``word`` continues ``cell``: close by, and not a new number after a number.

    A currency sign starts a cell and takes the number after it.
    """
    if cell in _CURRENCY:
        return True
    if word in _CURRENCY:
        return False
    if gap >= CELL_GAP:
        return False
    return word in _TRAILERS or not (is_value(word) and is_value(cell))


def is_value(text: str) -> bool:
    """A number, or a dash standing for none (with currency, percent or parentheses)."""
    return bool(_NUMBER.match(text) or _DASH.match(text.strip("$€£¥%() ")))


def is_year(text: str) -> bool:
    return bool(_YEAR.match(text))
