"""The embedding facade: caching, roles, validation; the real MiniLM under ``slow``."""

from __future__ import annotations

from pathlib import Path

import diskcache
import numpy as np
import pytest

from filingqa.retrieval.index.embedder import RECENT_QUERIES, Embedder, by_length
from filingqa.retrieval.index.passage_recipe import HEADER_TOKENS, SPECIAL_TOKENS


class CountingEncoder:
    """Deterministic 4-d vectors from text length and vowels; records every call."""

    def __init__(self, offset: float = 0.0) -> None:
        self.calls: list[list[str]] = []
        self.offset = offset

    def __call__(self, texts: list[str]) -> np.ndarray:
        self.calls.append(list(texts))
        return np.array(
            [[len(t), sum(c in "aeiou" for c in t), 1.0, self.offset] for t in texts],
            dtype=np.float32,
        )


@pytest.fixture
def cache(tmp_path: Path) -> diskcache.Cache:
    return diskcache.Cache(str(tmp_path / "cache"))


def test_passages_embed_in_order_with_the_right_shape(cache: diskcache.Cache) -> None:
    embedder = Embedder("fake", 4, CountingEncoder(), cache=cache)
    vectors = embedder.embed_passages(["revenue", "cash"])
    assert vectors.dtype == np.float32
    assert vectors.tolist() == [[7, 4, 1, 0], [4, 1, 1, 0]]


def test_cached_texts_are_never_encoded_again(cache: diskcache.Cache) -> None:
    encoder = CountingEncoder()
    Embedder("fake", 4, encoder, cache=cache).embed_passages(["a b", "c d"])
    fresh = Embedder("fake", 4, encoder, cache=cache)  # e.g. the next indexing run
    vectors = fresh.embed_passages(["c d", "e f", "a b", "e f"])
    assert encoder.calls == [["a b", "c d"], ["e f"]]
    assert vectors[:3].tolist() == [[3, 0, 1, 0], [3, 1, 1, 0], [3, 1, 1, 0]]


def test_cache_is_per_model_name(cache: diskcache.Cache) -> None:
    Embedder("one", 4, CountingEncoder(), cache=cache).embed_passages(["x"])
    other = CountingEncoder(offset=9.0)
    assert Embedder("two", 4, other, cache=cache).embed_passages(["x"])[0, 3] == 9.0
    assert other.calls == [["x"]]


def test_queries_use_their_own_encoder_and_cache_slot(cache: diskcache.Cache) -> None:
    passages, queries = CountingEncoder(), CountingEncoder(offset=1.0)
    embedder = Embedder("fake", 4, passages, queries, cache=cache)
    embedder.embed_passages(["revenue"])
    query = embedder.embed_query("revenue")
    assert query.shape == (4,)
    assert query[3] == 1.0
    assert queries.calls == [["revenue"]]


def test_without_cache_every_call_encodes() -> None:
    encoder = CountingEncoder()
    embedder = Embedder("fake", 4, encoder)
    embedder.embed_passages(["x"])
    embedder.embed_passages(["x"])
    assert len(encoder.calls) == 2


def test_recent_queries_are_kept_in_memory_without_a_cache() -> None:
    encoder = CountingEncoder()
    embedder = Embedder("fake", 4, encoder)
    first = embedder.embed_query("revenue")
    assert np.array_equal(embedder.embed_query("revenue"), first)
    assert encoder.calls == [["revenue"]]
    for n in range(RECENT_QUERIES):
        embedder.embed_query(f"q{n}")
    embedder.embed_query("revenue")  # pushed out by newer queries: encoded again
    assert encoder.calls.count(["revenue"]) == 2


def test_wrong_shape_from_the_model_is_an_error() -> None:
    embedder = Embedder("fake", 3, CountingEncoder())
    with pytest.raises(ValueError, match="shape"):
        embedder.embed_passages(["x"])


def test_unknown_fastembed_model_is_rejected_before_any_download() -> None:
    with pytest.raises(ValueError, match="unknown embedding model"):
        Embedder.load("nobody/no-such-model", cache=False)


@pytest.mark.slow
def test_default_is_the_offline_minilm() -> None:
    embedder = Embedder.load(cache=False)
    assert (embedder.name, embedder.dim) == ("all-MiniLM-L6-v2", 384)
    vectors = embedder.embed_passages(
        ["Net sales increased 8 percent", "Revenue grew eight percent", "Heavy rain is expected"]
    )
    similarity = vectors @ vectors.T
    assert similarity[0, 1] > similarity[0, 2] + 0.2
    assert np.allclose(embedder.embed_query("Revenue grew eight percent"), vectors[1], atol=1e-5)
    assert (
        Embedder.load("sentence-transformers/all-MiniLM-L6-v2", cache=False).name == embedder.name
    )


@pytest.mark.slow
def test_the_offline_minilm_cuts_passages_to_its_window_by_its_tokenizer() -> None:
    embedder = Embedder.load(cache=False)
    assert embedder.window == 256 and embedder.count_tokens is not None
    assert embedder.count_tokens("Consolidated Statement of Cash Flows") == 5
    assert embedder.count_tokens("FY2022") == 4  # f ##y ##20 ##22: more than the estimate's 1
    recipe = embedder.passage_recipe()
    assert recipe.header is not None and recipe.budget.counted_by == "all-MiniLM-L6-v2"
    assert recipe.budget.text == 256 - SPECIAL_TOKENS - HEADER_TOKENS


def test_texts_are_embedded_shortest_first_and_returned_in_their_order() -> None:
    seen: list[list[str]] = []

    def embed(texts: list[str]) -> list[np.ndarray]:
        seen.append(texts)
        return [np.array([float(len(t)), 0.0]) for t in texts]

    vectors = by_length(["a longer passage", "short", "a mid one"], embed)
    assert seen == [["short", "a mid one", "a longer passage"]]
    assert vectors[:, 0].tolist() == [16.0, 5.0, 9.0]
