"""What :class:`~filingqa.retrieval.index.passage_index.PassageIndex` needs from a storage backend.

A backend keeps points (a dense vector, a BM25 sparse vector and a JSON payload per
passage) in one collection with the two named vectors :data:`DENSE` and :data:`SPARSE`, and
answers ranked queries, payload reads and counts under payload :data:`Condition` filters.
Two backends implement :class:`PointStore`: :mod:`~filingqa.retrieval.index.edge_store` (Qdrant's
engine in process) and :mod:`~filingqa.retrieval.index.qdrant_store` (qdrant-client: a server,
its local mode, or memory). Errors of either derive from :class:`PassageIndexError`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from filingqa.retrieval.index.lexical import SparseVector

DENSE = "dense"
SPARSE = "sparse"
KEYWORD_FIELDS = ("doc_id", "company_key", "doc_type", "item_key", "kind")
INTEGER_FIELDS = ("fiscal_year", "fiscal_quarter")

Condition = tuple[str, tuple[str | int, ...]]
"""A payload key and the values it may hold (any of)."""
Ranked = list[tuple[str, float]]
"""Point ids with their scores, best first."""
IndexMeta = dict[str, Any]
"""What an index was built with: format, embedder name, dimension, BM25 parameters, and how
its passages were cut and embedded."""


class PassageIndexError(RuntimeError):
    """A passage index cannot be opened or used as asked."""


class IndexMismatchError(PassageIndexError):
    """The index on disk was built with another embedding model or BM25 setting."""


class IndexLockedError(PassageIndexError):
    """Another process (or an unclosed index) holds the embedded index directory."""


@dataclass(frozen=True)
class StoredPoint:
    """One passage as a backend stores it: its id, vectors and payload."""

    id: str
    dense: np.ndarray
    sparse: SparseVector
    payload: dict[str, Any]


class PointStore(Protocol):
    """A Qdrant backend holding the points of one index."""

    def meta(self) -> IndexMeta | None:
        """What the index was built with (None: not recorded)."""
        ...

    def content_shas(self, ids: list[str]) -> dict[str, str]:
        """The stored content hash of each of ``ids`` that is stored."""
        ...

    def upsert(self, points: list[StoredPoint]) -> None:
        """Write ``points``, replacing any with the same id."""
        ...

    def query(
        self,
        dense: np.ndarray | None,
        sparse: SparseVector | None,
        conditions: list[Condition],
        limit: int,
    ) -> dict[str, Ranked]:
        """The ``limit`` best points of each vector given, by vector name."""
        ...

    def payloads(self, ids: list[str], fields: list[str] | None) -> dict[str, dict[str, Any]]:
        """The payloads (only ``fields``; None: all) of the stored points among ``ids``."""
        ...

    def delete(self, conditions: list[Condition]) -> None:
        """Remove the points that meet ``conditions`` (at least one condition)."""
        ...

    def set_meta(self, meta: IndexMeta) -> None:
        """Record ``meta`` as what the index is built with."""
        ...

    def count(self, conditions: list[Condition]) -> int:
        """How many points meet ``conditions``."""
        ...

    def without(self, key: str, limit: int) -> dict[str, dict[str, Any]]:
        """Up to ``limit`` points whose payload lacks ``key``, with their text."""
        ...

    def set_payloads(self, payloads: dict[str, dict[str, Any]]) -> None:
        """Merge each payload into its point's."""
        ...

    def commit(self) -> None:
        """Make every write durable and searchable at full speed."""
        ...

    def close(self) -> None:
        """Flush and release the store."""
        ...
