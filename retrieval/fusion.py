"""Reciprocal-rank fusion (RRF) of ranked lists: pure, weighted, deterministic."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)

DEFAULT_K = 60


@dataclass(frozen=True)
class Fused(Generic[K]):
    """One fused item: its key, RRF score and 1-based rank in each input list (None: absent)."""

    key: K
    score: float
    ranks: tuple[int | None, ...]


def rrf_term(rank: int, *, k: int = DEFAULT_K, weight: float = 1.0) -> float:
    """The contribution of a 1-based ``rank``: ``weight / (k + rank)``."""
    return weight / (k + rank)


def reciprocal_rank_fusion(
    rankings: Sequence[Sequence[K]],
    *,
    k: int = DEFAULT_K,
    weights: Sequence[float] | None = None,
) -> list[Fused[K]]:
    """Fuse ranked lists (best first) into one, best first.

    ``score(d) = sum_i weights[i] / (k + rank_i(d))`` over the lists that contain ``d``;
    a key repeated within one list counts at its first (best) position. Ties are broken by
    the best single rank, then by the earliest list holding that rank, so the order depends
    only on the inputs (never on hashing).

    Raises:
        ValueError: ``k`` is negative, or ``weights`` is not one non-negative number per list.
    """
    if k < 0:
        raise ValueError(f"RRF k must be >= 0, got {k}")
    weights = [1.0] * len(rankings) if weights is None else list(weights)
    if len(weights) != len(rankings) or any(w < 0 for w in weights):
        raise ValueError("weights must be one non-negative number per ranked list")
    ranks: dict[K, list[int | None]] = {}
    for list_index, ranking in enumerate(rankings):
        for position, key in enumerate(ranking, start=1):
            slots = ranks.setdefault(key, [None] * len(rankings))
            if slots[list_index] is None:
                slots[list_index] = position
    fused = [Fused(key, _score(slots, k, weights), tuple(slots)) for key, slots in ranks.items()]
    fused.sort(key=_order)
    return fused


def _score(slots: Sequence[int | None], k: int, weights: Sequence[float]) -> float:
    return sum(
        rrf_term(rank, k=k, weight=w) for rank, w in zip(slots, weights, strict=True) if rank
    )


def _order(item: Fused[K]) -> tuple[float, int, int]:
    best, first_list = min(
        (rank, index) for index, rank in enumerate(item.ranks) if rank is not None
    )
    return (-item.score, best, first_list)
