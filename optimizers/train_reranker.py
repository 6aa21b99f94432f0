"""Train the reranker: LambdaRank groups from hybrid retrieval plus financial hard negatives.

Each training question becomes one group: the candidates an in-memory dense (MiniLM) +
BM25 hybrid returns over the pooled passages of its split (plus the other passages of the
best pages by a page-level BM25), and hard negatives mined around each gold passage
(:mod:`filingqa.optimizers.hard_negatives`), labelled 1 for the passages holding the gold
supporting facts. The split is pooled twice: as facts (one passage per table row or
sentence) and as windows (each page cut into 120-word windows, as PDF pages are chunked),
so one model serves both granularities; every question also appears prefixed with its
company, so the company features get trained. LightGBM LambdaRank is cross-validated by
document and then fit on everything; the artifact is ``model.txt`` + ``features.json`` +
``training.json`` (data file hashes, counts, parameters, cross-validation, feature gains).

The shipped model is trained the second way, :func:`train_reranker_on_pipeline`: each
training split is indexed as the product indexes it and searched by the product's own
:class:`~filingqa.retrieval.search.FilingSearch` (hybrid, filters, hierarchical); the
candidates it hands its reranker (kept by :class:`CandidateRecorder`) form the group, and
those holding a gold fact, paragraph or table are the positives. Training on what search
really returns beat the in-memory groups on FinQA dev (Recall@5 at the product's passage
granularity 81.1 vs 79.2, same data), and adding TAT-QA dev took it to 83.4.

Data hygiene: :func:`check_hygiene` refuses training records whose documents appear in an
evaluated split (FinQA dev and ConvFinQA dev share 177 of ConvFinQA's 178 report pages).
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from filingqa.datasets.records import QARecord, Table
from filingqa.datasets.registry import load_dataset, parse_spec
from filingqa.optimizers.hard_negatives import PassageFacts, mine_hard_negatives, pool_facts
from filingqa.retrieval.documents import Document, Passage
from filingqa.retrieval.fusion import DEFAULT_K, reciprocal_rank_fusion
from filingqa.retrieval.lexical import tokenize
from filingqa.retrieval.rerank import (
    FEATURE_NAMES,
    TRAINING_FILE,
    Candidate,
    QueryInfo,
    Reranker,
    analyse_query,
    candidate_documents,
    default_artifact_dir,
    feature_matrix,
    page_key,
    query_companies,
)

if TYPE_CHECKING:
    import lightgbm

    from filingqa.evaluation.retrieval import EvalQuery
    from filingqa.retrieval.embedder import Embedder
    from filingqa.retrieval.search import FilingSearch, SearchSettings

Mode = Literal["dense", "sparse", "hybrid"]
Source = Literal["memory", "pipeline"]
View = Literal["facts", "windows"]
VIEWS: tuple[View, ...] = ("facts", "windows")

DEFAULT_TRAIN_SPECS: tuple[str, ...] = ("finqa:train_sample100",)
DEFAULT_PIPELINE_SPECS: tuple[str, ...] = ("finqa:train_sample100", "tatqa:dev")
DEFAULT_EVAL_SPECS: tuple[str, ...] = ("finqa:dev848", "finqa:dev_sample200", "convfinqa:dev")
DEFAULT_DEPTH = 50
DEFAULT_PAGES = 10
WINDOW_WORDS = 120
WINDOW_STRIDE = 100
_FINQA_FILE = re.compile(r"^(?P<ticker>[A-Za-z.\-]+)/(?P<year>\d{4})/page_(?P<page>\d+)\.pdf$")


class DataLeakError(ValueError):
    """Training material overlaps a split that is evaluated."""


# --- passages from QA records -------------------------------------------------------------


def record_document(record: QARecord) -> Document:
    """The document of a record's context (ticker and year read from FinQA file names)."""
    doc_id = record.documents[0] if record.documents else record.id
    match = _FINQA_FILE.match(doc_id)
    if match is None:
        return Document(doc_id=doc_id)
    return Document(
        doc_id=doc_id,
        company=match["ticker"],
        ticker=match["ticker"],
        doc_type="10k",
        fiscal_year=int(match["year"]),
    )


def _page(doc_id: str) -> int:
    match = _FINQA_FILE.match(doc_id)
    return int(match["page"]) if match else 1


