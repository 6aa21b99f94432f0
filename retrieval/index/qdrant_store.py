"""The qdrant-client backend: a Qdrant server or cluster by URL, or the client's local mode
(sqlite under a directory, or ``":memory:"``, for tests).

What the index was built with is kept as the collection's metadata. Only a server gets
payload indexes: the local mode scans.
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np

from filingqa.retrieval.index.lexical import SparseVector
from filingqa.retrieval.index.point_store import (
    DENSE,
    INTEGER_FIELDS,
    KEYWORD_FIELDS,
    SPARSE,
    Condition,
    IndexMeta,
    Ranked,
    StoredPoint,
)

REMOTE_PREFIXES = ("http://", "https://")


class QdrantStore:
    """One collection of a Qdrant server/cluster, or of qdrant-client's local mode."""

    def __init__(self, client: Any, collection: str) -> None:
        self._client = client
        self._collection = collection

    @classmethod
    def open(
        cls, location: str, collection: str, wanted: IndexMeta, *, api_key: str | None = None
    ) -> QdrantStore:
        """Open ``collection`` at ``location`` (a URL, a directory or ``":memory:"``),
        creating it (built as ``wanted``) if new."""
        from qdrant_client import QdrantClient, models

        remote = location.startswith(REMOTE_PREFIXES)
        if remote:
            client = QdrantClient(url=location, api_key=api_key)
        elif location == ":memory:":
            client = QdrantClient(location=location)
        else:
            client = QdrantClient(path=location)
        if not client.collection_exists(collection):
            client.create_collection(
                collection,
                vectors_config={
                    DENSE: models.VectorParams(size=wanted["dim"], distance=models.Distance.COSINE)
                },
                sparse_vectors_config={
                    SPARSE: models.SparseVectorParams(modifier=models.Modifier.IDF)
                },
                metadata=wanted,
            )
            if remote:
                _create_payload_indexes(client, collection)
        return cls(client, collection)

    def meta(self) -> IndexMeta | None:
        """What the index was built with (the collection's metadata)."""
        return self._client.get_collection(self._collection).config.metadata

    def content_shas(self, ids: list[str]) -> dict[str, str]:
        """The stored content hash of each of ``ids`` that is stored."""
        records = self._client.retrieve(
            self._collection, ids, with_payload=["content_sha"], with_vectors=False
        )
        return {str(r.id): r.payload["content_sha"] for r in records if r.payload}

    def upsert(self, points: list[StoredPoint]) -> None:
        """Write ``points``, replacing any with the same id (waits for the write)."""
        from qdrant_client import models

        self._client.upsert(
            self._collection,
            points=[
                models.PointStruct(
                    id=p.id,
                    vector={
                        DENSE: p.dense.tolist(),
                        SPARSE: models.SparseVector(
                            indices=list(p.sparse.indices), values=list(p.sparse.values)
                        ),
                    },
                    payload=p.payload,
                )
                for p in points
            ],
            wait=True,
        )

    def query(
        self,
        dense: np.ndarray | None,
        sparse: SparseVector | None,
        conditions: list[Condition],
        limit: int,
    ) -> dict[str, Ranked]:
        """The ``limit`` best points of each vector given, by vector name (one batch)."""
        from qdrant_client import models

        flt = _filter(conditions)
        queries: dict[str, Any] = {}
        if dense is not None:
            queries[DENSE] = dense.tolist()
        if sparse is not None:
            queries[SPARSE] = models.SparseVector(
                indices=list(sparse.indices), values=list(sparse.values)
            )
        responses = self._client.query_batch_points(
            self._collection,
            requests=[
                models.QueryRequest(query=q, using=name, filter=flt, limit=limit)
                for name, q in queries.items()
            ],
        )
        return {
            name: [(str(p.id), p.score) for p in response.points]
            for name, response in zip(queries, responses, strict=True)
        }

    def payloads(self, ids: list[str], fields: list[str] | None) -> dict[str, dict[str, Any]]:
        """The payloads (only ``fields``; None: all) of the stored points among ``ids``."""
        records = self._client.retrieve(self._collection, ids, with_payload=fields or True)
        return {str(r.id): r.payload for r in records}

    def delete(self, conditions: list[Condition]) -> None:
        """Remove the points that meet ``conditions`` (waits for the write)."""
        from qdrant_client import models

        if not conditions:
            raise ValueError("delete needs a condition (it would remove every point)")
        selector = models.FilterSelector(filter=_filter(conditions))
        self._client.delete(self._collection, points_selector=selector, wait=True)

    def set_meta(self, meta: IndexMeta) -> None:
        """Replace the collection's metadata."""
        self._client.update_collection(self._collection, metadata=meta)

    def count(self, conditions: list[Condition]) -> int:
        """How many points meet ``conditions`` (exact)."""
        return self._client.count(
            self._collection, count_filter=_filter(conditions), exact=True
        ).count

    def without(self, key: str, limit: int) -> dict[str, dict[str, Any]]:
        """Up to ``limit`` points whose payload lacks ``key``, with their text."""
        from qdrant_client import models

        empty = models.Filter(must=[models.IsEmptyCondition(is_empty=models.PayloadField(key=key))])
        records, _ = self._client.scroll(
            self._collection, scroll_filter=empty, limit=limit, with_payload=["text"]
        )
        return {str(r.id): r.payload for r in records}

    def set_payloads(self, payloads: dict[str, dict[str, Any]]) -> None:
        """Merge each payload into its point's (waits for each write)."""
        for pid, payload in payloads.items():
            self._client.set_payload(self._collection, payload, points=[pid], wait=True)

    def commit(self) -> None:
        """Nothing to do: a server indexes in the background, the local mode scans."""

    def close(self) -> None:
        """Close the client."""
        self._client.close()


def _create_payload_indexes(client: Any, collection: str) -> None:
    from qdrant_client import models

    for name in KEYWORD_FIELDS:
        client.create_payload_index(collection, name, models.PayloadSchemaType.KEYWORD)
    for name in INTEGER_FIELDS:
        client.create_payload_index(collection, name, models.PayloadSchemaType.INTEGER)


def _filter(conditions: list[Condition]) -> Any:
    """A qdrant-client filter that ANDs ``conditions`` (None: no condition)."""
    from qdrant_client import models

    if not conditions:
        return None
    return models.Filter(
        must=[
            models.FieldCondition(
                key=key,
                match=models.MatchValue(value=values[0])
                if len(values) == 1
                else models.MatchAny(any=_any(values)),
            )
            for key, values in conditions
        ]
    )


def _any(values: tuple[str | int, ...]) -> list[str] | list[int]:
    # One normaliser per payload key (SearchFilters.conditions): all str or all int.
    return cast("list[str] | list[int]", list(values))
