"""Tables as labelled rows: every value of a pipe table next to its row and column names.

In a pipe table the model must count columns to find a value, and a small backbone can take
a neighbouring year's value, an operand from the wrong column. Rewriting each data row as
``label: 2019 = 680; 2018 = 774`` puts every value next to its row and column names. The
program writer reads pipe tables by default (``ProgramOfThought(tables_as_rows=...)``; the
two layouts compared: docs/experiments.md).
Section rows ("Industrial Solutions:") prefix the rows under them; leading spanning rows
(units, "Fiscal") become a caption line. Values keep the filing's notation: ``(412.6)``
stays as written, because whether it is a negative number or an outflow to subtract depends
on the question (shown as ``-412.6``, "operating cash flow less purchases of property"
became ``812.4 - (-412.6)``). A table whose layout is not recognised stays as it was.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import NamedTuple

_SEPARATOR = re.compile(r"^[\s|:\-]+$")
_NUMBER = re.compile(r"^[$€£¥]?\s*\(?\s*[$€£¥]?\s*-?\d[\d,]*(\.\d+)?\s*%?\s*\)?%?$")
_YEAR = re.compile(r"^(19|20)\d\d\b")


class LabelledRow(NamedTuple):
    """One data row of a table: its label (section-prefixed), (column name, cell) pairs, and
    which table of the evidence it belongs to (0-based)."""

    label: str
    values: list[tuple[str, str]]
    table: int = 0


def linearize_tables(evidence: str) -> str:
    """``evidence`` with every pipe table rewritten as labelled rows; other text unchanged."""
    lines: list[str] = []
    for block, is_table in _blocks(evidence):
        lines.append(_rewrite(block) if is_table else block[0])
    return "\n".join(lines)


def table_rows(evidence: str) -> list[LabelledRow]:
    """Every recognised data row of every pipe table in ``evidence``."""
    found: list[LabelledRow] = []
    tables = (block for block, is_table in _blocks(evidence) if is_table)
    for number, block in enumerate(tables):
        rows = _labelled(_table_cells(block))[1] or []
        found += [row._replace(table=number) for row in rows]
    return found


def linearize(rows: list[list[str]]) -> list[str] | None:
    """The rows of one table as labelled lines, or None when no numeric data row is found."""
    caption, labelled = _labelled(rows)
    if labelled is None:
        return None
    lines = [" ".join(caption)] if caption else []
    lines += [f"{r.label}: " + "; ".join(f"{n} = {v}" for n, v in r.values) for r in labelled]
    return lines


def _blocks(evidence: str) -> Iterator[tuple[list[str], bool]]:
    """The lines of ``evidence``: each pipe table as one block, every other line alone."""
    table: list[str] = []
    for line in evidence.split("\n"):
        if line.lstrip().startswith("|"):
            table.append(line)
            continue
        if table:
            yield table, True
            table = []
        yield [line], False
    if table:
        yield table, True


def _labelled(rows: list[list[str]]) -> tuple[list[str], list[LabelledRow] | None]:
    """The caption lines and labelled data rows of one table (None when it has none)."""
    width = max((len(row) for row in rows), default=0)
    if width < 2:
        return [], None
    grid = [[cell.strip() for cell in row] + [""] * (width - len(row)) for row in rows]
    first_data = next((i for i, row in enumerate(grid) if _is_data_row(row)), None)
    if first_data is None:
        return [], None
    header = [row for row in grid[:first_data] if not _is_spanning(row)]
    caption: list[str] = []
    section = ""
    for i, row in enumerate(grid[:first_data]):
        if not _is_spanning(row):
            caption += [row[0]] if row[0] else []
        elif row[0] and any(not _is_spanning(r) for r in grid[:i]):
            section = row[0].rstrip(":").strip()
        else:
            caption.append(_only_cell(row))
    columns = _column_names(header, width)
    labelled: list[LabelledRow] = []
    for row in grid[first_data:]:
        if _is_spanning(row) and not _is_data_row(row):
            section = _only_cell(row).rstrip(":").strip()
            continue
        values = [(columns[j], _compact(row[j])) for j in range(1, width) if row[j]]
        if not values:
            continue
        label = row[0].rstrip(":").strip()
        if section:
            label = f"{section} / {label}" if label else f"{section} (subtotal)"
        labelled.append(LabelledRow(label or "(total)", values))
        if not row[0] or row[0].lower().startswith("total"):
            section = ""  # a subtotal or total row closes its section
    return caption, labelled


def _table_cells(table_lines: list[str]) -> list[list[str]]:
    return [_cells(line) for line in table_lines if not _SEPARATOR.match(line)]


def _rewrite(table_lines: list[str]) -> str:
    linear = linearize(_table_cells(table_lines))
    return "\n".join(table_lines) if linear is None else "\n".join(linear)


def _cells(line: str) -> list[str]:
    inner = line.strip()
    inner = inner[1:] if inner.startswith("|") else inner
    inner = inner[:-1] if inner.endswith("|") else inner
    return [cell.strip() for cell in inner.split("|")]


def _is_value(cell: str) -> bool:
    return bool(_NUMBER.match(cell)) and not _YEAR.match(cell.replace(",", "X"))


def _is_data_row(row: list[str]) -> bool:
    return any(_is_value(cell) for cell in row[1:])


def _is_spanning(row: list[str]) -> bool:
    return sum(1 for cell in row if cell) == 1


def _only_cell(row: list[str]) -> str:
    return next(cell for cell in row if cell)


def _column_names(header: list[list[str]], width: int) -> list[str]:
    names = [""]
    for j in range(1, width):
        parts: list[str] = []
        for row in header:
            if row[j] and row[j] not in parts:
                parts.append(row[j])
        names.append(" ".join(parts) or f"column {j + 1}")
    return names


def _compact(cell: str) -> str:
    """A value cell without the spaces of column alignment: ``$ 5,686`` becomes ``$5,686``."""
    return re.sub(r"([$€£¥(])\s+", r"\1", cell)