def row_text(table: Table, index: int) -> str:
    """One table row as a self-contained passage: label, then ``header: cell`` pairs."""
    header, row = table.rows[0], table.rows[index]
    if index == 0:
        return "table header: " + " | ".join(cell for cell in row if cell)
    cells = [f"{h}: {c}" if h else c for h, c in zip(header[1:], row[1:], strict=False) if c]
    units = f" [{header[0]}]" if header and header[0].strip(" -") else ""
    return f"{row[0]}: " + "; ".join(cells) + units


def record_passages(record: QARecord) -> list[Passage]:
    """The table rows and sentences of a record's context, one passage each.

    Ids: ``<doc_id>:p<page>:table<t>.<row>`` (parent ``<doc_id>:p<page>:table<t>``) and
    ``<doc_id>:p<page>:text<i>`` for the ``i``-th paragraph.
    """
    doc_id = record_document(record).doc_id
    page = _page(doc_id)
    prefix = f"{doc_id}:p{page}"
    passages = []
    for t, table in enumerate(record.context.tables if record.context else []):
        parent = f"{prefix}:table{t}"
        passages += [
            Passage(
                id=f"{parent}.{i}",
                doc_id=doc_id,
                page=page,
                kind="table",
                text=row_text(table, i),
                parent_id=parent,
            )
            for i in range(len(table.rows))
        ]
    for i, paragraph in enumerate(record.context.paragraphs if record.context else []):
        passages.append(
            Passage(
                id=f"{prefix}:text{i}", doc_id=doc_id, page=page, kind="text", text=paragraph.text
            )
        )
    return passages


def gold_passage_ids(record: QARecord) -> frozenset[str]:
    """The ids (as :func:`record_passages` gives them) of the record's gold facts.

    Table rows index the first table; text ids are the context's paragraph ids.
    """
    doc_id = record_document(record).doc_id
    prefix = f"{doc_id}:p{_page(doc_id)}"
    paragraphs = [p.id for p in record.context.paragraphs] if record.context else []
    gold: set[str] = set()
    for evidence in record.evidence:
        gold |= {f"{prefix}:table0.{row}" for row in evidence.table_rows}
        gold |= {
            f"{prefix}:text{paragraphs.index(t)}" for t in evidence.text_ids if t in paragraphs
        }
    return frozenset(gold)


def record_windows(
    record: QARecord, size: int = WINDOW_WORDS, stride: int = WINDOW_STRIDE
) -> tuple[list[Passage], dict[str, frozenset[str]]]:
    """A record's page as plain text cut into ``size``-word windows every ``stride`` words
    (tables as space-separated cells), like a PDF page chunked for retrieval, and the
    windows holding each fact (``record_passages`` id -> window ids): a window holds a fact
    when it has at least half of the fact's words.
    """
    doc_id = record_document(record).doc_id
    page = _page(doc_id)
    prefix = f"{doc_id}:p{page}"
    words: list[str] = []
    owner: list[str] = []
    context = record.context
    units = [
        (f"{prefix}:table{t}.{i}", " ".join(row))
        for t, table in enumerate(context.tables if context else [])
        for i, row in enumerate(table.rows)
    ] + [(f"{prefix}:text{i}", p.text) for i, p in enumerate(context.paragraphs if context else [])]
    for fact_id, text in units:
        tokens = text.split()
        words += tokens
        owner += [fact_id] * len(tokens)
    fact_words = Counter(owner)
    windows: list[Passage] = []
    holds: dict[str, set[str]] = {}
    for n, start in enumerate(range(0, max(1, len(words) - size + stride), stride)):
        window_id = f"{prefix}:window{n}"
        span = Counter(owner[start : start + size])
        text = " ".join(words[start : start + size])
        windows.append(Passage(id=window_id, doc_id=doc_id, page=page, kind="text", text=text))
        for fact_id, count in span.items():
            if 2 * count >= fact_words[fact_id]:
                holds.setdefault(fact_id, set()).add(window_id)
    return windows, {fact: frozenset(ids) for fact, ids in holds.items()}


# --- the in-memory hybrid -----------------------------------------------------------------


