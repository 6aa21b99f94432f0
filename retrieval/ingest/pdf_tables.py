"""Tables found in a page's lines: a run of lines whose cells end in numbers, its columns the
clusters of the numbers' right edges (numbers are right-aligned).

Filings printed from EDGAR HTML draw their tables without ruling lines, so columns come
from character positions. Header lines above a table (years, dates, spanning titles) are
joined per column, and short title or units lines above those become the caption."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from statistics import median
from typing import Literal, NamedTuple

from filingqa.records.qa_record import Table
from filingqa.retrieval.ingest.pdf_layout import (
    NOISE_LINE,
    Cell,
    Line,
    has_digit,
    is_value,
    is_year,
)
from filingqa.retrieval.ingest.sections import parse_heading, parse_part

TABLE_LINE_GAP = 2.6  # a vertical gap wider than this many line heights ends a table
MAX_HEADER_LINES = 4
MAX_CAPTION_LINES = 3
MAX_CAPTION_WORDS = 12
MAX_LABEL_RUN = 3  # label-only lines (section rows) allowed between two data rows


class _Column(NamedTuple):
    left: float
    right: float
    anchor: float


def _kind(line: Line) -> Literal["data", "years", "other"]:
    """``data``: a label (or a value) then values; ``years``: such a line of years only."""
    values = [c.text for c in line.cells[1:] if is_value(c.text)]
    if len(line.cells) < 2 or not values or not is_value(line.cells[-1].text):
        return "other"
    if is_value(line.cells[0].text):
        values.insert(0, line.cells[0].text)
    return "years" if all(is_year(v) for v in values) else "data"


def find_tables(lines: list[Line]) -> Iterator[tuple[int, int, Table]]:
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


def _table_end(lines: list[Line], kinds: Sequence[str], start: int) -> tuple[int, int]:
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


def _value_zone(line: Line) -> float:
    """Left edge of the first value cell of a data line."""
    return min(c.x0 for c in line.cells[1:] if is_value(c.text))


def _header_start(
    lines: list[Line], kinds: Sequence[str], start: int, end: int, floor: int
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


def _is_label(line: Line, zone: float) -> bool:
    return len(line.cells) == 1 and line.cells[0].x1 < zone


def _over_values(line: Line, zone: float, margin: float) -> bool:
    """Whether a line's cells sit over the value columns (a first label cell allowed)."""
    cells = line.cells[1:] if line.cells[0].x0 < margin + 1 and len(line.cells) > 1 else line.cells
    return all(c.x0 > margin + 40 and (c.x0 + c.x1) / 2 > zone - 2 * line.height for c in cells)


def _caption_start(lines: list[Line], head: int, floor: int) -> int:
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
            or NOISE_LINE.match(text)
            or parse_heading(text)
            or parse_part(text)
        ):
            break
        first -= 1
    return first


def _rows(header_lines: list[Line], body: list[Line]) -> list[list[str]]:
    """The table's cell rows: one header row (joined header lines), then the body rows."""
    columns = _columns(body)
    zone = columns[0].left
    rows = [_body_row(line, columns, zone) for line in body]
    rows = _join_wrapped_labels(rows)
    if header_lines:
        rows.insert(0, _header_row(header_lines, columns, zone))
    return rows


def _columns(body: list[Line]) -> list[_Column]:
    """Value columns, from clusters of the right edges of the numbers' digits.

    Dashes ("—" for nil) are often centred rather than right-aligned: they make a column of
    their own only where no numbers' column stands.
    """
    values = [c for line in body for c in line.cells[1:] if is_value(c.text)]
    tolerance = max(6.0, median(line.height for line in body))
    numbers = _clusters([c for c in values if has_digit(c.text)], lambda c: c.anchor, tolerance)
    columns = [_column(group) for group in numbers]
    pad = tolerance / 2
    dashes = [
        c
        for c in values
        if not has_digit(c.text) and all(_distance(_dash_point(c), col) > pad for col in columns)
    ]
    columns += [_column(g) for g in _clusters(dashes, lambda c: c.anchor, tolerance)]
    return sorted(columns, key=lambda col: col.anchor)


def _clusters(
    cells: list[Cell], key: Callable[[Cell], float], tolerance: float
) -> list[list[Cell]]:
    """Cells grouped where consecutive ``key`` values lie within ``tolerance``."""
    groups: list[list[Cell]] = []
    for cell in sorted(cells, key=key):
        if groups and key(cell) - key(groups[-1][-1]) <= tolerance:
            groups[-1].append(cell)
        else:
            groups.append([cell])
    return groups


def _column(cells: list[Cell]) -> _Column:
    return _Column(
        min(c.x0 for c in cells), max(c.x1 for c in cells), median(c.anchor for c in cells)
    )


def _column_of(cell: Cell, columns: list[_Column]) -> int:
    """The column whose digits end nearest the cell's; a cell without digits (a dash) goes
    to the column it stands in (the nearest one if none)."""
    if has_digit(cell.text):
        return min(range(len(columns)), key=lambda i: abs(columns[i].anchor - cell.anchor))
    point = _dash_point(cell)
    return min(range(len(columns)), key=lambda i: _distance(point, columns[i]))


def _dash_point(cell: Cell) -> float:
    """Where a cell without digits stands: just left of its end (a "$" before it aside)."""
    return cell.anchor - 2


def _distance(x: float, column: _Column) -> float:
    """How far ``x`` lies outside the column (0 inside it)."""
    return max(column.left - x, x - column.right, 0.0) + abs(x - column.anchor) / 1000


def _body_row(line: Line, columns: list[_Column], zone: float) -> list[str]:
    """A body line as ``[label, value per column]``: text left of the values is the label."""
    row = [""] * (len(columns) + 1)
    for i, cell in enumerate(line.cells):
        in_label = cell.x1 < zone - 1 and (i == 0 or not is_value(cell.text))
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


def _header_row(header_lines: list[Line], columns: list[_Column], zone: float) -> list[str]:
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


def _spans_all(heads: list[Cell], columns: list[_Column]) -> bool:
    """A lone header cell centred over the value columns ("Years Ended") heads them all."""
    if len(heads) != 1 or len(columns) < 2:
        return False
    left, right = columns[0].left, columns[-1].right
    centre = (heads[0].x0 + heads[0].x1) / 2
    return abs(centre - (left + right) / 2) < (right - left) / 6


def _spanned(cell: Cell, columns: list[_Column], pad: float) -> list[int]:
    """Indices of the columns a header cell stands over (the nearest one if it overlaps none)."""
    spanned = [
        i for i, col in enumerate(columns) if cell.x0 < col.right + pad and cell.x1 > col.left - pad
    ]
    centre = (cell.x0 + cell.x1) / 2
    nearest = min(
        range(len(columns)), key=lambda i: abs((columns[i].left + columns[i].right) / 2 - centre)
    )
    return spanned or [nearest]
