"""The passage index: dense + BM25 sparse vectors in Qdrant, fused by RRF, with filters.

Embedded by default (``qdrant-edge``: Qdrant's engine in process, HNSW, WAL) under a
directory; given a URL, the same code drives a Qdrant server or cluster through
``qdrant-client`` (``":memory:"`` gives qdrant-client's in-process mode, for tests).

Adding is idempotent and resumable: a point's id is ``uuid5(passage id)`` and its payload
carries a hash of its content, so a re-run (after a kill, or over a grown corpus) skips
what is stored unchanged and never duplicates. The store itself is the checkpoint: every
batch is durable (WAL) once written; embeddings are cached on disk besides. The payload also
holds the passage's :mod:`~filingqa.retrieval.signals` (derived from its text, so outside
the hash); :meth:`PassageIndex.add_signals` fills them in where an older build left none.

A search ranks points first (:meth:`PassageIndex.match`: ids, pages and scores only) and
reads whole passages only for the matches kept (:meth:`PassageIndex.read`). A point's page
is read once per process and remembered (its id derives from the passage id, which names
the document and page), so ranking a whole filing again costs no payload reads.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import re
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal, Protocol

import numpy as np
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, InstanceOf
from tqdm import tqdm

from filingqa.retrieval.documents import DocType, Document, Passage, PassageKind
from filingqa.retrieval.embedder import Embedder
from filingqa.retrieval.fusion import DEFAULT_K, reciprocal_rank_fusion
from filingqa.retrieval.lexical import BM25Encoder, SparseVector
from filingqa.retrieval.metadata import normalise_company
from filingqa.retrieval.signals import PAYLOAD_KEY as SIGNALS
from filingqa.retrieval.signals import PassageSignals, from_payload, passage_signals, to_payload

SearchMode = Literal["dense", "sparse", "hybrid"]
Engine = Literal["edge", "local"]

INDEX_FORMAT = 1
META_FILE = "index.json"
SHARD_DIR = "shard"
DENSE = "dense"
SPARSE = "sparse"
HYBRID_CANDIDATES = 50
_NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "filingqa/passage")
_PASSAGE_FIELDS = tuple(Passage.model_fields)
_KEYWORD_FIELDS = ("doc_id", "company_key", "doc_type", "item_key", "kind")
_INTEGER_FIELDS = ("fiscal_year", "fiscal_quarter")
_PAGE_FIELDS = ["doc_id", "page"]

Condition = tuple[str, tuple[str | int, ...]]


class IndexMismatchError(RuntimeError):
    """The index on disk was built with another embedding model or BM25 setting."""


class IndexLockedError(RuntimeError):
    """Another process (or an unclosed index) holds the embedded index directory."""


def point_id(passage_id: str) -> str:
    """The deterministic Qdrant point id of a passage."""
    return str(uuid.uuid5(_NAMESPACE, passage_id))


def item_key(item: str) -> str:
    """A 10-K/10-Q Item for matching: ``"Item 7A."``, ``"ITEM 7A"`` and ``"7a"`` -> ``"7a"``."""
    lowered = item.casefold()
    found = re.search(r"item\s*(\d+[a-z]?)\b", lowered) or re.fullmatch(
        r"\s*(\d+[a-z]?)\W*", lowered
    )
    return found.group(1) if found else " ".join(lowered.split())


def _as_list(value: object) -> object:
    if value is None or isinstance(value, list | tuple):
        return value
    return [value]


_OneOrMore = (BeforeValidator(_as_list), Field(min_length=1))
_Strings = Annotated[list[str] | None, *_OneOrMore]
_Ints = Annotated[list[int] | None, *_OneOrMore]
_DocTypes = Annotated[list[DocType] | None, *_OneOrMore]
_Kinds = Annotated[list[PassageKind] | None, *_OneOrMore]


class SearchFilters(BaseModel):
    """Payload filters; each field takes one value or a non-empty list (any of); fields AND.

    ``company`` matches the normalised company name or the ticker; ``item`` matches
    ``"Item 7"``, ``"item 7"`` or ``"7"`` alike.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    company: _Strings = None
    doc_ids: _Strings = None
    doc_type: _DocTypes = None
    fiscal_year: _Ints = None
    fiscal_quarter: _Ints = None
    item: _Strings = None
    kind: _Kinds = None

    def conditions(self) -> list[Condition]:
        """``(payload key, accepted normalised values)`` pairs, one per field set."""
        fields: list[tuple[str, list[Any] | None, Callable[[Any], str | int]]] = [
            ("company_key", self.company, normalise_company),
            ("doc_id", self.doc_ids, str),
            ("doc_type", self.doc_type, str),
            ("fiscal_year", self.fiscal_year, int),
            ("fiscal_quarter", self.fiscal_quarter, int),
            ("item_key", self.item, item_key),
            ("kind", self.kind, str),
        ]
        return [
            (key, tuple(dict.fromkeys(normalise(v) for v in values)))
            for key, values, normalise in fields
            if values is not None
        ]


