"""Cell check: a program that copied a figure from a table row or year the question does not
ask about.

Taking a neighbouring cell is a common PoT mistake of a small model: the right formula on
the wrong row or column. The check locates every number the program writes in the evidence's tables
and reports it when

- the question names rows (every content word of a row's label is in the question) and the
  number sits in none of them but in a row of the same table whose label shares a word
  with one of them
  ("Defined contribution schemes" for "defined benefit schemes", "Total assets" for "Other
  assets"), or
- the number is bound to a name carrying a year (``other_2019 = 56.7``) but sits only under
  other years' columns of a row that has a column for that year.

Each finding says what the evidence shows instead, for one revision of the program.
"""

from __future__ import annotations

import ast
import math
import re
from dataclasses import dataclass

from filingqa.checks.table_rows import LabelledRow, table_rows

_WORD = re.compile(r"[a-z][a-z'’\-]*")
_NAME_YEAR = re.compile(r"(?:^|_|[a-z])((?:19|20)\d\d)(?:_|$)")
_COLUMN_YEAR = re.compile(r"\b((?:19|20)\d\d)\b")
_POSSESSIVE = re.compile(r"['’]s?$")
_CELL_NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?")
_STOP = frozenset(
    [
        "a",
        "an",
        "and",
        "as",
        "at",
        "by",
        "for",
        "from",
        "in",
        "of",
        "on",
        "or",
        "the",
        "to",
        "with",
        "year",
        "years",
        "ended",
    ]
)
_GENERIC = frozenset({"total"})  # names no row alone, and makes no two rows alike


@dataclass(frozen=True)
class Misread:
    """A number the program took from a cell the question does not point at."""

    value: float
    found: str  # where it is: "'Defined contribution schemes' (2019)"
    instead: str  # what the question points at, and its values


def misreads(program: str, evidence: str, question: str) -> list[Misread]:
    """The numbers of ``program`` that sit in a row or year column ``question`` does not ask
    about (empty when the program does not parse or the evidence has no tables)."""
    try:
        tree = ast.parse(program)
    except SyntaxError:
        return []
    rows = table_rows(evidence)
    if not rows:
        return []
    named = [row for row in rows if _names(question, row.label)]
    found: dict[float, Misread] = {}
    for value, name in _literals(tree):
        cells = [(row, column) for row in rows for column, cell in row.values if _is(cell, value)]
        if not cells or value in found:
            continue
        misread = _wrong_row(value, cells, named) or _wrong_year(value, name, cells)
        if misread is not None:
            found[value] = misread
    return list(found.values())


def cell_feedback(found: list[Misread]) -> str:
    """The reason given to the model when :func:`misreads` found something: one sentence
    per cell the question points at instead."""
    grouped: dict[str, list[Misread]] = {}
    for misread in found:
        grouped.setdefault(misread.instead, []).append(misread)
    sentences = [
        ", ".join(f"{m.value:,g} is {m.found}" for m in group) + f"; but {instead}"
        for instead, group in grouped.items()
    ]
    return (
        "the program takes figures from the wrong table cells: "
        + ". ".join(sentences)
        + ". Use the figures the question asks about."
    )


def _wrong_row(
    value: float, cells: list[tuple[LabelledRow, str]], named: list[LabelledRow]
) -> Misread | None:
    if not named or any(row in named for row, _ in cells):
        return None
    row, column = cells[0]
    near = [
        n
        for n in named
        if n.table == row.table and (_words(n.label) & _words(row.label)) - _GENERIC
    ]
    if not near:
        return None
    return Misread(
        value=value,
        found=f"'{row.label}' ({column})",
        instead="the question asks about " + " and ".join(_shown(n) for n in near),
    )


def _wrong_year(
    value: float, name: str | None, cells: list[tuple[LabelledRow, str]]
) -> Misread | None:
    year = _year_of(name)
    if year is None:
        return None
    others = []
    for row, column in cells:
        years = _COLUMN_YEAR.findall(column)
        if year in years:
            return None
        right = [(c, v) for c, v in row.values if year in _COLUMN_YEAR.findall(c)]
        if years and len(right) == 1:
            others.append((row, column, right[0]))
    if len(others) != len(cells) or not others:
        return None
    row, column, (right_column, right_value) = others[0]
    return Misread(
        value=value,
        found=f"the '{row.label}' figure under {column}",
        instead=f"{name} is for {year}: '{row.label}' under {right_column} is {right_value}",
    )


def _literals(tree: ast.Module) -> list[tuple[float, str | None]]:
    """Every number literal of the program, with the name it is bound to when it is bound
    directly (``x = 5``); years and small counts are left out."""
    bound: dict[int, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name):
                bound[id(node.value)] = target.id
                if isinstance(node.value, ast.UnaryOp):
                    bound[id(node.value.operand)] = target.id
    found: list[tuple[float, str | None]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
            value = float(abs(node.value))
            if isinstance(node.value, bool) or _is_count_or_year(value):
                continue
            found.append((value, bound.get(id(node))))
    return found


def _is_count_or_year(value: float) -> bool:
    return (
        (value.is_integer() and value <= 12)
        or value == 100
        or (value.is_integer() and 1900 <= value <= 2099)
    )


def _is(cell: str, value: float) -> bool:
    match = _CELL_NUMBER.search(cell.replace("$", ""))
    if match is None:
        return False
    number = abs(float(match.group(0).replace(",", "")))
    return math.isclose(number, value, rel_tol=1e-9, abs_tol=1e-9)


def _names(question: str, label: str) -> bool:
    """Whether ``question`` names the row: every content word of the label is in it (a
    row labelled only "Total" is named by no question)."""
    words = _words(label)
    return bool(words - _GENERIC) and words <= _words(question)


def _words(text: str) -> set[str]:
    words = (_POSSESSIVE.sub("", w) for w in _WORD.findall(text.lower()))
    return {w for w in words if w not in _STOP and len(w) > 1}


def _year_of(name: str | None) -> str | None:
    if name is None:
        return None
    years = set(_NAME_YEAR.findall(name.lower()))
    return years.pop() if len(years) == 1 else None


def _shown(row: LabelledRow) -> str:
    values = "; ".join(f"{column} = {cell}" for column, cell in row.values)
    return f"'{row.label}' ({values})"
