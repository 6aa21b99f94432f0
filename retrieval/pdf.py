"""Read a PDF into pages of paragraphs and tables, with pypdfium2 (PDFium; Apache-2.0/BSD).

Filings printed from EDGAR HTML draw their tables without ruling lines: columns are aligned
by whitespace. So tables are found from character positions: characters are grouped into
lines, lines into cells at wide gaps, and a run of lines whose cells end in numbers becomes
a table whose columns are the clusters of the numbers' right edges (numbers are
right-aligned). Header lines above it (years, dates, spanning titles) are joined per column,
and short title or units lines above those become the caption.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from statistics import median
from typing import Literal, NamedTuple

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c
from pydantic import BaseModel, ConfigDict

from filingqa.records.qa_record import Table
from filingqa.retrieval.sections import parse_heading, parse_part
from filingqa.retrieval.tables import lead_in

PARSER_VERSION = "pdfium-layout-3"

Reason = Literal["corrupt", "encrypted", "empty", "image-only", "unsupported", "failed"]

_NUMBER = re.compile(r"^[(\-–—]?[$€£¥]?\(?-?(\d[\d,]*(\.\d+)?|\.\d+)\)?%?\)?\*?$")
_NO_PAGES = re.compile(rb"/Type\s*/Pages\b[^>]*/Count\s+0\b")
_DASH = re.compile(r"^[—–\-]+$")
_YEAR = re.compile(r"^(19|20)\d\d$")
_CURRENCY = frozenset("$€£¥")
_LEADERS = re.compile(r"(\s*\.){4,}\s*")  # dot leaders between a label and its values
_TRAILERS = frozenset({"%", ")", "%)"})
_NOISE_LINE = re.compile(r"^(table of contents|index|\d{1,3}|[a-z]?-?\d{1,3}|page \d+)$", re.I)

WORD_GAP = 0.15  # a gap wider than this many line heights separates words
CELL_GAP = 1.0  # ... and this many, cells
PARAGRAPH_GAP = 0.7  # a vertical gap wider than this many line heights starts a paragraph
TABLE_LINE_GAP = 2.6  # ... and this many ends a table
MAX_HEADER_LINES = 4
MAX_CAPTION_LINES = 3
MAX_CAPTION_WORDS = 12
MAX_LABEL_RUN = 3  # label-only lines (section rows) allowed between two data rows


class UnreadableDocument(Exception):
    """A file that cannot be ingested: corrupt, encrypted, empty, image-only or unsupported."""

    def __init__(self, path: str | Path, reason: Reason, detail: str) -> None:
        super().__init__(f"{path}: {reason}: {detail}")
        self.path = str(path)
        self.reason: Reason = reason
        self.detail = detail


class PageContent(BaseModel):
    """One page of a document (any source) as paragraphs and tables in reading order."""

    model_config = ConfigDict(extra="forbid")

    number: int  # 1-based
    blocks: list[Table | str]

    @property
    def text(self) -> str:
        """The page as plain text: paragraphs, and tables rendered as pipe rows."""
        return "\n\n".join(b if isinstance(b, str) else b.render() for b in self.blocks)

    @property
    def tables(self) -> list[Table]:
        """The tables found on the page."""
        return [b for b in self.blocks if isinstance(b, Table)]


class _Char(NamedTuple):
    text: str
    x0: float
    top: float  # distance from the page top
    x1: float
    bottom: float
    spaced: bool  # a space (real or inferred by PDFium) comes before it in the text stream


class _Cell(NamedTuple):
    text: str
    x0: float
    x1: float
    anchor: float  # right edge of the last digit (numbers align on it), else x1


class _Column(NamedTuple):
    left: float
    right: float
    anchor: float


class _Line(NamedTuple):
    cells: list[_Cell]
    top: float
    bottom: float

    @property
    def height(self) -> float:
        return self.bottom - self.top

    @property
    def text(self) -> str:
        return " ".join(cell.text for cell in self.cells)


def read_pdf(path: str | Path) -> list[PageContent]:
    """The pages of the PDF at ``path`` (1-based numbers) with their paragraphs and tables.

    Raises:
        UnreadableDocument: the file is empty, corrupt, encrypted, or has no text layer.
    """
    path = Path(path)
    document = _open(path)
    try:
        pages = [
            PageContent(number=i + 1, blocks=_page_blocks(document[i]))
            for i in range(len(document))
        ]
    finally:
        document.close()
    if not pages:
        raise UnreadableDocument(path, "empty", "the PDF has no pages")
    if not any(page.blocks for page in pages):
        raise UnreadableDocument(path, "image-only", "no text layer (scanned?); OCR unsupported")
    return pages


def _open(path: Path) -> pdfium.PdfDocument:
    if not path.is_file():
        raise UnreadableDocument(path, "unsupported", "no such file")
    if path.stat().st_size == 0:
        raise UnreadableDocument(path, "empty", "the file has zero bytes")
    try:
        return pdfium.PdfDocument(path)
    except pdfium.PdfiumError as error:
        raise _load_failure(path, error) from error


def _load_failure(path: Path, error: pdfium.PdfiumError) -> UnreadableDocument:
    """Why PDFium could not open a file. Its error code can be stale (it is left over from an
    earlier call when a zero-page file fails), so the file's bytes confirm it."""
    data = path.read_bytes()
    locked = error.err_code in (pdfium_c.FPDF_ERR_PASSWORD, pdfium_c.FPDF_ERR_SECURITY)
    if locked and b"/Encrypt" in data:
        return UnreadableDocument(path, "encrypted", "password-protected")
    if _NO_PAGES.search(data):
        return UnreadableDocument(path, "empty", "the PDF has no pages")
    return UnreadableDocument(path, "corrupt", f"not a readable PDF ({error})")


