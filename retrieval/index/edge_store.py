"""The embedded backend: a qdrant-edge shard in process (HNSW, sparse vectors with IDF, WAL).

An index directory holds the shard under ``shard/`` and what the index was built with in
``index.json``; one process at a time may hold it open.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, cast

import numpy as np

from filingqa.retrieval.index.lexical import SparseVector
from filingqa.retrieval.index.point_store import (
    DENSE,
    INTEGER_FIELDS,
    KEYWORD_FIELDS,
    SPARSE,
    Condition,
    IndexLockedError,
    IndexMeta,
    Ranked,
    StoredPoint,
)

META_FILE = "index.json"
SHARD_DIR = "shard"


class EdgeStore:
    """qdrant-edge: a Qdrant shard in process, under ``<dir>/shard`` (+ ``<dir>/index.json``)."""

    def __init__(self, shard: Any, directory: Path) -> None:
        self._shard = shard
        self._directory = directory

    @classmethod
    def open(cls, directory: Path, wanted: IndexMeta) -> EdgeStore:
        """Open the shard under ``directory``, creating it (built as ``wanted``) if new.

        Raises:
            IndexLockedError: another process holds the directory.
        """
        import qdrant_edge as qe

        directory.mkdir(parents=True, exist_ok=True)
        meta = directory / META_FILE
        if not meta.exists():
            staged = meta.with_suffix(".tmp")
            staged.write_text(json.dumps(wanted, indent=2))
            staged.replace(meta)
        stored = json.loads(meta.read_text())
        config = qe.EdgeConfig(
            vectors={DENSE: qe.EdgeVectorParams(size=stored["dim"], distance=qe.Distance.Cosine)},
            sparse_vectors={SPARSE: qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf)},
        )
        path = directory / SHARD_DIR
        if (path / "edge_config.json").exists():
            return cls(_load_shard(path, config, directory), directory)
        shard = qe.EdgeShard.create(str(path), config)
        for name in KEYWORD_FIELDS:
            shard.update(qe.UpdateOperation.create_field_index(name, qe.PayloadSchemaType.Keyword))
        for name in INTEGER_FIELDS:
            shard.update(qe.UpdateOperation.create_field_index(name, qe.PayloadSchemaType.Integer))
        return cls(shard, directory)

    def meta(self) -> IndexMeta | None:
        """What the index was built with (``index.json``)."""
        return json.loads((self._directory / META_FILE).read_text())

    def content_shas(self, ids: list[str]) -> dict[str, str]:
        """The stored content hash of each of ``ids`` that is stored."""
        records = self._shard.retrieve(ids, with_payload=["content_sha"], with_vector=False)
        return {str(r.id): r.payload["content_sha"] for r in records if r.payload}

    def upsert(self, points: list[StoredPoint]) -> None:
        """Write ``points``, replacing any with the same id."""
        import qdrant_edge as qe

        self._shard.update(
            qe.UpdateOperation.upsert_points(
                [
                    qe.Point(
                        p.id,
                        {
                            DENSE: p.dense.tolist(),
                            SPARSE: qe.SparseVector(list(p.sparse.indices), list(p.sparse.values)),
                        },
                        p.payload,
                    )
                    for p in points
                ]
            )
        )

    def query(
        self,
        dense: np.ndarray | None,
        sparse: SparseVector | None,
        conditions: list[Condition],
        limit: int,
    ) -> dict[str, Ranked]:
        """The ``limit`` best points of each vector given, by vector name (one batch)."""
        import qdrant_edge as qe

        flt = _filter(conditions)
        requests: dict[str, Any] = {}
        if dense is not None:
            requests[DENSE] = qe.Query.Nearest(dense.tolist(), using=DENSE)
        if sparse is not None:
            vector = qe.SparseVector(list(sparse.indices), list(sparse.values))
            requests[SPARSE] = qe.Query.Nearest(vector, using=SPARSE)
        batch = qe.QueryBatchRequest(
            [qe.QueryRequest(limit=limit, query=q, filter=flt) for q in requests.values()]
        )
        results = self._shard.query_batch(batch)
        return {
            name: [(str(p.id), p.score) for p in points]
            for name, points in zip(requests, results, strict=True)
        }

    def payloads(self, ids: list[str], fields: list[str] | None) -> dict[str, dict[str, Any]]:
        """The payloads (only ``fields``; None: all) of the stored points among ``ids``."""
        records = self._shard.retrieve(ids, with_payload=fields or True, with_vector=False)
        return {str(r.id): r.payload for r in records}

    def delete(self, conditions: list[Condition]) -> None:
        """Remove the points that meet ``conditions``."""
        import qdrant_edge as qe

        if not conditions:
            raise ValueError("delete needs a condition (it would remove every point)")
        self._shard.update(qe.UpdateOperation.delete_points_by_filter(_filter(conditions)))

    def set_meta(self, meta: IndexMeta) -> None:
        """Rewrite ``index.json`` (atomically)."""
        path = self._directory / META_FILE
        staged = path.with_suffix(".tmp")
        staged.write_text(json.dumps(meta, indent=2))
        staged.replace(path)

    def count(self, conditions: list[Condition]) -> int:
        """How many points meet ``conditions`` (exact)."""
        import qdrant_edge as qe

        return self._shard.count(qe.CountRequest(filter=_filter(conditions), exact=True))

    def without(self, key: str, limit: int) -> dict[str, dict[str, Any]]:
        """Up to ``limit`` points whose payload lacks ``key``, with their text."""
        import qdrant_edge as qe

        request = qe.ScrollRequest(
            limit=limit,
            filter=qe.Filter(must=[qe.IsEmptyCondition(key)]),
            with_payload=["text"],
            with_vector=False,
        )
        records, _ = self._shard.scroll(request)
        return {str(r.id): r.payload for r in records}

    def set_payloads(self, payloads: dict[str, dict[str, Any]]) -> None:
        """Merge each payload into its point's."""
        import qdrant_edge as qe

        for pid, payload in payloads.items():
            self._shard.update(qe.UpdateOperation.set_payload([pid], payload))

    def commit(self) -> None:
        """Flush the WAL and optimize the segments (the HNSW build)."""
        self._shard.flush()
        self._shard.optimize()

    def close(self) -> None:
        """Release the shard and its directory lock."""
        self._shard.close()


def _load_shard(path: Path, config: Any, directory: Path) -> Any:
    import qdrant_edge as qe

    try:
        return qe.EdgeShard.load(str(path), config)
    except Exception as error:
        if "WouldBlock" in str(error):
            raise IndexLockedError(f"index {directory} is open elsewhere") from error
        raise


def _filter(conditions: list[Condition]) -> Any:
    """A qdrant-edge filter that ANDs ``conditions`` (None: no condition)."""
    import qdrant_edge as qe

    if not conditions:
        return None
    return qe.Filter(
        must=[
            qe.FieldCondition(
                key,
                match=qe.MatchValue(values[0]) if len(values) == 1 else qe.MatchAny(_any(values)),
            )
            for key, values in conditions
        ]
    )


def _any(values: tuple[str | int, ...]) -> list[str] | list[int]:
    # One normaliser per payload key (SearchFilters.conditions): all str or all int.
    return cast("list[str] | list[int]", list(values))
