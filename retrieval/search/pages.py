"""Pages as the unit of evidence: rank pages by their passages, spread a ranking over pages.

A filing page holds a few passages (a table in row groups, a paragraph in windows); the
answer is usually on one page. :func:`page_order` ranks the pages of a hit list by
reciprocal rank fusion of their best dense and best BM25 passage, and orders the passages
page by page; :func:`spread_pages` lets the best passage of each of a filing's top pages
come before a page's second passage, so the first few results cover several pages (and a
filing of one page, say a FinQA report page, keeps its passages together).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Protocol, TypeVar

from filingqa.retrieval.index.fusion import reciprocal_rank_fusion

T = TypeVar("T")
PageKey = tuple[str, int]


class OnPage(Protocol):
    """Anything on a filing page: a passage, or a search match (``index.Match``)."""

    @property
    def doc_id(self) -> str: ...
    @property
    def page(self) -> int: ...


class ScoredMatch(OnPage, Protocol):
    """What :func:`page_order` reads from a match (an index ``Match``)."""

    @property
    def dense_score(self) -> float | None: ...
    @property
    def sparse_score(self) -> float | None: ...


def page_key(item: OnPage) -> PageKey:
    """The page a passage (or match) is on: ``(doc_id, page)``."""
    return item.doc_id, item.page


OnPageT = TypeVar("OnPageT", bound=OnPage)


def page_order(hits: Sequence[ScoredMatch]) -> list[PageKey]:
    """The pages of ``hits``, best first: RRF of the pages ranked by their best cosine and
    by their best BM25 score (a page no passage of which matched a query term is last)."""
    dense: dict[PageKey, float] = {}
    sparse: dict[PageKey, float] = {}
    for hit in hits:
        key = page_key(hit)
        dense[key] = max(dense.get(key, -1.0), hit.dense_score or -1.0)
        if hit.sparse_score:
            sparse[key] = max(sparse.get(key, 0.0), hit.sparse_score)
    by_dense = sorted(dense, key=lambda key: -dense[key])
    by_sparse = sorted(sparse, key=lambda key: -sparse[key])
    return [fused.key for fused in reciprocal_rank_fusion([by_dense, by_sparse])]


def by_page(hits: Sequence[OnPageT], pages: Sequence[PageKey]) -> list[OnPageT]:
    """``hits`` page by page in the order of ``pages`` (each page's in their own order;
    hits on pages not listed last, in order)."""
    rank = {key: i for i, key in enumerate(pages)}
    return sorted(hits, key=lambda hit: rank.get(page_key(hit), len(rank)))


def spread_pages(
    ranked: Sequence[T], page: Callable[[T], PageKey], window: int, pages: int
) -> list[T]:
    """``ranked`` with its first ``window`` items spread over the pages of each filing: a
    filing keeps the positions its items hold, but fills them round-robin over its first
    ``pages`` pages (each page's best item, then each one's second best, ...; items of its
    later pages after them). A one-page filing keeps its order; the rest is unchanged."""
    head, tail = list(ranked[:window]), list(ranked[window:])
    slots = [page(item)[0] for item in head]
    spread = {
        doc: iter(round_robin([item for item in head if page(item)[0] == doc], page, pages))
        for doc in dict.fromkeys(slots)
    }
    return [next(spread[doc]) for doc in slots] + tail


def round_robin(ranked: Sequence[T], key: Callable[[T], Hashable], groups: int) -> list[T]:
    """``ranked`` taken round-robin over its first ``groups`` distinct keys (the best item
    of each key in order, then each key's second best, ...), then the items of later keys."""
    order: dict[Hashable, list[T]] = {}
    for item in ranked:
        order.setdefault(key(item), []).append(item)
    top = list(order)[:groups]
    out: list[T] = []
    for depth in range(max((len(order[g]) for g in top), default=0)):
        out += [order[g][depth] for g in top if depth < len(order[g])]
    later = set(order) - set(top)
    return out + [item for item in ranked if key(item) in later]