# --- characters, lines, cells --------------------------------------------------------------


def _page_blocks(page: pdfium.PdfPage) -> list[Table | str]:
    textpage = page.get_textpage()
    try:
        chars = _chars(textpage, page.get_height())
    finally:
        textpage.close()
    return _blocks(_lines(chars))


def _chars(textpage: pdfium.PdfTextPage, page_height: float) -> list[_Char]:
    """The page's visible characters with loose (font-height) boxes, top-down coordinates."""
    chars: list[_Char] = []
    spaced = False
    for i in range(textpage.count_chars()):
        code = pdfium_c.FPDFText_GetUnicode(textpage.raw, i)
        if not code or chr(code).isspace():
            spaced = True
            continue
        x0, y0, x1, y1 = textpage.get_charbox(i, loose=True)
        if y1 > y0:
            chars.append(_Char(chr(code), x0, page_height - y1, x1, page_height - y0, spaced))
            spaced = False
    return chars


def _lines(chars: list[_Char]) -> list[_Line]:
    """Characters grouped into lines (vertical centres within ~half a height), top to bottom."""
    groups: list[list[_Char]] = []
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
        lines.append(_Line(_cells(group, size), top, top + size))
    return lines


def _cells(chars: list[_Char], height: float) -> list[_Cell]:
    """One line's characters (left to right) as words, then cells split at wide gaps."""
    cells: list[_Cell] = []
    for word, gap in _words(chars, height):
        if cells and _joins(cells[-1].text, word.text, gap / height):
            last = cells[-1]
            separator = "" if last.text in _CURRENCY or word.text in _TRAILERS else " "
            keeps = _has_digit(last.text) and not _has_digit(word.text)
            anchor = last.anchor if keeps else word.anchor
            cells[-1] = _Cell(last.text + separator + word.text, last.x0, word.x1, anchor)
        else:
            cells.append(word)
    return [cell._replace(text=_LEADERS.sub(" ", cell.text).strip()) for cell in cells]


def _words(chars: list[_Char], height: float) -> Iterator[tuple[_Cell, float]]:
    """Words of a line and the gap before each; a glyph drawn twice (fake bold) counts once."""
    word: list[_Char] = []
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