class MemoryHybrid:
    """Exact dense (cosine) + BM25 passage search fused by RRF, plus BM25 over whole pages.

    Mirrors the passage index: each list keeps its top ``depth``, RRF fuses them, and a
    candidate's score and rank in a list are known only when it made that list. A page-level
    BM25 (all of a page's passages as one text) ranks pages; the passages of the best
    ``pages`` pages join the candidates, and every candidate on a top page carries its
    page's score and rank.
    """

    def __init__(
        self,
        passages: Sequence[Passage],
        documents: Mapping[str, Document],
        embedder: Embedder,
        *,
        rrf_k: int = DEFAULT_K,
    ) -> None:
        import bm25s

        self.passages = list(passages)
        self.documents = dict(documents)
        self.embedder = embedder
        self.rrf_k = rrf_k
        self.position = {p.id: i for i, p in enumerate(self.passages)}
        vectors = embedder.embed_passages([p.text for p in self.passages])
        self.vectors = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
        self.bm25 = bm25s.BM25()
        self.bm25.index([tokenize(p.text) for p in self.passages], show_progress=False)
        self.page_members: dict[tuple[str, int], list[int]] = {}
        for i, passage in enumerate(self.passages):
            self.page_members.setdefault(page_key(passage), []).append(i)
        self.page_keys = list(self.page_members)
        self.page_bm25 = bm25s.BM25()
        page_texts = (
            " ".join(self.passages[i].text for i in m) for m in self.page_members.values()
        )
        self.page_bm25.index([tokenize(text) for text in page_texts], show_progress=False)
        self._last: tuple[str, np.ndarray, np.ndarray] | None = None

    def scores(self, query: str) -> tuple[np.ndarray, np.ndarray]:
        """Cosine and BM25 scores of every passage for ``query`` (the last query's are kept)."""
        if self._last is None or self._last[0] != query:
            vector = self.embedder.embed_query(query)
            vector = vector / max(float(np.linalg.norm(vector)), 1e-12)
            sparse = np.asarray(self.bm25.get_scores(tokenize(query)), dtype=np.float64)
            self._last = (query, self.vectors @ vector, sparse)
        return self._last[1], self._last[2]

    def page_ranking(self, query: str, k: int) -> dict[tuple[str, int], tuple[int, float]]:
        """The top ``k`` pages by page-level BM25: ``page -> (rank, score)``."""
        scores = np.asarray(self.page_bm25.get_scores(tokenize(query)), dtype=np.float64)
        top = [i for i in _top(scores, k) if scores[i] > 0]
        return {self.page_keys[i]: (rank, float(scores[i])) for rank, i in enumerate(top, 1)}

    def candidates(
        self, query: str, depth: int = DEFAULT_DEPTH, pages: int = DEFAULT_PAGES
    ) -> list[Candidate]:
        """RRF of the top-``depth`` dense and BM25 lists (its top ``depth``), then the other
        passages of the top ``pages`` pages (scored, but with no list ranks)."""
        dense, sparse = self.scores(query)
        dense_top = _top(dense, depth)
        sparse_top = [i for i in _top(sparse, depth) if sparse[i] > 0]
        fused = reciprocal_rank_fusion([dense_top, sparse_top], k=self.rrf_k)[:depth]
        ranked_pages = self.page_ranking(query, max(depth, pages))
        found = [
            self.candidate(
                f.key,
                ranked_pages,
                dense_score=float(dense[f.key]),
                dense_rank=f.ranks[0],
                sparse_score=float(sparse[f.key]),
                sparse_rank=f.ranks[1],
                fused_rank=rank,
            )
            for rank, f in enumerate(fused, start=1)
        ]
        have = {f.key for f in fused}
        for key in list(ranked_pages)[:pages]:
            added = [i for i in self.page_members[key] if i not in have]
            found += [self.unranked(query, i, ranked_pages) for i in added]
            have.update(added)
        return found

    def unranked(
        self,
        query: str,
        index: int | str,
        pages: Mapping[tuple[str, int], tuple[int, float]] | None = None,
    ) -> Candidate:
        """A passage (by position or id) as a scored candidate outside the fused list."""
        position = self.position[index] if isinstance(index, str) else index
        dense, sparse = self.scores(query)
        pages = self.page_ranking(query, DEFAULT_DEPTH) if pages is None else pages
        return self.candidate(
            position,
            pages,
            dense_score=float(dense[position]),
            sparse_score=float(sparse[position]),
        )

    def search(self, query: str, k: int, mode: Mode) -> list[str]:
        """Passage ids of the top ``k`` in one mode (hybrid: fused order, no page additions)."""
        if mode == "hybrid":
            fused = self.candidates(query, max(k, DEFAULT_DEPTH), pages=0)
            return [c.passage.id for c in fused[:k]]
        dense, sparse = self.scores(query)
        return [self.passages[i].id for i in _top(dense if mode == "dense" else sparse, k)]

    def candidate(
        self, position: int, pages: Mapping[tuple[str, int], tuple[int, float]], **retrieval: Any
    ) -> Candidate:
        """The passage at ``position`` with its page's ``(rank, score)`` and ``retrieval``."""
        passage = self.passages[position]
        page_rank, page_score = pages.get(page_key(passage), (None, None))
        return Candidate(
            passage=passage,
            document=self.documents.get(passage.doc_id),
            page_rank=page_rank,
            page_score=page_score,
            **retrieval,
        )


