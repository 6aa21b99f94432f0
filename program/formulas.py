"""Formula conventions: how a computation the question names is done in financial reporting,
spelled out for the program writer where the small model gets it wrong.

"The 2019 average" of a figure shown for several year-ends is the average balance of the
year: the mean of its 2019 and 2018 values. The 1.5B model took the mean of every column
instead (wrong on all 7 such questions among the first 100 TAT-QA dev arithmetic ones).
Told the convention it fixed 2 of them (the rest took the wrong row). Notes for percentage
change, change and averages over named years were measured too, on the 66 such questions:
no better than without (+0, -3; the model already knows them, and any extra line shifts
its greedy output), so only the year-average convention is given.
"""

from __future__ import annotations

import re

from filingqa.retrieval import lexicon

_AVERAGE = re.compile(r"\baverage\b(?!\s+(?:\w+\s+){0,4}?per\b)", re.IGNORECASE)
_CHANGE = re.compile(r"\b(?:change|increase|decrease|difference)\b", re.IGNORECASE)


def formula_note(question: str) -> str | None:
    """The convention ``question`` calls for, as one line for the program writer, or None.

    An average of one named year ("the 2019 average", "the change between 2018 and 2019
    average free cash flow") is the mean of that year's and the previous year's values; an
    average per unit ("per employee") or over several named years is left alone.
    """
    if not _AVERAGE.search(question):
        return None
    years = sorted(lexicon.years(question))
    if len(years) == 1 or (len(years) == 2 and _CHANGE.search(question)):
        year = years[-1]
        return (
            f"The {year} average of a figure is the mean of its {year} and {year - 1} "
            f"values: (value in {year} + value in {year - 1}) / 2; likewise for other years."
        )
    return None