def _word(chars: list[_Char]) -> _Cell:
    right = max(c.x1 for c in chars)
    digits = [c.x1 for c in chars if c.text.isdigit()]
    return _Cell("".join(c.text for c in chars), chars[0].x0, right, max(digits, default=right))


def _has_digit(text: str) -> bool:
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
    return word in _TRAILERS or not (_is_value(word) and _is_value(cell))


def _is_value(text: str) -> bool:
    """A number, or a dash standing for none (with currency, percent or parentheses)."""
    return bool(_NUMBER.match(text) or _DASH.match(text.strip("$€£¥%() ")))


def _is_year(text: str) -> bool:
    return bool(_YEAR.match(text))


# --- tables --------------------------------------------------------------------------------


def _kind(line: _Line) -> Literal["data", "years", "other"]:
    """``data``: a label (or a value) then values; ``years``: such a line of years only."""
    values = [c.text for c in line.cells[1:] if _is_value(c.text)]
    if len(line.cells) < 2 or not values or not _is_value(line.cells[-1].text):
        return "other"
    if _is_value(line.cells[0].text):
        values.insert(0, line.cells[0].text)
    return "years" if all(_is_year(v) for v in values) else "data"


def _blocks(lines: list[_Line]) -> list[Table | str]:
    """Lines as paragraphs and tables in reading order."""
    blocks: list[Table | str] = []
    position = 0
    for start, end, table in _tables(lines):
        blocks += _paragraphs(lines[position:start])
        if table.caption is None and blocks and isinstance(blocks[-1], str):
            table.caption = lead_in(blocks[-1])
        blocks.append(table)
        position = end
    blocks += _paragraphs(lines[position:])
    return blocks


def _paragraphs(lines: list[_Line]) -> list[str]:
    paragraphs: list[list[str]] = []
    previous: _Line | None = None
    for line in lines:
        if _NOISE_LINE.match(line.text.strip()) and len(line.cells) == 1:
            continue
        if previous is None or line.top - previous.bottom > PARAGRAPH_GAP * line.height:
            paragraphs.append([])
        paragraphs[-1].append(line.text)
        previous = line
    return ["\n".join(p) for p in paragraphs]


def _tables(lines: list[_Line]) -> Iterator[tuple[int, int, Table]]:
    """``(first line, end line, table)`` of each table, in order, lines not overlapping."""
    kinds = [_kind(line) for line in lines]
    position = 0
    count = 0
    while position < len(lines):
        start = next((i for i in range(position, len(lines)) if kinds[i] == "data"), None)
        if start is None:
            return
        end, data_rows = _table_end(lines, kinds, start)
        head, body = _header_start(lines, kinds, start, end, position)
        caption_start = _caption_start(lines, head, position)
        if data_rows >= 2 or (data_rows == 1 and head < body):
            count += 1
            caption = " ".join(line.text for line in lines[caption_start:head]) or None
            rows = _rows(lines[head:body], lines[body:end])
            yield caption_start, end, Table(id=f"t{count}", rows=rows, caption=caption)
            position = end
        else:
            position = start + 1


def _table_end(lines: list[_Line], kinds: list[str], start: int) -> tuple[int, int]:
    """The end (exclusive) of the table starting at ``start`` and its number of data rows."""
    zone = _value_zone(lines[start])
    end, data_rows, labels = start + 1, 1, 0
    for i in range(start + 1, len(lines)):
        line, previous = lines[i], lines[i - 1]
        if line.top - previous.bottom > TABLE_LINE_GAP * line.height:
            break
        if kinds[i] in ("data", "years"):
            end, data_rows, labels = i + 1, data_rows + (kinds[i] == "data"), 0
            zone = min(zone, _value_zone(line))
            continue
        labels += 1
        if labels > MAX_LABEL_RUN or line.cells[-1].x1 > zone:
            break
    return end, data_rows


def _value_zone(line: _Line) -> float:
    """Left edge of the first value cell of a data line."""
    return min(c.x0 for c in line.cells[1:] if _is_value(c.text))