def _top(scores: np.ndarray, k: int) -> list[int]:
    k = min(k, len(scores))
    head = np.argpartition(-scores, k - 1)[:k] if k else np.array([], dtype=int)
    return sorted(head.tolist(), key=lambda i: (-scores[i], i))


# --- training groups ----------------------------------------------------------------------


class TrainingQuery(BaseModel):
    """A question, its document (the cross-validation unit) and its gold passage ids."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    question: str
    doc_id: str
    gold: frozenset[str]


@dataclass(frozen=True)
class Group:
    """One LambdaRank group: the first ``retrieved`` candidates came from the hybrid."""

    query: TrainingQuery
    candidates: list[Candidate]
    retrieved: int
    features: np.ndarray
    labels: np.ndarray


class NegativeSettings(BaseModel):
    """How many mined negatives to add per gold passage."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    per_reason: int = 2
    n_bm25: int = 2
    n_random: int = 2
    add_missing_gold: bool = Field(default=True, description="gold not retrieved still trains")


def build_groups(
    queries: Sequence[TrainingQuery],
    hybrid: MemoryHybrid,
    *,
    depth: int = DEFAULT_DEPTH,
    pages: int = DEFAULT_PAGES,
    negatives: NegativeSettings | None = None,
    seed: int = 0,
) -> tuple[list[Group], Counter[str]]:
    """LambdaRank groups for ``queries`` (those with a gold passage in the pool) and the
    count of mined negatives by reason."""
    negatives = negatives or NegativeSettings()
    facts = pool_facts(hybrid.passages, hybrid.documents)
    reasons: Counter[str] = Counter()
    groups = []
    for query in queries:
        gold = frozenset(g for g in query.gold if g in hybrid.position)
        if not gold:
            continue
        retrieved = hybrid.candidates(query.question, depth, pages)
        mined = _mined(query.question, gold, hybrid, facts, negatives, depth, seed)
        reasons.update(reason for reason, _ in mined.values() if reason != "gold")
        have = {c.passage.id for c in retrieved}
        candidates = retrieved + [c for pid, (_, c) in mined.items() if pid not in have]
        labels = np.asarray([float(c.passage.id in gold) for c in candidates])
        matrix = feature_matrix(query.question, candidates)
        groups.append(Group(query, candidates, len(retrieved), matrix, labels))
    return groups, reasons


def _mined(
    question: str,
    gold: frozenset[str],
    hybrid: MemoryHybrid,
    facts: Mapping[str, PassageFacts],
    negatives: NegativeSettings,
    depth: int,
    seed: int,
) -> dict[str, tuple[str, Candidate]]:
    """``passage id -> (reason, candidate)`` of the hard negatives (and, if asked, the gold)."""
    pages = hybrid.page_ranking(question, depth)
    bm25_ids = hybrid.search(question, depth, "sparse")
    out: dict[str, tuple[str, Candidate]] = {}
    for gold_id in sorted(gold):
        for negative in mine_hard_negatives(
            hybrid.passages[hybrid.position[gold_id]],
            hybrid.passages,
            facts,
            exclude=gold,
            bm25_ranking=bm25_ids,
            per_reason=negatives.per_reason,
            n_bm25=negatives.n_bm25,
            n_random=negatives.n_random,
            seed=seed,
        ):
            candidate = hybrid.unranked(question, negative.passage.id, pages)
            out.setdefault(negative.passage.id, (negative.reason, candidate))
        if negatives.add_missing_gold:
            out[gold_id] = ("gold", hybrid.unranked(question, gold_id, pages))
    return out


