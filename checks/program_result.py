"""What a program's ``result`` is made of, read from its syntax tree: a comparison (whose
truth decides a yes or no), a quotient of two figures (a ratio: no scale word), and the factor
it divided its figures by to change their scale (``/ 1000``: thousands into millions).

The expression giving ``result`` is followed through the names it uses, each to the last
assignment before it; a program that never assigns ``result`` is read at its last
assignment, as the sandbox reads it.
"""

from __future__ import annotations

import ast
import math
from typing import NamedTuple

UNIT_FACTORS = (1e3, 1e6, 1e9)
_LARGEST_COUNT = 12  # a divisor up to this whole number is a count (an average's), not a figure
_PASSING = frozenset({"round", "abs", "float", "int"})  # calls that keep their argument's kind
_DEPTH = 40  # names followed at most this deep


class _Binding(NamedTuple):
    at: tuple[int, int]
    name: str
    value: ast.expr


class _Program(NamedTuple):
    result: ast.expr
    at: tuple[int, int]
    bindings: list[_Binding]


def decision_of(value: object) -> bool | None:
    """The yes or no a program's value states: a bool, or the words true/false/yes/no."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        word = value.strip().rstrip(".").lower()
        return {"true": True, "yes": True, "false": False, "no": False}.get(word)
    return None


def comparison(program: str) -> str | None:
    """The comparison the program's result is (``ratio > 1``), as written; None otherwise."""
    parsed = _parse(program)
    if parsed is None:
        return None
    expr = _resolved(parsed.result, parsed.at, parsed.bindings)
    is_test = isinstance(expr, ast.Compare | ast.BoolOp) or (
        isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not)
    )
    return ast.unparse(expr) if is_test else None


def is_quotient(program: str) -> bool:
    """Whether the result is one figure divided by another (a ratio, a share, a turnover),
    rounding, sign and a factor such as ``* 100`` aside; dividing by a count (an average)
    or by a unit factor is not."""
    parsed = _parse(program)
    if parsed is None:
        return False
    expr = _core(parsed.result, parsed.at, parsed.bindings)
    return isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Div | ast.FloorDiv)


def conversion_factor(program: str) -> float:
    """The factor the result's figures were divided by to change their scale: 1000 for
    ``figure / 1000`` (or ``figure * 0.001``), 1/1000 for ``figure * 1000``; 1.0 when the
    program changes no scale or its parts disagree."""
    parsed = _parse(program)
    if parsed is None:
        return 1.0
    return _factor(parsed.result, parsed.at, parsed.bindings, _DEPTH) or 1.0


def _parse(program: str) -> _Program | None:
    try:
        tree = ast.parse(program)
    except SyntaxError:
        return None
    bindings = _bindings(tree)
    named = [b for b in bindings if b.name == "result"]
    last = named[-1] if named else (bindings[-1] if bindings else None)
    if last is None:
        return None
    return _Program(result=last.value, at=last.at, bindings=bindings)


def _bindings(tree: ast.Module) -> list[_Binding]:
    """Every assignment to a plain name, in program order (``x /= 2`` as ``x = x / 2``)."""
    found: list[_Binding] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        elif isinstance(node, ast.AugAssign):
            targets = [node.target]
            value = ast.BinOp(left=ast.Name(id=_name(node.target)), op=node.op, right=node.value)
        else:
            continue
        at = (node.lineno, node.col_offset)
        found += [_Binding(at, t.id, value) for t in targets if isinstance(t, ast.Name)]
    return sorted(found, key=lambda b: b.at)


def _name(target: ast.expr) -> str:
    return target.id if isinstance(target, ast.Name) else ""


def _bound(name: str, before: tuple[int, int], bindings: list[_Binding]) -> _Binding | None:
    """The last assignment to ``name`` before position ``before``."""
    earlier = [b for b in bindings if b.name == name and b.at < before]
    return earlier[-1] if earlier else None