@dataclass(frozen=True, slots=True)
class Match:
    """One ranked point, its passage not read yet: its page and what the lists said.

    ``score`` is the RRF score in hybrid mode, else the engine's. Ranks (1-based) and scores
    (cosine, BM25) are the point's in the dense and sparse lists; None when it missed one.
    """

    point: str
    doc_id: str
    page: int
    score: float
    dense_rank: int | None = None
    sparse_rank: int | None = None
    dense_score: float | None = None
    sparse_score: float | None = None


class Hit(BaseModel):
    """One search result: a :class:`Match` with its passage and the passage's signals
    (None: stored by a build before signals were kept)."""

    passage: Passage
    score: float
    dense_rank: int | None = None
    sparse_rank: int | None = None
    dense_score: float | None = None
    sparse_score: float | None = None
    signals: InstanceOf[PassageSignals] | None = None


class AddReport(BaseModel):
    """What :meth:`PassageIndex.add` did: passages written, and skipped as already stored."""

    written: int = 0
    unchanged: int = 0


@dataclass(frozen=True)
class _Point:
    id: str
    dense: np.ndarray
    sparse: SparseVector
    payload: dict[str, Any]


Ranked = list[tuple[str, float]]


class _Store(Protocol):
    """What the index needs from a Qdrant backend."""

    def meta(self) -> dict[str, Any] | None: ...
    def content_shas(self, ids: list[str]) -> dict[str, str]: ...
    def upsert(self, points: list[_Point]) -> None: ...
    def query(
        self,
        dense: np.ndarray | None,
        sparse: SparseVector | None,
        conditions: list[Condition],
        limit: int,
    ) -> dict[str, Ranked]: ...
    def payloads(self, ids: list[str], fields: list[str] | None) -> dict[str, dict[str, Any]]: ...
    def count(self, conditions: list[Condition]) -> int: ...
    def without(self, key: str, limit: int) -> dict[str, dict[str, Any]]: ...
    def set_payloads(self, payloads: dict[str, dict[str, Any]]) -> None: ...
    def commit(self) -> None: ...
    def close(self) -> None: ...


