"""Sign check: a program that subtracts a figure the filing prints in parentheses.

Filings print outflows and losses in parentheses ("Purchases of property and equipment
(412.6)"). A small model copies such a figure as ``-412.6`` and then subtracts it as well,
``812.4 - (-412.6)``, so the outflow is added. The check reads the program's syntax tree and
finds each subtraction whose right side is a negative number (a literal, or a name assigned
one literal) whose magnitude the evidence shows in parentheses, while the left side is not
known to be negative. Questions about a change between periods are exempt: subtracting last
year's loss from this year's figure is the right computation there. :func:`sign_repaired`
applies the fix the check asks for in code: each such right side subtracted as its magnitude.
"""

from __future__ import annotations

import ast
import math
import re

_PARENTHESISED = re.compile(r"\(\s*\$?\s*(\d[\d,]*(?:\.\d+)?)\s*%?\s*\)")
_CHANGE = re.compile(
    r"\b(change[sd]?|increase[sd]?|decrease[sd]?|difference|differ|grow(th|n)?|grew|"
    r"declin(e|ed|ing)|ris(e|en)|fell|drop(ped)?|compared?|versus|vs)\b",
    re.IGNORECASE,
)


def subtracted_negatives(program: str, evidence: str, question: str) -> list[float]:
    """Magnitudes of parenthesised evidence figures that ``program`` subtracts as negatives.

    Empty when the question asks for a change, when the program does not parse, or when
    nothing suspicious is found.
    """
    return sorted({magnitude for _, magnitude in _slips(program, evidence, question)})


def sign_repaired(program: str, evidence: str, question: str) -> str | None:
    """``program`` with each negative that :func:`subtracted_negatives` finds subtracted as
    its magnitude (``812.4 - (-412.6)`` becomes ``812.4 - (abs(-412.6))``), or None when
    nothing is found. Only the subtractions' right sides change; the rest of the text stays
    as written."""
    slips = _slips(program, evidence, question)
    if not slips:
        return None
    source = program.encode("utf-8")
    starts = _line_starts(source)
    for node, _ in sorted(slips, key=lambda slip: _span(slip[0], starts), reverse=True):
        begin, end = _span(node, starts)
        source = source[:begin] + b"abs(" + source[begin:end] + b")" + source[end:]
    return source.decode("utf-8")


def asks_for_change(question: str) -> bool:
    """Whether the question asks for a change, difference, growth or comparison."""
    return bool(_CHANGE.search(question))


def sign_feedback(magnitudes: list[float]) -> str:
    """The reason given to the model when :func:`subtracted_negatives` found something."""
    listed = ", ".join(f"({m:,g})" for m in magnitudes)
    return (
        f"the evidence prints {listed} in parentheses, which already marks an outflow or a "
        "negative amount; the program makes it negative and then subtracts it, so the amount "
        "is added instead. Apply its sign once: subtract the plain number, or add the "
        "negative one."
    )


def _slips(program: str, evidence: str, question: str) -> list[tuple[ast.expr, float]]:
    """Each subtraction's right side that is a negative parenthesised evidence figure while
    its left side is not known to be negative, with that figure's magnitude."""
    if asks_for_change(question):
        return []
    try:
        tree = ast.parse(program)
    except SyntaxError:
        return []
    shown = _parenthesised(evidence)
    if not shown:
        return []
    bindings = _literal_bindings(tree)
    found: list[tuple[ast.expr, float]] = []
    for left, right in _subtractions(tree):
        subtracted = _value(right, bindings)
        if subtracted is None or subtracted >= 0:
            continue
        minuend = _value(left, bindings)
        if minuend is not None and minuend < 0:
            continue
        if any(math.isclose(-subtracted, figure, rel_tol=1e-9) for figure in shown):
            found.append((right, -subtracted))
    return found


def _line_starts(source: bytes) -> list[int]:
    """The byte offset at which each line of ``source`` starts."""
    return [0, *(index + 1 for index, byte in enumerate(source) if byte == ord("\n"))]


def _span(node: ast.expr, starts: list[int]) -> tuple[int, int]:
    """``node``'s byte offsets in the source (the syntax tree counts columns in bytes)."""
    assert node.end_lineno is not None and node.end_col_offset is not None
    return (
        starts[node.lineno - 1] + node.col_offset,
        starts[node.end_lineno - 1] + node.end_col_offset,
    )


def _parenthesised(evidence: str) -> list[float]:
    return [float(m.group(1).replace(",", "")) for m in _PARENTHESISED.finditer(evidence)]


def _literal_bindings(tree: ast.Module) -> dict[str, float]:
    """Names assigned exactly once, to a number literal."""
    values: dict[str, float | None] = {}
    for node in ast.walk(tree):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AugAssign | ast.AnnAssign):
            targets = [node.target]
        for target in targets:
            if not isinstance(target, ast.Name):
                continue
            value = _value(node.value, {}) if isinstance(node, ast.Assign) else None
            values[target.id] = None if target.id in values else value
    return {name: value for name, value in values.items() if value is not None}


def _subtractions(tree: ast.Module) -> list[tuple[ast.expr, ast.expr]]:
    """(left, right) of every ``a - b`` and ``a -= b`` in the program."""
    pairs: list[tuple[ast.expr, ast.expr]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Sub):
            pairs.append((node.left, node.right))
        elif isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Sub):
            pairs.append((node.target, node.value))
    return pairs


def _value(node: ast.expr | None, bindings: dict[str, float]) -> float | None:
    """The number ``node`` stands for when it is a literal, a negated one, or a bound name."""
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        return None if isinstance(node.value, bool) else float(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        inner = _value(node.operand, bindings)
        if inner is None:
            return None
        return -inner if isinstance(node.op, ast.USub) else inner
    if isinstance(node, ast.Name):
        return bindings.get(node.id)
    return None