# --- LightGBM -----------------------------------------------------------------------------


class TrainParams(BaseModel):
    """LightGBM LambdaRank settings (deterministic for a given seed and thread count)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    num_boost_round: int = 300
    learning_rate: float = 0.03
    num_leaves: int = 7
    min_data_in_leaf: int = 50
    feature_fraction: float = 0.9
    lambdarank_truncation_level: int = 20
    seed: int = 0
    num_threads: int = 1

    def lightgbm(self) -> dict[str, Any]:
        """The parameter dict for ``lightgbm.train``."""
        return {
            "objective": "lambdarank",
            "metric": "ndcg",
            "ndcg_eval_at": [5, 10],
            "learning_rate": self.learning_rate,
            "num_leaves": self.num_leaves,
            "min_data_in_leaf": self.min_data_in_leaf,
            "feature_fraction": self.feature_fraction,
            "lambdarank_truncation_level": self.lambdarank_truncation_level,
            "seed": self.seed,
            "deterministic": True,
            "force_row_wise": True,
            "num_threads": self.num_threads,
            "verbosity": -1,
        }


def fit(groups: Sequence[Group], params: TrainParams | None = None) -> lightgbm.Booster:
    """A LambdaRank booster trained on ``groups``.

    Raises:
        ValueError: no group has a positive label.
    """
    import lightgbm

    params = params or TrainParams()
    if not any(g.labels.any() for g in groups):
        raise ValueError("no training group has a gold candidate")
    data = lightgbm.Dataset(
        np.vstack([g.features for g in groups]),
        label=np.concatenate([g.labels for g in groups]),
        group=[len(g.candidates) for g in groups],
        feature_name=list(FEATURE_NAMES),
        params={"verbosity": -1},
    )
    return lightgbm.train(params.lightgbm(), data, num_boost_round=params.num_boost_round)


def recall_at(ranked: Sequence[str], gold: Iterable[str], k: int) -> float:
    """The share of ``gold`` among the first ``k`` of ``ranked`` (0.0 without gold)."""
    gold = set(gold)
    return len(gold & set(ranked[:k])) / len(gold) if gold else 0.0


class FoldScores(BaseModel):
    """Mean Recall@5/@10 of held-out queries: fused order vs the reranker."""

    model_config = ConfigDict(extra="forbid")

    queries: int
    fused_recall_at_5: float
    fused_recall_at_10: float
    reranked_recall_at_5: float
    reranked_recall_at_10: float


def _recalls(groups: Sequence[Group], reranker: Reranker) -> list[tuple[float, ...]]:
    rows = []
    for group in groups:
        candidates = group.candidates[: group.retrieved]
        fused = [c.passage.id for c in candidates]
        order = [c.passage.id for c in reranker.rerank(group.query.question, candidates)]
        gold = group.query.gold
        rows.append(tuple(recall_at(r, gold, k) for r in (fused, order) for k in (5, 10)))
    return rows


def _fold_scores(rows: Sequence[tuple[float, ...]]) -> FoldScores:
    means = np.mean(rows, axis=0) if rows else np.zeros(4)
    names = [name for name in FoldScores.model_fields if name != "queries"]
    return FoldScores(queries=len(rows), **{n: float(v) for n, v in zip(names, means, strict=True)})


def evaluate(groups: Sequence[Group], reranker: Reranker) -> FoldScores:
    """Rerank each group's retrieved candidates (not the mined extras) and score them."""
    return _fold_scores(_recalls(groups, reranker))


def document_folds(groups: Sequence[Group], folds: int, seed: int = 0) -> list[list[Group]]:
    """``groups`` split into ``folds`` parts, all questions on one document in one part."""
    documents = sorted({g.query.doc_id for g in groups})
    random.Random(seed).shuffle(documents)
    fold_of = {doc: i % folds for i, doc in enumerate(documents)}
    return [[g for g in groups if fold_of[g.query.doc_id] == i] for i in range(folds)]


