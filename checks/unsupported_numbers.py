"""Unsupported numbers: the numbers of an answer that neither the evidence nor the executed
program holds."""

from __future__ import annotations

from collections.abc import Sequence

from filingqa.core.numbers import extract_numbers

# Years, small counts and percentages-of-100 are not figures a reviewer could invent.
_SMALL = 12


def unsupported_numbers(text: str, evidence: str, computed: Sequence[float] = ()) -> list[float]:
    """Numbers in ``text`` found neither in ``evidence`` nor among ``computed`` values (a
    computed value rounded to 0-2 decimals, as answers show it, counts as computed)."""
    known = {round(abs(n.magnitude), 6) for n in extract_numbers(evidence)}
    known |= {round(abs(round(value, places)), 6) for value in computed for places in (0, 1, 2, 6)}
    found = []
    for number in extract_numbers(text):
        magnitude = round(abs(number.magnitude), 6)
        if magnitude in known or _is_incidental(magnitude):
            continue
        if not any(abs(magnitude - k) <= 0.005 * max(k, 1e-9) for k in known):
            found.append(number.magnitude)
    return found


def _is_incidental(magnitude: float) -> bool:
    return (magnitude.is_integer() and magnitude <= _SMALL) or 1900 <= magnitude <= 2100
