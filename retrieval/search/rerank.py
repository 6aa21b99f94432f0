"""The learned reranker: LightGBM LambdaRank over the features of :mod:`.rerank_features`.

:class:`Reranker` scores candidates with a LightGBM model kept in LightGBM's text format
next to a JSON manifest of the feature names; without a model it keeps the fused order.
After scoring, near-duplicate boilerplate is dropped (:mod:`filingqa.retrieval.index.dedup`)
and the fragments of one parent that rank high are put together (:func:`promote_parents`).
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from filingqa.core.config import home_dir
from filingqa.retrieval.index.dedup import dedup
from filingqa.retrieval.search.rerank_features import (
    FEATURE_NAMES,
    FEATURE_VERSION,
    Candidate,
    QueryInfo,
    feature_matrix,
    query_info,
)

if TYPE_CHECKING:
    import lightgbm

MODEL_FILE = "model.txt"
FEATURES_FILE = "features.json"
TRAINING_FILE = "training.json"
PREDICT_THREADS = 1
"""One query's few hundred rows score fastest on one thread (no pool start-up or spinning)."""


def default_artifact_dir() -> Path:
    """Where a trained reranker goes unless told otherwise: ``<home>/artifacts/reranker``."""
    return home_dir() / "artifacts" / "reranker"


def shipped_artifact_dir() -> Path:
    """The reranker that ships with filingqa (``artifacts/reranker`` in the repository)."""
    return Path(str(resources.files("filingqa.artifacts") / "reranker"))


def promote_parents(ranked: Sequence[Candidate], k: int) -> list[Candidate]:
    """Put together the fragments of a parent that has two or more of them in the top ``k``.

    At the first (best) position of such a group come the parent passage itself (when it
    is among ``ranked``: its ``id`` is the fragments' ``parent_id``), then the group's
    fragments in the top ``k`` in rank order; the other candidates follow in order.
    """
    top = list(ranked[:k])
    counts = Counter(c.passage.parent_id for c in top if c.passage.parent_id)
    groups = {parent for parent, n in counts.items() if n >= 2}
    if not groups:
        return list(ranked)
    parents = {c.passage.id: c for c in ranked if c.passage.id in groups}

    def group_of(candidate: Candidate) -> str | None:
        if candidate.passage.parent_id in groups:
            return candidate.passage.parent_id
        return candidate.passage.id if candidate.passage.id in groups else None

    out: list[Candidate] = []
    placed: set[str] = set()
    for candidate in top:
        group = group_of(candidate)
        if group is None:
            out.append(candidate)
        elif group not in placed:
            placed.add(group)
            if group in parents:
                out.append(parents[group])
            out += [c for c in top if c.passage.parent_id == group]
    taken = {c.passage.id for c in out}
    return out + [c for c in ranked[k:] if c.passage.id not in taken]


def _shingles(candidate: Candidate) -> frozenset[int]:
    return candidate.text_signals().shingles


class Reranker:
    """Scores candidates with a LightGBM LambdaRank model; untrained, keeps the fused order.

    ``dedup_threshold`` (Jaccard of word shingles, None: off) drops near-duplicates and
    ``promote_k`` (None: off) groups a parent's fragments within the top ``promote_k``.
    ``embedder`` names the encoder whose cosines it learned, when its training recorded one
    (a compile's fine-tuned encoder); None: the indexes it trained over did not say.
    """

    def __init__(
        self,
        booster: lightgbm.Booster | None = None,
        *,
        dedup_threshold: float | None = 0.85,
        promote_k: int | None = 5,
        embedder: str | None = None,
    ) -> None:
        self.booster = booster
        self.dedup_threshold = dedup_threshold
        self.promote_k = promote_k
        self.embedder = embedder

    @property
    def trained(self) -> bool:
        """Whether a model is loaded (else :meth:`rerank` keeps the fused order)."""
        return self.booster is not None

    @classmethod
    def load(cls, directory: Path, **options: Any) -> Reranker:
        """The reranker saved in ``directory`` (``model.txt`` + ``features.json``; the
        encoder it learned from ``training.json``, when its training recorded one).

        Raises:
            ValueError: the model was trained on other features than this code computes.
        """
        import lightgbm

        manifest = json.loads((directory / FEATURES_FILE).read_text())
        if tuple(manifest["feature_names"]) != FEATURE_NAMES:
            raise ValueError(
                f"{directory}: model features {manifest['feature_names']} differ from "
                f"this code's {list(FEATURE_NAMES)}; retrain the reranker"
            )
        booster = lightgbm.Booster(model_file=str(directory / MODEL_FILE))
        training = directory / TRAINING_FILE
        embedder = json.loads(training.read_text()).get("embedder") if training.is_file() else None
        return cls(booster, embedder=embedder, **options)

    def save(self, directory: Path) -> Path:
        """Write ``model.txt`` and ``features.json`` into ``directory``; return it.

        Raises:
            ValueError: there is no model to save.
        """
        if self.booster is None:
            raise ValueError("an untrained reranker has no model to save")
        directory.mkdir(parents=True, exist_ok=True)
        self.booster.save_model(str(directory / MODEL_FILE))
        manifest = {"version": FEATURE_VERSION, "feature_names": list(FEATURE_NAMES)}
        (directory / FEATURES_FILE).write_text(json.dumps(manifest, indent=2) + "\n")
        return directory

    def scores(self, query: str, candidates: Sequence[Candidate], info: QueryInfo) -> np.ndarray:
        """One model score per candidate (higher is better); minus fused rank if untrained."""
        if self.booster is None:
            ranks = [math.inf if c.fused_rank is None else c.fused_rank for c in candidates]
            return -np.asarray(ranks, dtype=np.float64)
        matrix = feature_matrix(query, candidates, info)
        return np.asarray(self.booster.predict(matrix, num_threads=PREDICT_THREADS))

    def rerank(
        self,
        query: str,
        candidates: Sequence[Candidate],
        *,
        companies: Sequence[str] | None = None,
        info: QueryInfo | None = None,
    ) -> list[Candidate]:
        """``candidates`` best first (untrained: by fused rank, missing ranks last, ties in
        input order), deduplicated and with parents promoted; ``info`` defaults to
        :func:`query_info` of ``companies``."""
        if not candidates:
            return []
        info = info or query_info(query, candidates, companies)
        order = np.argsort(-self.scores(query, candidates, info), kind="stable")
        ranked = [candidates[i] for i in order]
        if self.dedup_threshold is not None:
            ranked = dedup(ranked, _shingles, threshold=self.dedup_threshold)
        if self.promote_k is not None:
            ranked = promote_parents(ranked, self.promote_k)
        return ranked
