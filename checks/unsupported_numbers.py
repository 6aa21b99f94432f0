"""Unsupported numbers: the numbers of an answer that neither the evidence nor the executed
program holds, at any scale."""

from __future__ import annotations

from collections.abc import Sequence

from filingqa.core.numbers import ParsedNumber, extract_numbers

# Years, small counts and percentages-of-100 are not figures a reviewer could invent.
_SMALL = 12
_SHIFTS = tuple(1000.0**k for k in (-3, -2, -1, 1, 2, 3))
_SHIFTED_SHARE = 0.02  # a figure restated at another scale, rounded, agrees to this share


def unsupported_numbers(text: str, evidence: str, computed: Sequence[float] = ()) -> list[float]:
    """Numbers in ``text`` found neither in ``evidence`` nor among ``computed`` values (a
    computed value rounded to 0-2 decimals, as answers show it, counts as computed). A
    number that is a known one restated at another scale (``4.63`` billion for 4,625
    million) is supported: whether the scale is right is
    :func:`~filingqa.checks.units.scale_slips`'s question."""
    known = {round(abs(n.magnitude), 6) for n in extract_numbers(evidence)}
    known |= {round(abs(round(value, places)), 6) for value in computed for places in (0, 1, 2, 6)}
    found = []
    for number in extract_numbers(text):
        magnitude = round(abs(number.magnitude), 6)
        if magnitude in known or _is_incidental(magnitude):
            continue
        if any(abs(magnitude - k) <= 0.005 * max(k, 1e-9) for k in known):
            continue
        if not _rescaled(number, known):
            found.append(number.magnitude)
    return found


def _rescaled(number: ParsedNumber, known: set[float]) -> bool:
    """Whether ``number`` is a known number read 1000**k times off (k ≠ 0), as rounded
    as it is written."""
    half_unit = 0.5 * 10.0**-number.decimals
    magnitude = abs(number.magnitude)
    for shift in _SHIFTS:
        moved = magnitude * shift
        for k in known:
            slack = min(max(0.005 * k, half_unit * shift), _SHIFTED_SHARE * k)
            if k and abs(moved - k) <= slack * (1 + 1e-9):
                return True
    return False


def _is_incidental(magnitude: float) -> bool:
    return (magnitude.is_integer() and magnitude <= _SMALL) or 1900 <= magnitude <= 2100