class PassageIndex:
    """Hybrid (dense + BM25) passage search over a Qdrant store. Use :meth:`open`."""

    def __init__(
        self, store: _Store, embedder: Embedder, lexical: BM25Encoder, *, rrf_k: int = DEFAULT_K
    ) -> None:
        self._store = store
        self.embedder = embedder
        self.lexical = lexical
        self.rrf_k = rrf_k
        self._page_of: dict[str, tuple[str, int]] = {}

    @classmethod
    def open(
        cls,
        location: str | Path,
        embedder: Embedder | None = None,
        *,
        engine: Engine = "edge",
        collection: str = "filingqa",
        api_key: str | None = None,
        lexical: BM25Encoder | None = None,
    ) -> PassageIndex:
        """Open (creating if new) the index at ``location``.

        ``location`` is a directory (embedded: ``engine="edge"``, Qdrant's engine in process;
        ``"local"``, qdrant-client's sqlite mode), an ``http(s)://`` Qdrant URL, or
        ``":memory:"``. ``embedder`` defaults to the offline MiniLM; ``lexical`` (BM25
        parameters) applies when creating and must match an existing index.

        Raises:
            IndexMismatchError: the index was built with another model or BM25 setting.
        """
        embedder = embedder or Embedder.load()
        wanted = {
            "format": INDEX_FORMAT,
            "embedder": embedder.name,
            "dim": embedder.dim,
            "bm25": (lexical or BM25Encoder()).model_dump(),
        }
        text = str(location)
        if text == ":memory:" or re.match(r"https?://", text):
            store: _Store = _ClientStore.open(text, collection, wanted, api_key=api_key)
        elif engine == "edge":
            store = _EdgeStore.open(Path(location), wanted)
        else:
            store = _ClientStore.open(str(Path(location)), collection, wanted)
        try:
            stored = _check_meta(store.meta() or wanted, wanted, explicit_bm25=lexical is not None)
        except IndexMismatchError:
            store.close()
            raise
        return cls(store, embedder, BM25Encoder(**stored["bm25"]))

    def add(
        self,
        passages: Iterable[Passage],
        documents: Iterable[Document],
        *,
        batch_size: int = 128,
        progress: bool = True,
    ) -> AddReport:
        """Index ``passages`` (their documents supply the metadata), batch by batch.

        Idempotent: passages stored with the same content are skipped, changed ones
        replaced. Each written batch is durable, so a killed run re-run finishes the job.

        Raises:
            ValueError: a passage's ``doc_id`` is not among ``documents``.
        """
        by_id = {document.doc_id: document for document in documents}
        total = len(passages) if isinstance(passages, Sequence) else None
        report = AddReport()
        with tqdm(total=total, desc="index", unit="passage", disable=not progress) as bar:
            for batch in _batched(passages, batch_size):
                written = self._add_batch(batch, by_id)
                report.written += written
                report.unchanged += len(batch) - written
                bar.update(len(batch))
            bar.set_postfix_str("building HNSW")
            self._store.commit()
        return report

    def search(
        self,
        query: str,
        k: int = 10,
        *,
        filters: SearchFilters | None = None,
        mode: SearchMode = "hybrid",
    ) -> list[Hit]:
        """The ``k`` best passages for ``query``, best first."""
        return list(self.read(self.match(query, k, filters=filters, mode=mode)).values())

    def match(
        self,
        query: str,
        k: int = 10,
        *,
        filters: SearchFilters | None = None,
        mode: SearchMode = "hybrid",
    ) -> list[Match]:
        """The ``k`` best points for ``query``, best first, with their pages but not their
        passages (read those for the matches kept with :meth:`read`)."""
        if k < 1:
            raise ValueError(f"k must be >= 1, got {k}")
        conditions = filters.conditions() if filters else []
        dense = self.embedder.embed_query(query) if mode != SPARSE else None
        sparse = self.lexical.encode_query(query) if mode != DENSE else None
        if sparse is not None and not sparse.indices:
            sparse = None
        if dense is None and sparse is None:
            return []
        limit = max(k, HYBRID_CANDIDATES) if mode == "hybrid" else k
        ranked = self._store.query(dense, sparse, conditions, limit)
        if mode == "hybrid":
            lists = [[pid for pid, _ in ranked.get(name, [])] for name in (DENSE, SPARSE)]
            fused = reciprocal_rank_fusion(lists, k=self.rrf_k)[:k]
            scored = [(f.key, f.score, f.ranks[0], f.ranks[1]) for f in fused]
        else:
            scored = [
                (pid, score, rank if mode == DENSE else None, rank if mode == SPARSE else None)
                for rank, (pid, score) in enumerate(ranked[mode][:k], start=1)
            ]
        list_scores = {name: dict(ranked.get(name, [])) for name in (DENSE, SPARSE)}
        pages = self._pages([pid for pid, *_ in scored])
        return [
            Match(
                pid,
                *pages[pid],
                score,
                dr,
                sr,
                list_scores[DENSE].get(pid),
                list_scores[SPARSE].get(pid),
            )
            for pid, score, dr, sr in scored
            if pid in pages
        ]

    def _pages(self, ids: list[str]) -> dict[str, tuple[str, int]]:
        """``(doc_id, page)`` of the stored points among ``ids``, read once per point."""
        missing = [pid for pid in ids if pid not in self._page_of]
        if missing:
            for pid, payload in self._store.payloads(missing, _PAGE_FIELDS).items():
                self._page_of[pid] = (payload["doc_id"], payload["page"])
        return {pid: self._page_of[pid] for pid in ids if pid in self._page_of}

    def read(self, matches: Sequence[Match]) -> dict[str, Hit]:
        """``matches`` with their passages and signals read, by point id, in order (a point
        deleted since it matched is left out)."""
        payloads = self._store.payloads([m.point for m in matches], None)
        return {
            m.point: Hit(
                passage=_passage(payloads[m.point]),
                score=m.score,
                dense_rank=m.dense_rank,
                sparse_rank=m.sparse_rank,
                dense_score=m.dense_score,
                sparse_score=m.sparse_score,
                signals=from_payload(payloads[m.point].get(SIGNALS)),
            )
            for m in matches
            if m.point in payloads
        }

    def count(self, filters: SearchFilters | None = None) -> int:
        """How many passages are stored (matching ``filters``)."""
        return self._store.count(filters.conditions() if filters else [])

    def add_signals(self, *, batch_size: int = 256, progress: bool = True) -> int:
        """Store the signals of every passage stored without them; return how many.

        Resumable: each batch is written before the next is read. The rewritten points are
        optimized again at the end (their segments re-indexed, so search is as it was).
        """
        done = 0
        with tqdm(desc="signals", unit="passage", disable=not progress) as bar:
            while batch := self._store.without(SIGNALS, batch_size):
                self._store.set_payloads(
                    {pid: _signals_payload(p["text"]) for pid, p in batch.items()}
                )
                done += len(batch)
                bar.update(len(batch))
            if done:
                bar.set_postfix_str("building HNSW")
                self._store.commit()
        return done

    def close(self) -> None:
        """Flush and release the store (and its directory lock)."""
        self._store.close()

    def __enter__(self) -> PassageIndex:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _add_batch(self, batch: list[Passage], documents: dict[str, Document]) -> int:
        payloads = {point_id(p.id): _payload(p, _document_of(p, documents)) for p in batch}
        stored = self._store.content_shas(list(payloads))
        todo = {pid: pl for pid, pl in payloads.items() if stored.get(pid) != pl["content_sha"]}
        if not todo:
            return 0
        texts = [payload["text"] for payload in todo.values()]
        vectors = self.embedder.embed_passages(texts)
        points = [
            _Point(pid, vector, self.lexical.encode_document(payload["text"]), payload)
            for (pid, payload), vector in zip(todo.items(), vectors, strict=True)
        ]
        self._store.upsert(points)
        return len(points)


