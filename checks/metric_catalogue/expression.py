"""A metric's formula written out as a Python expression over its inputs' names.

The catalogue states each formula as a function of concept values. Calling it with
:class:`_Term` arguments, which build text instead of numbers, gives the same formula as
source (``100 * (revenue - cost_of_revenue) / revenue``): what a program computing the
metric from statement figures writes, so the formula it runs is the catalogue's own.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable

_SUM, _PRODUCT, _ATOM = 1, 2, 3  # operator precedence: + - below * / below names and numbers


class _Term:
    """Expression text and the precedence of its outermost operator."""

    def __init__(self, text: str, precedence: int = _ATOM) -> None:
        self.text = text
        self.precedence = precedence

    def __add__(self, other: object) -> _Term:
        return _binary(self, "+", other, _SUM)

    def __radd__(self, other: object) -> _Term:
        return _binary(other, "+", self, _SUM)

    def __sub__(self, other: object) -> _Term:
        return _binary(self, "-", other, _SUM)

    def __rsub__(self, other: object) -> _Term:
        return _binary(other, "-", self, _SUM)

    def __mul__(self, other: object) -> _Term:
        return _binary(self, "*", other, _PRODUCT)

    def __rmul__(self, other: object) -> _Term:
        return _binary(other, "*", self, _PRODUCT)

    def __truediv__(self, other: object) -> _Term:
        return _binary(self, "/", other, _PRODUCT)

    def __rtruediv__(self, other: object) -> _Term:
        return _binary(other, "/", self, _PRODUCT)


def formula_expression(formula: Callable[..., float]) -> str:
    """``formula`` as an expression over its parameters' names; a TypeError when it does
    anything but add, subtract, multiply and divide its arguments and numbers."""
    names = inspect.signature(formula).parameters
    written = formula(**{name: _Term(name) for name in names})
    if not isinstance(written, _Term):
        raise TypeError(f"the formula does not compute from its arguments: {written!r}")
    return written.text


def _binary(left: object, operator: str, right: object, precedence: int) -> _Term:
    """``left operator right``, each side in parentheses where its own operator binds
    looser (on the right, also where it binds the same: ``a - (b - c)``, ``a / (b * c)``)."""
    left_term, right_term = _term(left), _term(right)
    left_text = _wrapped(left_term, left_term.precedence < precedence)
    right_text = _wrapped(right_term, right_term.precedence <= precedence)
    return _Term(f"{left_text} {operator} {right_text}", precedence)


def _term(value: object) -> _Term:
    if isinstance(value, _Term):
        return value
    if isinstance(value, int | float) and not isinstance(value, bool):
        return _Term(repr(value))
    raise TypeError(f"a formula can only combine its arguments with numbers, not {value!r}")


def _wrapped(term: _Term, needed: bool) -> str:
    return f"({term.text})" if needed else term.text