def cross_validate(
    groups: Sequence[Group], params: TrainParams | None = None, folds: int = 5
) -> FoldScores:
    """Held-out scores over ``folds`` document folds (each query scored by the model that
    did not see its document)."""
    params = params or TrainParams()
    parts = document_folds(groups, folds, params.seed)
    rows: list[tuple[float, ...]] = []
    for i, test in enumerate(parts):
        train = [g for j, part in enumerate(parts) if j != i for g in part]
        if test and any(g.labels.any() for g in train):
            rows += _recalls(test, Reranker(fit(train, params)))
    return _fold_scores(rows)


# --- data ---------------------------------------------------------------------------------


def check_hygiene(train: Sequence[QARecord], evaluated: Sequence[QARecord]) -> None:
    """Refuse training records that share a question id or a document with evaluated ones.

    Raises:
        DataLeakError: some overlap, with counts and examples.
    """
    shared_docs = {d for r in train for d in r.documents} & {
        d for r in evaluated for d in r.documents
    }
    shared_ids = {r.id for r in train} & {r.id for r in evaluated}
    if shared_docs or shared_ids:
        examples = ", ".join(sorted(shared_docs | shared_ids)[:5])
        raise DataLeakError(
            f"training data overlaps evaluated splits: {len(shared_docs)} documents, "
            f"{len(shared_ids)} question ids (e.g. {examples})"
        )


def split_hashes(specs: Iterable[str], data_dir: Path | None = None) -> dict[str, dict[str, str]]:
    """``spec -> {file name: sha256}`` of the files backing each split."""
    from filingqa.core.config import data_dir as resolve

    root = resolve(data_dir)
    out: dict[str, dict[str, str]] = {}
    for spec in specs:
        loader, split = parse_spec(spec)
        out[spec] = {
            str(path.relative_to(root)): hashlib.sha256(path.read_bytes()).hexdigest()
            for path in loader.files(root, split)
        }
    return out


def pooled_corpus(
    records: Sequence[QARecord], view: View = "facts"
) -> tuple[list[Passage], dict[str, Document], dict[str, frozenset[str]]]:
    """Every distinct document's passages (first record wins), the documents, and where
    each fact went: ``fact id -> passage ids`` (itself for "facts", its windows else)."""
    passages: list[Passage] = []
    documents: dict[str, Document] = {}
    where: dict[str, frozenset[str]] = {}
    for record in records:
        document = record_document(record)
        if document.doc_id in documents:
            continue
        documents[document.doc_id] = document
        if view == "facts":
            facts = record_passages(record)
            passages += facts
            where |= {p.id: frozenset({p.id}) for p in facts}
        else:
            windows, holds = record_windows(record)
            passages += windows
            where |= holds
    return passages, documents, where


def training_queries(
    records: Sequence[QARecord],
    where: Mapping[str, frozenset[str]] | None = None,
    *,
    named: bool = False,
) -> list[TrainingQuery]:
    """One query per record; gold = the passages holding its evidence facts (``where``).

    ``named`` adds a copy of each question prefixed with its company ("MRO: what was …"),
    as questions over a whole collection name it, so the company features get trained.
    """
    queries = []
    for record in records:
        facts = gold_passage_ids(record)
        gold = facts if where is None else frozenset().union(*(where.get(f, ()) for f in facts))
        document = record_document(record)
        variants = [(record.id, record.question)]
        if named and document.company:
            variants.append((f"{record.id}#named", f"{document.company}: {record.question}"))
        queries += [
            TrainingQuery(id=qid, question=question, doc_id=document.doc_id, gold=gold)
            for qid, question in variants
        ]
    return queries


class TrainingReport(BaseModel):
    """What :func:`train_reranker` did and where the artifact is."""

    model_config = ConfigDict(extra="forbid")

    out_dir: str
    train_specs: list[str]
    eval_specs: list[str]
    data_files: dict[str, dict[str, str]]
    source: Source = "memory"
    queries: int = Field(description="training questions read")
    groups: int = Field(description="questions with a gold passage in their pool")
    candidates: int
    positives: int
    negatives_by_reason: dict[str, int] = Field(default_factory=dict)
    depth: int
    pages: int | None = Field(default=None, description="memory: top pages added")
    views: list[View] = Field(default_factory=list)
    name_companies: bool = False
    search: dict[str, Any] | None = Field(default=None, description="pipeline: SearchSettings")
    params: TrainParams
    negatives: NegativeSettings | None = None
    cross_validation: FoldScores
    feature_gain: dict[str, float]