def _header_start(
    lines: list[_Line], kinds: list[str], start: int, end: int, floor: int
) -> tuple[int, int]:
    """``(first header line, first body line)`` for the data rows ``start:end``.

    Header lines sit over the value columns; up to three label lines between them and the
    first data row (section rows such as "Assets", "Current assets:") belong to the body.
    """
    zone = min(
        _value_zone(line)
        for line, k in zip(lines[start:end], kinds[start:end], strict=True)
        if k == "data"
    )
    margin = min(line.cells[0].x0 for line in lines[start:end])

    def heads(i: int) -> bool:
        return kinds[i] == "years" or _over_values(lines[i], zone, margin)

    def near(i: int) -> bool:
        return lines[i + 1].top - lines[i].bottom <= TABLE_LINE_GAP * lines[i].height

    body = start
    while body > floor + 1 and start - body < MAX_LABEL_RUN and near(body - 1):
        if not _is_label(lines[body - 1], zone):
            break
        body -= 1
    while body < start and not (heads(body - 1) and near(body - 1)):
        body += 1
    head = body
    while head > floor and body - head < MAX_HEADER_LINES and near(head - 1) and heads(head - 1):
        head -= 1
    return head, body


def _is_label(line: _Line, zone: float) -> bool:
    return len(line.cells) == 1 and line.cells[0].x1 < zone


def _over_values(line: _Line, zone: float, margin: float) -> bool:
    """Whether a line's cells sit over the value columns (a first label cell allowed)."""
    cells = line.cells[1:] if line.cells[0].x0 < margin + 1 and len(line.cells) > 1 else line.cells
    return all(c.x0 > margin + 40 and (c.x0 + c.x1) / 2 > zone - 2 * line.height for c in cells)


def _caption_start(lines: list[_Line], head: int, floor: int) -> int:
    """First of up to three short title or units lines just above the header (an Item
    heading is not a caption)."""
    first = head
    while first > floor and head - first < MAX_CAPTION_LINES:
        line, below = lines[first - 1], lines[first]
        text = line.text.strip()
        if (
            len(line.cells) != 1
            or below.top - line.bottom > TABLE_LINE_GAP * line.height
            or len(text.split()) > MAX_CAPTION_WORDS
            or text.endswith((".", ":", ";"))
            or _NOISE_LINE.match(text)
            or parse_heading(text)
            or parse_part(text)
        ):
            break
        first -= 1
    return first


def _rows(header_lines: list[_Line], body: list[_Line]) -> list[list[str]]:
    """The table's cell rows: one header row (joined header lines), then the body rows."""
    columns = _columns(body)
    zone = columns[0].left
    rows = [_body_row(line, columns, zone) for line in body]
    rows = _join_wrapped_labels(rows)
    if header_lines:
        rows.insert(0, _header_row(header_lines, columns, zone))
    return rows


def _columns(body: list[_Line]) -> list[_Column]:
    """Value columns, from clusters of the right edges of the numbers' digits.

    Dashes ("—" for nil) are often centred rather than right-aligned: they make a column of
    their own only where no numbers' column stands.
    """
    values = [c for line in body for c in line.cells[1:] if _is_value(c.text)]
    tolerance = max(6.0, median(line.height for line in body))
    numbers = _clusters([c for c in values if _has_digit(c.text)], lambda c: c.anchor, tolerance)
    columns = [_column(group) for group in numbers]
    pad = tolerance / 2
    dashes = [
        c
        for c in values
        if not _has_digit(c.text) and all(_distance(_dash_point(c), col) > pad for col in columns)
    ]
    columns += [_column(g) for g in _clusters(dashes, lambda c: c.anchor, tolerance)]
    return sorted(columns, key=lambda col: col.anchor)