def _batched(items: Iterable[Passage], size: int) -> Iterator[list[Passage]]:
    if size < 1:
        raise ValueError(f"batch_size must be >= 1, got {size}")
    iterator = iter(items)
    while batch := list(itertools.islice(iterator, size)):
        yield batch


def _document_of(passage: Passage, documents: dict[str, Document]) -> Document:
    try:
        return documents[passage.doc_id]
    except KeyError:
        raise ValueError(f"passage {passage.id}: document {passage.doc_id!r} not given") from None


def _payload(passage: Passage, document: Document) -> dict[str, Any]:
    payload = passage.model_dump(mode="json")
    payload.update(
        company=document.company,
        ticker=document.ticker,
        doc_type=document.doc_type,
        fiscal_year=document.fiscal_year,
        fiscal_quarter=document.fiscal_quarter,
        period_end=document.period_end.isoformat() if document.period_end else None,
        company_key=sorted(
            {normalise_company(name) for name in (document.company, document.ticker) if name}
        ),
        item_key=item_key(passage.item) if passage.item else None,
    )
    canonical = json.dumps(payload, sort_keys=True, ensure_ascii=False).encode()
    payload["content_sha"] = hashlib.sha256(canonical).hexdigest()
    return payload | _signals_payload(passage.text)


def _signals_payload(text: str) -> dict[str, Any]:
    return {SIGNALS: to_payload(passage_signals(text))}


def _passage(payload: dict[str, Any]) -> Passage:
    return Passage.model_validate({name: payload.get(name) for name in _PASSAGE_FIELDS})


def _check_meta(
    stored: dict[str, Any], wanted: dict[str, Any], *, explicit_bm25: bool
) -> dict[str, Any]:
    pairs = [(key, stored.get(key), wanted[key]) for key in ("format", "embedder", "dim")]
    stored_bm25 = stored.get("bm25") or {}
    pairs.append(
        ("bm25", stored_bm25, wanted["bm25"])
        if explicit_bm25
        else (
            "bm25.tokenizer_version",
            stored_bm25.get("tokenizer_version"),
            wanted["bm25"]["tokenizer_version"],
        )
    )
    for key, have, want in pairs:
        if have != want:
            raise IndexMismatchError(
                f"index has {key}={have!r}, asked for {want!r}: "
                "open it with the same setting or index into a new location"
            )
    return stored


