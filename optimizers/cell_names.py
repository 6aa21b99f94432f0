"""Gold programs with their figures named after the table cells they were read from.

A gold derivation such as ``(680 - 774) / 774`` over a table with an "Appliances" row
becomes::

    appliances_2019 = 680
    appliances_2018 = 774
    result = (appliances_2019 - appliances_2018) / appliances_2018

so a worked example shows where each figure comes from, not only the arithmetic. A figure
found in no table cell, or in cells of more than one row or column, stays a literal, as do
counts, unit factors and years (:func:`~filingqa.checks.citations.program_numbers`).
"""

from __future__ import annotations

import ast
import re

from filingqa.checks.citations import program_numbers
from filingqa.checks.table_rows import table_rows
from filingqa.core.numbers import parse_number

_WORD = re.compile(r"[a-z0-9]+")
_YEAR = re.compile(r"\b(?:19|20)\d\d\b")
_STOP = frozenset({"a", "an", "and", "at", "by", "for", "in", "of", "on", "the", "to", "s"})
LABEL_WORDS = 4
COLUMN_WORDS = 3


def named_program(code: str, evidence: str) -> str:
    """``code`` with each figure it copies from a table of ``evidence`` bound to a name
    (row label, then the column's year or name) assigned before the first line.

    A negated literal (``-71``) is named as a whole when its cell is printed negative
    (``(71)``). ``code`` is returned unchanged when it does not parse or names nothing.
    """
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return code
    cells = _cell_names(evidence, program_numbers(code))
    namer = _Namer(cells)
    tree = namer.visit(tree)
    if not namer.bound:
        return code
    bindings = [f"{name} = {_literal(value)}" for name, value in namer.bound.items()]
    return "\n".join([*bindings, ast.unparse(tree)])


def _cell_names(evidence: str, wanted: set[float]) -> dict[float, str]:
    """Signed cell value -> the name of the one row and column holding it, for the
    magnitudes in ``wanted``; a value in cells of two rows or columns is left out."""
    found: dict[float, set[str]] = {}
    for row in table_rows(evidence):
        for column, cell in row.values:
            number = parse_number(cell)
            if number is None or round(abs(number.magnitude), 6) not in wanted:
                continue
            found.setdefault(number.magnitude, set()).add(_identifier(row.label, column))
    names = {value: next(iter(places)) for value, places in found.items() if len(places) == 1}
    taken = list(names.values())
    return {value: name for value, name in names.items() if taken.count(name) == 1}


def _identifier(label: str, column: str) -> str:
    """``appliances_2019`` for row "Solutions / Appliances" under "Fiscal 2019" (the row's
    own label, without its section)."""
    years = _YEAR.findall(column)
    own = label.rpartition(" / ")[2]
    words = [w for w in _WORD.findall(own.lower()) if w not in _STOP][:LABEL_WORDS] or ["value"]
    if len(years) == 1:
        words.append(years[0])
    else:
        named = (w for w in _WORD.findall(column.lower()) if w not in _STOP and not w.isdigit())
        words += list(named)[:COLUMN_WORDS]
    name = "_".join(words)
    return name if name[0].isalpha() else f"v_{name}"


def _literal(value: float) -> str:
    return str(int(value)) if value.is_integer() else repr(value)


class _Namer(ast.NodeTransformer):
    """Replaces literals found in ``cells`` by their names and records what it bound."""

    def __init__(self, cells: dict[float, str]) -> None:
        self.cells = cells
        self.bound: dict[str, float] = {}

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.expr:
        if isinstance(node.op, ast.USub) and (number := _number(node.operand)) is not None:
            name = self._name(-number)
            if name is not None:
                return ast.Name(id=name, ctx=ast.Load())
        self.generic_visit(node)
        return node

    def visit_Constant(self, node: ast.Constant) -> ast.expr:
        if (number := _number(node)) is not None:
            name = self._name(number) or self._name(-number)
            if name is not None:
                value = self.bound[name]
                if value < 0:  # the cell is printed negative, the program used its size
                    return ast.UnaryOp(op=ast.USub(), operand=ast.Name(id=name, ctx=ast.Load()))
                return ast.Name(id=name, ctx=ast.Load())
        return node

    def _name(self, value: float) -> str | None:
        name = self.cells.get(value)
        if name is not None:
            self.bound.setdefault(name, value)
        return name


def _number(node: ast.expr) -> float | None:
    if (
        isinstance(node, ast.Constant)
        and isinstance(node.value, int | float)
        and not isinstance(node.value, bool)
    ):
        return float(node.value)
    return None
