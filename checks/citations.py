"""Citations: the passages a program's input numbers were copied from."""

from __future__ import annotations

import ast
from collections.abc import Iterable

from pydantic import BaseModel

from filingqa.core.numbers import extract_numbers
from filingqa.evidence.statement_rows import ROWS_PART
from filingqa.records.documents import Passage

# Numbers a program uses for arithmetic rather than copies from the evidence: small counts
# (an average over 3 years, 12 months) and unit factors.
_UNIT_FACTORS = {100.0, 1_000.0, 1_000_000.0, 1_000_000_000.0}
_LARGEST_COUNT = 12


class Citation(BaseModel):
    """Where an answer's inputs come from."""

    doc: str
    page: int
    passage_id: str
    kind: str


def program_numbers(program: str) -> set[float]:
    """Magnitudes of the numeric literals in a program, minus small counts and unit factors."""
    try:
        tree = ast.parse(program)
    except SyntaxError:
        return set()
    literals = {
        round(abs(float(node.value)), 6)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, int | float)
        and not isinstance(node.value, bool)
    }
    return {n for n in literals if not _is_arithmetic_constant(n)}


def _is_arithmetic_constant(number: float) -> bool:
    return (number.is_integer() and number <= _LARGEST_COUNT) or number in _UNIT_FACTORS


def passage_numbers(passage: Passage) -> set[float]:
    """Magnitudes of the numbers written in a passage."""
    return {round(abs(number.magnitude), 6) for number in extract_numbers(passage.text)}


def citation_of(passage: Passage) -> Citation:
    """Where ``passage`` is cited: itself, or for labelled statement rows made from a table
    (:mod:`~filingqa.evidence.statement_rows`) the table they were read from."""
    if passage.parent_id and passage.id == f"{passage.parent_id}.{ROWS_PART}":
        return Citation(
            doc=passage.doc_id, page=passage.page, passage_id=passage.parent_id, kind="table"
        )
    return Citation(doc=passage.doc_id, page=passage.page, passage_id=passage.id, kind=passage.kind)


def cite(program: str, passages: list[Passage]) -> list[Citation]:
    """Where the passages holding at least one number the program uses are cited
    (:func:`citation_of`), in the given order, each place once."""
    used = program_numbers(program)
    return unique_citations(citation_of(p) for p in passages if used & passage_numbers(p))


def unique_citations(citations: Iterable[Citation]) -> list[Citation]:
    """``citations`` with each cited passage once, at its first mention."""
    seen: dict[str, Citation] = {}
    for citation in citations:
        seen.setdefault(citation.passage_id, citation)
    return list(seen.values())


def untraced_numbers(program: str, passages: list[Passage]) -> set[float]:
    """Numbers the program uses that appear in none of the passages."""
    seen: set[float] = set().union(*(passage_numbers(p) for p in passages)) if passages else set()
    return program_numbers(program) - seen
