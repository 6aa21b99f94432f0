"""What the program needs from retrieval: one call from a query to ranked passages."""

from __future__ import annotations

from typing import Protocol

from filingqa.records.documents import Passage


class SearchHandle(Protocol):
    """Ranked passages for a query, optionally narrowed to a company and a period.

    The retrieval layer's search pipeline implements it over an index; tests implement it
    over a list. ``company`` and ``period`` are as the question states them ("Best Buy",
    "Q2 FY2024"); resolving them to documents is the handle's job.
    """

    def search(
        self, query: str, *, k: int, company: str | None = None, period: str | None = None
    ) -> list[Passage]: ...