def train_reranker(
    train_specs: Sequence[str] = DEFAULT_TRAIN_SPECS,
    out_dir: Path | None = None,
    *,
    eval_specs: Sequence[str] = DEFAULT_EVAL_SPECS,
    data_dir: Path | None = None,
    embedder: Embedder | None = None,
    depth: int = DEFAULT_DEPTH,
    pages: int = DEFAULT_PAGES,
    views: Sequence[View] = VIEWS,
    name_companies: bool = True,
    params: TrainParams | None = None,
    negatives: NegativeSettings | None = None,
    folds: int = 5,
) -> TrainingReport:
    """Train the reranker on ``train_specs`` and save it under ``out_dir``.

    Each spec's contexts form one pooled corpus searched by an in-memory hybrid.

    Raises:
        DataLeakError: a training document or question is in one of ``eval_specs``.
    """
    from filingqa.retrieval.embedder import Embedder

    params = params or TrainParams()
    negatives = negatives or NegativeSettings()
    embedder = embedder or Embedder.load(threads=params.num_threads)
    out_dir = out_dir or default_artifact_dir()
    evaluated = [r for spec in eval_specs for r in load_dataset(spec, data_dir)]
    groups: list[Group] = []
    reasons: Counter[str] = Counter()
    total = 0
    for spec in train_specs:
        records = load_dataset(spec, data_dir)
        total += len(records)
        check_hygiene(records, evaluated)
        for view in views:
            passages, documents, where = pooled_corpus(records, view)
            hybrid = MemoryHybrid(passages, documents, embedder)
            found, mined = build_groups(
                training_queries(records, where, named=name_companies),
                hybrid,
                depth=depth,
                pages=pages,
                negatives=negatives,
                seed=params.seed,
            )
            groups += found
            reasons += mined
    return _fit_and_save(
        groups,
        params,
        folds,
        out_dir,
        train_specs=list(train_specs),
        eval_specs=list(eval_specs),
        data_files=split_hashes([*train_specs, *eval_specs], data_dir),
        queries=total,
        negatives_by_reason=dict(sorted(reasons.items())),
        depth=depth,
        pages=pages,
        views=list(views),
        name_companies=name_companies,
        negatives=negatives,
    )


def _fit_and_save(
    groups: Sequence[Group], params: TrainParams, folds: int, out_dir: Path, **fields: Any
) -> TrainingReport:
    """Cross-validate, fit on all ``groups``, save the model and its training report
    (``fields`` say where the groups came from)."""
    cv = cross_validate(groups, params, folds)
    booster = fit(groups, params)
    Reranker(booster).save(out_dir)
    report = TrainingReport(
        out_dir=str(out_dir),
        groups=len(groups),
        candidates=sum(len(g.candidates) for g in groups),
        positives=int(sum(g.labels.sum() for g in groups)),
        params=params,
        cross_validation=cv,
        feature_gain=_gains(booster),
        **fields,
    )
    (out_dir / TRAINING_FILE).write_text(
        json.dumps(report.model_dump(mode="json"), indent=2) + "\n"
    )
    return report


def _gains(booster: lightgbm.Booster) -> dict[str, float]:
    gains = booster.feature_importance(importance_type="gain")
    return {n: round(float(v), 3) for n, v in zip(FEATURE_NAMES, gains, strict=True)}


# --- groups from the product's search pipeline --------------------------------------------


class CandidateRecorder(Reranker):
    """Keeps the candidates (and companies) the search pipeline hands its reranker and keeps
    their fused order, so training sees exactly what :class:`FilingSearch` produces."""

    def __init__(self) -> None:
        super().__init__(dedup_threshold=None, promote_k=None)
        self.candidates: list[Candidate] = []
        self.companies: Sequence[str] | None = None

    def rerank(
        self,
        query: str,
        candidates: Sequence[Candidate],
        *,
        companies: Sequence[str] | None = None,
        info: QueryInfo | None = None,
    ) -> list[Candidate]:
        """Record ``candidates`` and ``companies``; return the fused order."""
        self.candidates = list(candidates)
        self.companies = companies
        return super().rerank(query, candidates, companies=companies, info=info)


