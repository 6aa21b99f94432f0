"""The passage index: dense + BM25 sparse vectors in Qdrant, fused by RRF, with filters.

Embedded by default (:mod:`~filingqa.retrieval.index.edge_store`: Qdrant's engine in process,
HNSW, WAL) under a directory; given a URL, the same code drives a Qdrant server or cluster
(:mod:`~filingqa.retrieval.index.qdrant_store`; ``":memory:"`` gives qdrant-client's in-process
mode, for tests). Both are a :class:`~filingqa.retrieval.index.point_store.PointStore`.

Adding is idempotent and resumable: a point's id is ``uuid5(passage id)`` and its payload
carries a hash of its content, so a re-run (after a kill, or over a grown corpus) skips
what is stored unchanged and never duplicates. The store itself is the checkpoint: every
batch is durable (WAL) once written; embeddings are cached on disk besides. The payload also
holds the passage's :mod:`~filingqa.retrieval.index.signals` (derived from its text, so outside
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
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, InstanceOf
from tqdm import tqdm

from filingqa.records.documents import Document, Passage
from filingqa.retrieval.index.edge_store import META_FILE, EdgeStore
from filingqa.retrieval.index.embedder import Embedder
from filingqa.retrieval.index.filters import SearchFilters, item_key
from filingqa.retrieval.index.fusion import DEFAULT_K, reciprocal_rank_fusion
from filingqa.retrieval.index.lexical import BM25Encoder
from filingqa.retrieval.index.passage_recipe import LEGACY, PassageRecipe
from filingqa.retrieval.index.point_store import (
    DENSE,
    SPARSE,
    IndexMeta,
    IndexMismatchError,
    PointStore,
    StoredPoint,
)
from filingqa.retrieval.index.qdrant_store import REMOTE_PREFIXES, QdrantStore
from filingqa.retrieval.index.signals import PAYLOAD_KEY as SIGNALS
from filingqa.retrieval.index.signals import (
    PassageSignals,
    from_payload,
    passage_signals,
    to_payload,
)
from filingqa.retrieval.vocabulary.companies import normalise_company

SearchMode = Literal["dense", "sparse", "hybrid"]
Engine = Literal["edge", "local"]

INDEX_FORMAT = 1
RECIPE_KEY = "passages"
HYBRID_CANDIDATES = 50
_NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "filingqa/passage")
_PASSAGE_FIELDS = tuple(Passage.model_fields)
_PAGE_FIELDS = ["doc_id", "page"]


def point_id(passage_id: str) -> str:
    """The deterministic Qdrant point id of a passage."""
    return str(uuid.uuid5(_NAMESPACE, passage_id))


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
    commit_seconds: float = Field(
        default=0.0, description="the store's commit at the end (embedded: the HNSW build)"
    )


class PassageIndex:
    """Hybrid (dense + BM25) passage search over a :class:`PointStore`. Use :meth:`open`.

    ``recipe`` is how passages added now are cut and embedded (:meth:`Embedder.passage_recipe`
    unless given); ``stored_recipe`` what the index records its passages were made with.
    """

    def __init__(
        self,
        store: PointStore,
        embedder: Embedder,
        lexical: BM25Encoder,
        *,
        rrf_k: int = DEFAULT_K,
        recipe: PassageRecipe | None = None,
    ) -> None:
        self._store = store
        self.embedder = embedder
        self.lexical = lexical
        self.rrf_k = rrf_k
        self.recipe = recipe or embedder.passage_recipe()
        self._page_of: dict[str, tuple[str, int]] = {}

    @property
    def stored_recipe(self) -> dict[str, Any]:
        """How the stored passages were cut and embedded (an index that records nothing:
        bare ~512-estimated-token passages)."""
        return (self._store.meta() or {}).get(RECIPE_KEY) or LEGACY.describe()

    def recuts(self) -> bool:
        """Whether passages added now are cut or embedded otherwise than the stored ones."""
        return self.stored_recipe != self.recipe.describe()

    def embedded_texts(
        self, passages: Sequence[Passage], documents: Sequence[Document | None]
    ) -> list[str]:
        """The text the index embedded for each of ``passages``: under the stored header
        recipe its header line and text (its ``documents`` entry names where it comes from),
        else its text."""
        header = self.stored_recipe.get("header")
        headed = header is not None and header == self.recipe.header
        return [
            self.recipe.embedding_text(passage, document)
            if headed and document is not None
            else passage.text
            for passage, document in zip(passages, documents, strict=True)
        ]

    def record_recipe(self) -> None:
        """Record :attr:`recipe` as the index's (a build that re-cuts it does, first)."""
        meta = self._store.meta() or {}
        self._store.set_meta(meta | {RECIPE_KEY: self.recipe.describe()})

    def delete_document(self, doc_id: str) -> None:
        """Remove every passage of ``doc_id``."""
        self._store.delete(SearchFilters(doc_ids=[doc_id]).conditions())

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
        recipe: PassageRecipe | None = None,
    ) -> PassageIndex:
        """Open (creating if new) the index at ``location``.

        ``location`` is a directory (embedded: ``engine="edge"``, Qdrant's engine in process;
        ``"local"``, qdrant-client's sqlite mode), an ``http(s)://`` Qdrant URL, or
        ``":memory:"``. ``embedder`` defaults to the offline MiniLM; ``lexical`` (BM25
        parameters) applies when creating and must match an existing index; ``recipe``
        (default: the embedder's) is how passages added are cut and embedded, recorded when
        the index is created.

        Raises:
            IndexMismatchError: the index was built with another model or BM25 setting.
            IndexLockedError: another process holds the embedded index directory.
        """
        embedder = embedder or Embedder.load()
        recipe = recipe or embedder.passage_recipe()
        wanted: IndexMeta = {
            "format": INDEX_FORMAT,
            "embedder": embedder.name,
            "dim": embedder.dim,
            "bm25": (lexical or BM25Encoder()).model_dump(),
            RECIPE_KEY: recipe.describe(),
        }
        store = open_store(location, wanted, engine=engine, collection=collection, api_key=api_key)
        try:
            stored = _check_meta(store.meta() or wanted, wanted, explicit_bm25=lexical is not None)
        except IndexMismatchError:
            store.close()
            raise
        return cls(store, embedder, BM25Encoder(**stored["bm25"]), recipe=recipe)

    def add(
        self,
        passages: Iterable[Passage],
        documents: Iterable[Document],
        *,
        batch_size: int = 128,
        progress: bool = True,
        on_batch: Callable[[list[Passage]], None] | None = None,
    ) -> AddReport:
        """Index ``passages`` (their documents supply the metadata), batch by batch;
        ``on_batch`` is told each batch once it is stored.

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
                if on_batch is not None:
                    on_batch(batch)
            bar.set_postfix_str("building HNSW")
            started = time.perf_counter()
            self._store.commit()
            report.commit_seconds = time.perf_counter() - started
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

    def passage(self, passage_id: str) -> Passage | None:
        """The stored passage ``passage_id``, or None."""
        payloads = self._store.payloads([point_id(passage_id)], None)
        payload = payloads.get(point_id(passage_id))
        return _passage(payload) if payload is not None else None

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
        embedded_as = self.recipe.header
        pairs = {point_id(p.id): (p, _document_of(p, documents)) for p in batch}
        payloads = {pid: _payload(p, doc, embedded_as) for pid, (p, doc) in pairs.items()}
        stored = self._store.content_shas(list(payloads))
        todo = {pid: pl for pid, pl in payloads.items() if stored.get(pid) != pl["content_sha"]}
        if not todo:
            return 0
        texts = [self.recipe.embedding_text(*pairs[pid]) for pid in todo]
        vectors = self.embedder.embed_passages(texts)
        points = [
            StoredPoint(pid, vector, self.lexical.encode_document(payload["text"]), payload)
            for (pid, payload), vector in zip(todo.items(), vectors, strict=True)
        ]
        self._store.upsert(points)
        return len(points)


def stored_embedder(
    location: str | Path, *, collection: str = "filingqa", api_key: str | None = None
) -> str | None:
    """The name of the embedder the index at ``location`` was built with (None: no index
    there yet, or one kept in memory), so that queries are embedded by the same model."""
    text = str(location)
    if text == ":memory:":
        return None
    if text.startswith(REMOTE_PREFIXES):
        from qdrant_client import QdrantClient

        client = QdrantClient(url=text, api_key=api_key)
        try:
            if not client.collection_exists(collection):
                return None
            meta = client.get_collection(collection).config.metadata or {}
        finally:
            client.close()
        return meta.get("embedder")
    path = Path(location) / META_FILE
    return json.loads(path.read_text()).get("embedder") if path.is_file() else None


def open_store(
    location: str | Path,
    wanted: IndexMeta,
    *,
    engine: Engine = "edge",
    collection: str = "filingqa",
    api_key: str | None = None,
) -> PointStore:
    """The backend for ``location``: a Qdrant URL or ``":memory:"`` through qdrant-client,
    a directory through ``engine`` (``"edge"``: in process; ``"local"``: qdrant-client's
    sqlite mode). A new store is created as ``wanted``."""
    text = str(location)
    if text == ":memory:" or text.startswith(REMOTE_PREFIXES):
        return QdrantStore.open(text, collection, wanted, api_key=api_key)
    if engine == "edge":
        return EdgeStore.open(Path(location), wanted)
    return QdrantStore.open(str(Path(location)), collection, wanted)


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


def _payload(
    passage: Passage, document: Document, embedded_as: str | None = None
) -> dict[str, Any]:
    """The point's payload: the passage, its document's metadata, the header recipe it was
    embedded under (none: bare), and a hash of all that (signals are added after it)."""
    payload = passage.model_dump(mode="json")
    if embedded_as is not None:
        payload["embedded_as"] = embedded_as
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


def _check_meta(stored: IndexMeta, wanted: IndexMeta, *, explicit_bm25: bool) -> IndexMeta:
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
