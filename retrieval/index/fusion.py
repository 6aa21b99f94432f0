"""Reciprocal-rank fusion (RRF) of ranked lists: pure, weighted, deterministic."""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from operator import itemgetter
from typing import Generic, NamedTuple, TypeVar

K = TypeVar("K", bound=Hashable)

DEFAULT_K = 60


class Fused(NamedTuple, Generic[K]):
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
            slots = ranks.get(key)
            if slots is None:
                slots = ranks[key] = [None] * len(rankings)
            if slots[list_index] is None:
                slots[list_index] = position
    order: list[tuple[float, int, int, K, tuple[int | None, ...]]] = []
    for key, slots in ranks.items():
        score, best, first_list = 0.0, math.inf, 0
        for list_index, rank in enumerate(slots):
            if rank is not None:
                score += weights[list_index] / (k + rank)
                if rank < best:
                    best, first_list = rank, list_index
        order.append((-score, int(best), first_list, key, tuple(slots)))
    order.sort(key=itemgetter(0, 1, 2))
    return [Fused(key, -neg, slots) for neg, _, _, key, slots in order]
