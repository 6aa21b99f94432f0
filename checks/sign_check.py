"""Sign check: a program that subtracts a figure the filing prints in parentheses.

Filings print outflows and losses in parentheses ("Purchases of property and equipment
(412.6)"). A small model copies such a figure as ``-412.6`` and then subtracts it as well,
``812.4 - (-412.6)``, so the outflow is added. The check reads the program's syntax tree and
finds each subtraction whose right side is a negative number (a literal, or a name assigned
one literal) whose magnitude the evidence shows in parentheses, while the left side is not
known to be negative. Questions about a change between periods are exempt: subtracting last
year's loss from this year's figure is the right computation there.
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
    found: list[float] = []
    for left, right in _subtractions(tree):
        subtracted = _value(right, bindings)
        if subtracted is None or subtracted >= 0:
            continue
        minuend = _value(left, bindings)
        if minuend is not None and minuend < 0:
            continue
        if any(math.isclose(-subtracted, figure, rel_tol=1e-9) for figure in shown):
            found.append(-subtracted)
    return sorted(set(found))


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