def _resolved(expr: ast.expr, at: tuple[int, int], bindings: list[_Binding]) -> ast.expr:
    """``expr`` with a bare name replaced by what it was last assigned, repeatedly."""
    for _ in range(_DEPTH):
        bound = _bound(expr.id, at, bindings) if isinstance(expr, ast.Name) else None
        if bound is None:
            return expr
        expr, at = bound.value, bound.at
    return expr


def _core(expr: ast.expr, at: tuple[int, int], bindings: list[_Binding]) -> ast.expr:
    """``expr`` without rounding, sign, multiplication by a literal and division by a count
    or a unit factor."""
    for _ in range(_DEPTH):
        bound = _bound(expr.id, at, bindings) if isinstance(expr, ast.Name) else None
        if bound is not None:
            expr, at = bound.value, bound.at
        elif isinstance(expr, ast.Call) and _call_name(expr) in _PASSING and expr.args:
            expr = expr.args[0]
        elif isinstance(expr, ast.UnaryOp):
            expr = expr.operand
        elif isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Div | ast.FloorDiv):
            if not _is_count(_resolved(expr.right, at, bindings)):
                return expr
            expr = expr.left
        elif isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Mult):
            if _number(expr.right) is not None:
                expr = expr.left
            elif _number(expr.left) is not None:
                expr = expr.right
            else:
                return expr
        else:
            return expr
    return expr


def _factor(
    expr: ast.expr, at: tuple[int, int], bindings: list[_Binding], depth: int
) -> float | None:
    """The scale factor ``expr`` carries (None when its parts disagree)."""
    if depth == 0:
        return None
    if isinstance(expr, ast.Name):
        bound = _bound(expr.id, at, bindings)
        return 1.0 if bound is None else _factor(bound.value, bound.at, bindings, depth - 1)
    if isinstance(expr, ast.Call) and _call_name(expr) in _PASSING and expr.args:
        return _factor(expr.args[0], at, bindings, depth - 1)
    if isinstance(expr, ast.UnaryOp):
        return _factor(expr.operand, at, bindings, depth - 1)
    if not isinstance(expr, ast.BinOp):
        return 1.0
    left = _factor(expr.left, at, bindings, depth - 1)
    right = _factor(expr.right, at, bindings, depth - 1)
    if left is None or right is None:
        return None
    if isinstance(expr.op, ast.Add | ast.Sub):
        return left if math.isclose(left, right) else None
    if isinstance(expr.op, ast.Div):
        return left * _unit(expr.right) / right
    if isinstance(expr.op, ast.Mult):
        return left * right / (_unit(expr.left) * _unit(expr.right))
    return 1.0


def _unit(expr: ast.expr) -> float:
    """The unit factor a literal is (1000, or 1/1000 for 0.001); 1.0 for any other node."""
    number = _number(expr)
    if number is None:
        return 1.0
    for factor in UNIT_FACTORS:
        if math.isclose(abs(number), factor):
            return factor
        if math.isclose(abs(number), 1 / factor):
            return 1 / factor
    return 1.0


def _is_count(expr: ast.expr) -> bool:
    """Whether a divisor is a count or a unit: a small whole number, 100, a unit factor or
    ``len(...)``."""
    if isinstance(expr, ast.Call):
        return _call_name(expr) == "len"
    number = _number(expr)
    if number is None:
        return False
    whole_count = number.is_integer() and 0 < number <= _LARGEST_COUNT
    return whole_count or number == 100 or _unit(expr) != 1.0


def _number(expr: ast.expr) -> float | None:
    """The value of a numeric literal (negated or not); None for any other node."""
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub | ast.UAdd):
        inner = _number(expr.operand)
        return None if inner is None else (-inner if isinstance(expr.op, ast.USub) else inner)
    if isinstance(expr, ast.Constant) and isinstance(expr.value, int | float):
        return None if isinstance(expr.value, bool) else float(expr.value)
    return None


def _call_name(call: ast.Call) -> str:
    func = call.func
    if isinstance(func, ast.Name):
        return func.id
    return func.attr if isinstance(func, ast.Attribute) else ""
