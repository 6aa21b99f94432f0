"""Dense text embeddings for the index: one facade over fastembed, cached on disk.

The default is the pinned offline MiniLM (``filingqa models pull``); any other fastembed
model is loaded by name from fastembed's own source (downloaded on first use). Vectors are
cached by (model name, role, sha256 of the text), so re-indexing never re-embeds a text; the
last few query vectors are also kept in memory, as one search embeds its query several
times (each scope, the documents searched again, the scores it completes).
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import numpy as np

from filingqa.core.cache import disk_cache
from filingqa.core.config import models_dir
from filingqa.models.registry import DEFAULT_EMBEDDING
from filingqa.retrieval.index.passage_recipe import LEGACY, PassageRecipe, recipe_for_window

if TYPE_CHECKING:
    import diskcache
    from fastembed import TextEmbedding

EncodeFn = Callable[[list[str]], np.ndarray]
Role = Literal["passage", "query"]
CACHE_NAME = "embeddings"
DEFAULT_MODEL = DEFAULT_EMBEDDING.key
RECENT_QUERIES = 32
PASSAGE_BATCH = 8
"""Passages per model call: a batch is padded to its longest text and its attention grows
with the square of that length, so on CPU small batches of like-length texts embed fastest
(see docs/retrieval.md)."""
_OFFLINE_NAMES = frozenset({DEFAULT_EMBEDDING.key, DEFAULT_EMBEDDING.fastembed_name})


def by_length(texts: list[str], embed: Callable[[list[str]], Sequence[np.ndarray]]) -> np.ndarray:
    """``embed(texts)`` with the texts handed over shortest first, so that each batch is
    padded to a length near its own texts' (a batch is padded to its longest), and the
    vectors returned in the order of ``texts``."""
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    vectors = np.asarray(embed([texts[i] for i in order]), dtype=np.float32)
    out = np.empty_like(vectors)
    out[order] = vectors
    return out


class Embedder:
    """Embeds passages and queries with one model into ``dim``-d float32 vectors.

    ``encode_passages`` / ``encode_queries`` map a list of texts to an ``(n, dim)`` array
    (queries default to the passage encoder). ``cache`` stores vectors across runs; None
    keeps nothing. ``window`` is how many tokens the model reads of an input (special tokens
    included; None: unknown) and ``count_tokens`` counts a text's tokens as its tokenizer
    does, without special tokens (None: unknown). Use :meth:`load` for fastembed models; the
    constructor takes any encoder, e.g. a deterministic fake in tests.
    """

    def __init__(
        self,
        name: str,
        dim: int,
        encode_passages: EncodeFn,
        encode_queries: EncodeFn | None = None,
        *,
        cache: diskcache.Cache | None = None,
        window: int | None = None,
        count_tokens: Callable[[str], int] | None = None,
    ) -> None:
        self.name = name
        self.dim = dim
        self.window = window
        self.count_tokens = count_tokens
        self._encoders: dict[Role, EncodeFn] = {
            "passage": encode_passages,
            "query": encode_queries or encode_passages,
        }
        self._cache = cache
        self._recent: OrderedDict[str, np.ndarray] = OrderedDict()

    @classmethod
    def load(
        cls,
        model: str | None = None,
        *,
        threads: int | None = None,
        cache: bool = True,
        api_base: str | None = None,
        dim: int | None = None,
    ) -> Embedder:
        """The offline MiniLM by default, else ``model``: a folder holding a fine-tuned
        encoder (installed into the model store on first use) or the name of one installed
        (:mod:`filingqa.models.embedding`), a fastembed name, or a remote model as
        ``litellm:<litellm model>`` (``litellm:voyage/voyage-finance-2``) at
        ``api_base`` (default ``$FILINGQA_EMBEDDING_API_BASE``), of ``dim`` dimensions
        (default: learned from one call; see :mod:`.remote_embedder`).

        Raises:
            ValueError: fastembed does not know ``model``.
            filingqa.models.store.ModelNotReady: the offline model is not pulled, or a
                fine-tuned encoder is not installed or does not match its pin.
            filingqa.retrieval.index.remote_embedder.EmbeddingEndpointError: a remote model's
                endpoint fails.
        """
        from filingqa.models.embedding import (
            TUNED_MARK,
            install_tuned_encoder,
            installed_tuned_encoder,
            is_tuned_encoder,
            load_tuned_embedding,
        )
        from filingqa.retrieval.index.remote_embedder import REMOTE_PREFIX, remote_embedder

        store = disk_cache(CACHE_NAME) if cache else None
        if model is not None and model.startswith(REMOTE_PREFIX):
            return remote_embedder(model, api_base=api_base, dim=dim, cache=store)
        if model is not None and (is_tuned_encoder(model) or TUNED_MARK in model):
            folder = (
                install_tuned_encoder(Path(model))
                if is_tuned_encoder(model)
                else installed_tuned_encoder(model)
            )
            encoder, tuned = load_tuned_embedding(folder, threads=threads)
            return cls.from_fastembed(encoder.name, encoder.dim, tuned, store)
        if model is None or model in _OFFLINE_NAMES:
            from filingqa.models.embedding import load_text_embedding

            text_model = load_text_embedding(threads=threads)
            return cls.from_fastembed(DEFAULT_MODEL, DEFAULT_EMBEDDING.dim, text_model, store)
        dim = _fastembed_dim(model)
        from fastembed import TextEmbedding

        text_model = TextEmbedding(
            model_name=model, cache_dir=str(models_dir() / "fastembed"), threads=threads
        )
        return cls.from_fastembed(model, dim, text_model, store)

    @classmethod
    def from_fastembed(
        cls, name: str, dim: int, model: TextEmbedding, cache: diskcache.Cache | None
    ) -> Embedder:
        """Wrap a loaded fastembed model (its passage/query prefixes are applied); its
        tokenizer gives the window and the token count."""

        def passages(texts: list[str]) -> np.ndarray:
            return by_length(
                texts, lambda ordered: list(model.passage_embed(ordered, batch_size=PASSAGE_BATCH))
            )

        def queries(texts: list[str]) -> np.ndarray:
            return np.asarray(list(model.query_embed(texts)), dtype=np.float32)

        window, count = _fastembed_tokens(model)
        return cls(name, dim, passages, queries, cache=cache, window=window, count_tokens=count)

    def passage_recipe(self) -> PassageRecipe:
        """How passages are cut and embedded for this model: to fit its window under a
        header, counted by its tokenizer; bare ~512-estimated-token passages when the
        window or the tokenizer is unknown."""
        if self.window is None or self.count_tokens is None:
            return LEGACY
        return recipe_for_window(self.window, self.count_tokens, counted_by=self.name)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        """``(len(texts), dim)`` float32 passage vectors, from the cache where possible."""
        return self._embed(list(texts), "passage")

    def embed_query(self, text: str) -> np.ndarray:
        """The ``(dim,)`` float32 vector of one query (the last :data:`RECENT_QUERIES` are
        kept in memory; treat it as read-only)."""
        vector = self._recent.pop(text, None)
        if vector is None:
            vector = self._embed([text], "query")[0]
        self._recent[text] = vector
        if len(self._recent) > RECENT_QUERIES:
            self._recent.popitem(last=False)
        return vector

    def _embed(self, texts: list[str], role: Role) -> np.ndarray:
        keys = [self._key(text, role) for text in texts]
        found = self._cached(keys)
        missing = {key: text for key, text in zip(keys, texts, strict=True) if key not in found}
        if missing:
            fresh = self._encode(list(missing.values()), role)
            for key, vector in zip(missing, fresh, strict=True):
                found[key] = vector
                if self._cache is not None:
                    self._cache.set(key, vector.tobytes())
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        for row, key in enumerate(keys):
            out[row] = found[key]
        return out

    def _encode(self, texts: list[str], role: Role) -> np.ndarray:
        vectors = np.asarray(self._encoders[role](texts), dtype=np.float32)
        if vectors.shape != (len(texts), self.dim):
            raise ValueError(
                f"embedder {self.name} returned shape {vectors.shape}, "
                f"expected {(len(texts), self.dim)}"
            )
        return vectors

    def _cached(self, keys: list[str]) -> dict[str, np.ndarray]:
        if self._cache is None:
            return {}
        found: dict[str, np.ndarray] = {}
        for key in keys:
            raw = self._cache.get(key)
            if raw is not None:
                found[key] = np.frombuffer(raw, dtype=np.float32)
        return found

    def _key(self, text: str, role: Role) -> str:
        return f"{self.name}|{role}|{hashlib.sha256(text.encode()).hexdigest()}"


def _fastembed_tokens(model: TextEmbedding) -> tuple[int | None, Callable[[str], int] | None]:
    """The window a fastembed model truncates its inputs at, and a count of a text's tokens
    by its tokenizer (untruncated, no special tokens); (None, None) if it has none."""
    tokenizer = getattr(getattr(model, "model", None), "tokenizer", None)
    truncation = getattr(tokenizer, "truncation", None)
    if tokenizer is None or not truncation:
        return None, None
    from tokenizers import Tokenizer

    counter = Tokenizer.from_str(tokenizer.to_str())
    counter.no_truncation()
    counter.no_padding()

    def count(text: str) -> int:
        return len(counter.encode(text, add_special_tokens=False).ids)

    return int(truncation["max_length"]), count


def _fastembed_dim(model: str) -> int:
    from fastembed import TextEmbedding

    try:
        return TextEmbedding.get_embedding_size(model)
    except ValueError:
        raise ValueError(
            f"unknown embedding model {model!r}: use {DEFAULT_MODEL!r} (offline) or a "
            "name from fastembed.TextEmbedding.list_supported_models()"
        ) from None