def pipeline_groups(queries: Sequence[EvalQuery], search: FilingSearch) -> list[Group]:
    """One LambdaRank group per query from the candidates ``search`` (with the reranker
    stage on) reranks, labelled 1 where a candidate satisfies one of the query's targets;
    queries without a positive candidate are left out."""
    from filingqa.retrieval.search import FilingSearch

    recorder = CandidateRecorder()
    settings = search.settings.model_copy(update={"rerank": True})
    pipeline = FilingSearch(search.index, search.metadata, recorder, settings)
    groups = []
    for query in queries:
        pipeline.ranked(query.question, k=1)
        candidates = recorder.candidates
        labels = np.asarray(
            [float(any(t.found_in(c.passage) for t in query.targets)) for c in candidates]
        )
        if not labels.any():
            continue
        companies = recorder.companies
        if companies is None:
            companies = query_companies(query.question, candidate_documents(candidates))
        info = analyse_query(query.question, companies)
        matrix = feature_matrix(query.question, candidates, info)
        gold = frozenset(c.passage.id for c, y in zip(candidates, labels, strict=True) if y)
        training = TrainingQuery(
            id=query.id, question=query.question, doc_id=query.targets[0].doc_id, gold=gold
        )
        groups.append(Group(training, candidates, len(candidates), matrix, labels))
    return groups


def pipeline_training_groups(
    train_specs: Sequence[str],
    *,
    eval_specs: Sequence[str] = DEFAULT_EVAL_SPECS,
    data_dir: Path | None = None,
    settings: SearchSettings | None = None,
    progress: bool = False,
) -> tuple[list[Group], int]:
    """:func:`pipeline_groups` of every ``train_specs`` split, each indexed on its own
    (:func:`ensure_index`, reused when built), and the number of questions read.

    Raises:
        DataLeakError: a training document or question is in one of ``eval_specs``.
    """
    from filingqa.evaluation.retrieval import dataset_queries, ensure_index
    from filingqa.retrieval.search import FilingSearch

    evaluated = [r for spec in eval_specs for r in load_dataset(spec, data_dir)]
    groups: list[Group] = []
    total = 0
    for spec in train_specs:
        check_hygiene(load_dataset(spec, data_dir), evaluated)
        queries = dataset_queries(spec, data_dir)
        total += len(queries)
        location = Path(ensure_index(spec, data_dir, progress).location)
        search = FilingSearch.open(location, reranker=None, settings=settings)
        try:
            groups += pipeline_groups(queries, search)
        finally:
            search.close()
    return groups, total


def train_reranker_on_pipeline(
    train_specs: Sequence[str] = DEFAULT_PIPELINE_SPECS,
    out_dir: Path | None = None,
    *,
    eval_specs: Sequence[str] = DEFAULT_EVAL_SPECS,
    data_dir: Path | None = None,
    settings: SearchSettings | None = None,
    params: TrainParams | None = None,
    folds: int = 5,
    progress: bool = False,
) -> TrainingReport:
    """Train the reranker on what the product's search returns for ``train_specs``.

    Each spec's contexts are indexed together (:func:`ensure_index`, reused when built) and
    searched with ``settings`` (default: hybrid, filters, hierarchical); candidates that
    hold a gold fact, paragraph or table (:func:`record_targets`) are the positives.

    Raises:
        DataLeakError: a training document or question is in one of ``eval_specs``.
    """
    from filingqa.retrieval.search import SearchSettings

    params = params or TrainParams()
    settings = settings or SearchSettings()
    out_dir = out_dir or default_artifact_dir()
    groups, total = pipeline_training_groups(
        train_specs, eval_specs=eval_specs, data_dir=data_dir, settings=settings, progress=progress
    )
    return _fit_and_save(
        groups,
        params,
        folds,
        out_dir,
        train_specs=list(train_specs),
        eval_specs=list(eval_specs),
        data_files=split_hashes([*train_specs, *eval_specs], data_dir),
        source="pipeline",
        queries=total,
        depth=settings.candidates,
        search=settings.model_dump(),
    )