def _clusters(
    cells: list[_Cell], key: Callable[[_Cell], float], tolerance: float
) -> list[list[_Cell]]:
    """Cells grouped where consecutive ``key`` values lie within ``tolerance``."""
    groups: list[list[_Cell]] = []
    for cell in sorted(cells, key=key):
        if groups and key(cell) - key(groups[-1][-1]) <= tolerance:
            groups[-1].append(cell)
        else:
            groups.append([cell])
    return groups


def _column(cells: list[_Cell]) -> _Column:
    return _Column(
        min(c.x0 for c in cells), max(c.x1 for c in cells), median(c.anchor for c in cells)
    )


def _column_of(cell: _Cell, columns: list[_Column]) -> int:
    """The column whose digits end nearest the cell's; a cell without digits (a dash) goes
    to the column it stands in (the nearest one if none)."""
    if _has_digit(cell.text):
        return min(range(len(columns)), key=lambda i: abs(columns[i].anchor - cell.anchor))
    point = _dash_point(cell)
    return min(range(len(columns)), key=lambda i: _distance(point, columns[i]))


def _dash_point(cell: _Cell) -> float:
    """Where a cell without digits stands: just left of its end (a "$" before it aside)."""
    return cell.anchor - 2


def _distance(x: float, column: _Column) -> float:
    """How far ``x`` lies outside the column (0 inside it)."""
    return max(column.left - x, x - column.right, 0.0) + abs(x - column.anchor) / 1000


def _body_row(line: _Line, columns: list[_Column], zone: float) -> list[str]:
    """A body line as ``[label, value per column]``: text left of the values is the label."""
    row = [""] * (len(columns) + 1)
    for i, cell in enumerate(line.cells):
        in_label = cell.x1 < zone - 1 and (i == 0 or not _is_value(cell.text))
        index = 0 if in_label else _column_of(cell, columns) + 1
        row[index] = f"{row[index]} {cell.text}".strip()
    return row


def _join_wrapped_labels(rows: list[list[str]]) -> list[list[str]]:
    """A label-only row continued by a row whose label is empty or starts in lower case."""
    joined: list[list[str]] = []
    for row in rows:
        previous = joined[-1] if joined else None
        continues = (not row[0] and any(row[1:])) or row[0][:1].islower()
        if previous and previous[0] and not any(previous[1:]) and continues:
            joined[-1] = [f"{previous[0]} {row[0]}".strip(), *row[1:]]
        else:
            joined.append(row)
    return joined


def _header_row(header_lines: list[_Line], columns: list[_Column], zone: float) -> list[str]:
    """Header lines joined per column; a cell spanning several columns heads each of them."""
    row = [""] * (len(columns) + 1)
    for line in header_lines:
        pad = line.height / 2
        label = [c for c in line.cells if c.x1 < zone - pad and (c.x0 + c.x1) / 2 < zone]
        heads = [c for c in line.cells if c not in label]
        row[0] = " ".join([row[0], *(c.text for c in label)]).strip()
        for cell in heads:
            spanned = (
                range(len(columns)) if _spans_all(heads, columns) else _spanned(cell, columns, pad)
            )
            for i in spanned:
                row[i + 1] = f"{row[i + 1]} {cell.text}".strip()
    return row


def _spans_all(heads: list[_Cell], columns: list[_Column]) -> bool:
    """A lone header cell centred over the value columns ("Years Ended") heads them all."""
    if len(heads) != 1 or len(columns) < 2:
        return False
    left, right = columns[0].left, columns[-1].right
    centre = (heads[0].x0 + heads[0].x1) / 2
    return abs(centre - (left + right) / 2) < (right - left) / 6


def _spanned(cell: _Cell, columns: list[_Column], pad: float) -> list[int]:
    """Indices of the columns a header cell stands over (the nearest one if it overlaps none)."""
    spanned = [
        i for i, col in enumerate(columns) if cell.x0 < col.right + pad and cell.x1 > col.left - pad
    ]
    centre = (cell.x0 + cell.x1) / 2
    nearest = min(
        range(len(columns)), key=lambda i: abs((columns[i].left + columns[i].right) / 2 - centre)
    )
    return spanned or [nearest]
