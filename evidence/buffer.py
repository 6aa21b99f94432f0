"""The evidence buffer: passages gathered over the loop's rounds, bounded, best first."""

from __future__ import annotations

from collections.abc import Iterable

from filingqa.records import Passage


class EvidenceBuffer:
    """Passages kept across retrieval rounds, each with a priority; the most important fit.

    A passage added twice keeps its higher priority. :meth:`passages` returns, highest
    priority first (earlier additions win ties), as many as fit in ``capacity_chars``.
    """

    def __init__(self, capacity_chars: int = 8000) -> None:
        if capacity_chars <= 0:
            raise ValueError("capacity_chars must be positive")
        self.capacity_chars = capacity_chars
        self._entries: dict[str, tuple[float, int, Passage]] = {}

    def add(self, passages: Iterable[Passage], priority: float) -> None:
        """Add ``passages`` with ``priority`` (keeps the higher one for a known passage)."""
        for passage in passages:
            known = self._entries.get(passage.id)
            if known is None:
                self._entries[passage.id] = (priority, len(self._entries), passage)
            elif priority > known[0]:
                self._entries[passage.id] = (priority, known[1], passage)

    def passages(self) -> list[Passage]:
        """The passages that fit, highest priority first."""
        ranked = sorted(self._entries.values(), key=lambda entry: (-entry[0], entry[1]))
        chosen: list[Passage] = []
        used = 0
        for _, _, passage in ranked:
            if chosen and used + len(passage.text) > self.capacity_chars:
                continue
            chosen.append(passage)
            used += len(passage.text)
        return chosen

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, passage_id: object) -> bool:
        return passage_id in self._entries