class _EdgeStore:
    """qdrant-edge: a Qdrant shard in process, under ``<dir>/shard`` (+ ``<dir>/index.json``)."""

    def __init__(self, shard: Any, directory: Path) -> None:
        self._shard = shard
        self._directory = directory

    @classmethod
    def open(cls, directory: Path, wanted: dict[str, Any]) -> _EdgeStore:
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
            try:
                shard = qe.EdgeShard.load(str(path), config)
            except Exception as error:
                if "WouldBlock" in str(error):
                    raise IndexLockedError(f"index {directory} is open elsewhere") from error
                raise
        else:
            shard = qe.EdgeShard.create(str(path), config)
            for name in _KEYWORD_FIELDS:
                shard.update(
                    qe.UpdateOperation.create_field_index(name, qe.PayloadSchemaType.Keyword)
                )
            for name in _INTEGER_FIELDS:
                shard.update(
                    qe.UpdateOperation.create_field_index(name, qe.PayloadSchemaType.Integer)
                )
        return cls(shard, directory)

    def meta(self) -> dict[str, Any] | None:
        return json.loads((self._directory / META_FILE).read_text())

    def content_shas(self, ids: list[str]) -> dict[str, str]:
        records = self._shard.retrieve(ids, with_payload=["content_sha"], with_vector=False)
        return {str(r.id): r.payload["content_sha"] for r in records if r.payload}

    def upsert(self, points: list[_Point]) -> None:
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
        import qdrant_edge as qe

        flt = self._filter(conditions)
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
        records = self._shard.retrieve(ids, with_payload=fields or True, with_vector=False)
        return {str(r.id): r.payload for r in records}

    def count(self, conditions: list[Condition]) -> int:
        import qdrant_edge as qe

        return self._shard.count(qe.CountRequest(filter=self._filter(conditions), exact=True))

    def without(self, key: str, limit: int) -> dict[str, dict[str, Any]]:
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
        import qdrant_edge as qe

        for pid, payload in payloads.items():
            self._shard.update(qe.UpdateOperation.set_payload([pid], payload))

    def commit(self) -> None:
        self._shard.flush()
        self._shard.optimize()

    def close(self) -> None:
        self._shard.close()

    @staticmethod
    def _filter(conditions: list[Condition]) -> Any:
        import qdrant_edge as qe

        if not conditions:
            return None
        return qe.Filter(
            must=[
                qe.FieldCondition(
                    key,
                    match=qe.MatchValue(values[0])
                    if len(values) == 1
                    else qe.MatchAny(list(values)),
                )
                for key, values in conditions
            ]
        )


class _ClientStore:
    """qdrant-client: a Qdrant server/cluster by URL, or its local (sqlite / memory) mode."""

    def __init__(self, client: Any, collection: str) -> None:
        self._client = client
        self._collection = collection

    @classmethod
    def open(
        cls, location: str, collection: str, wanted: dict[str, Any], *, api_key: str | None = None
    ) -> _ClientStore:
        from qdrant_client import QdrantClient, models

        remote = location.startswith(("http://", "https://"))
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
            if remote:  # the local mode has no payload indexes (it scans)
                for name in _KEYWORD_FIELDS:
                    client.create_payload_index(collection, name, models.PayloadSchemaType.KEYWORD)
                for name in _INTEGER_FIELDS:
                    client.create_payload_index(collection, name, models.PayloadSchemaType.INTEGER)
        return cls(client, collection)

    def meta(self) -> dict[str, Any] | None:
        return self._client.get_collection(self._collection).config.metadata

    def content_shas(self, ids: list[str]) -> dict[str, str]:
        records = self._client.retrieve(
            self._collection, ids, with_payload=["content_sha"], with_vectors=False
        )
        return {str(r.id): r.payload["content_sha"] for r in records if r.payload}

    def upsert(self, points: list[_Point]) -> None:
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
        from qdrant_client import models

        flt = self._filter(conditions)
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
        records = self._client.retrieve(self._collection, ids, with_payload=fields or True)
        return {str(r.id): r.payload for r in records}

    def count(self, conditions: list[Condition]) -> int:
        return self._client.count(
            self._collection, count_filter=self._filter(conditions), exact=True
        ).count

    def without(self, key: str, limit: int) -> dict[str, dict[str, Any]]:
        from qdrant_client import models

        empty = models.Filter(must=[models.IsEmptyCondition(is_empty=models.PayloadField(key=key))])
        records, _ = self._client.scroll(
            self._collection, scroll_filter=empty, limit=limit, with_payload=["text"]
        )
        return {str(r.id): r.payload for r in records}

    def set_payloads(self, payloads: dict[str, dict[str, Any]]) -> None:
        for pid, payload in payloads.items():
            self._client.set_payload(self._collection, payload, points=[pid], wait=True)

    def commit(self) -> None:
        """Nothing to do: the server indexes in the background, local mode scans."""

    def close(self) -> None:
        self._client.close()

    @staticmethod
    def _filter(conditions: list[Condition]) -> Any:
        from qdrant_client import models

        if not conditions:
            return None
        return models.Filter(
            must=[
                models.FieldCondition(
                    key=key,
                    match=models.MatchValue(value=values[0])
                    if len(values) == 1
                    else models.MatchAny(any=list(values)),
                )
                for key, values in conditions
            ]
        )
