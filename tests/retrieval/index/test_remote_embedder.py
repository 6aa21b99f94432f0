"""Remote embedding models through litellm, against a loopback server speaking OpenAI's and
Voyage's embeddings protocol: shapes, order, roles, batching, caching, keys, failures, and
an index built with one recording its name."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import diskcache
import numpy as np
import pytest

from filingqa.retrieval.index.build import build_index
from filingqa.retrieval.index.embedder import Embedder
from filingqa.retrieval.index.passage_index import PassageIndex
from filingqa.retrieval.index.point_store import IndexMismatchError
from filingqa.retrieval.index.remote_embedder import (
    API_BASE_ENV,
    API_KEY_ENV,
    EmbeddingEndpointError,
    RemoteModelError,
    Retry,
    litellm_model,
    remote_embedder,
)
from filingqa.retrieval.search.pipeline import FilingSearch

from ..filings import DIM, fake_embedder, write_filings
from ..model_server import ModelServer, as_array, bag_of_words, model_server

NAME = "litellm:openai/stub-embed"
NO_WAIT = Retry(attempts=2, backoff=0.0)


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[ModelServer]:
    for variable in (API_BASE_ENV, API_KEY_ENV, "OPENAI_API_KEY", "VOYAGE_API_KEY"):
        monkeypatch.delenv(variable, raising=False)
    with model_server() as running:
        yield running


@pytest.fixture
def cache(tmp_path: Path) -> diskcache.Cache:
    return diskcache.Cache(str(tmp_path / "cache"))


def test_load_embeds_passages_and_queries_through_the_server(
    server: ModelServer, isolated_home: Path
) -> None:
    embedder = Embedder.load(NAME, api_base=server.base)
    assert (embedder.name, embedder.dim) == (NAME, DIM)  # learned from one probe call
    texts = ["Total revenue was 1,250.0", "Net income rose", "cash and equivalents"]
    passages = embedder.embed_passages(texts)
    query = embedder.embed_query("What was revenue?")
    assert passages.dtype == np.float32 and passages.shape == (3, DIM)
    assert np.array_equal(passages, as_array([bag_of_words(t) for t in texts]))  # in order
    assert query.shape == (DIM,)
    assert np.array_equal(query, as_array([bag_of_words("What was revenue?")])[0])
    embedded = server.of("/v1/embeddings")
    assert [r.body["model"] for r in embedded] == ["stub-embed"] * 3
    assert embedded[1].body["input"] == texts
    assert "input_type" not in embedded[1].body  # OpenAI's protocol has none


def test_vectors_and_the_dimension_are_cached(server: ModelServer, cache: diskcache.Cache) -> None:
    first = remote_embedder(NAME, api_base=server.base, cache=cache)
    first.embed_passages(["revenue", "income"])
    calls = len(server.requests)
    again = remote_embedder(NAME, api_base=server.base, cache=cache)  # e.g. the next run
    vectors = again.embed_passages(["income", "revenue"])
    assert again.dim == DIM
    assert len(server.requests) == calls  # no probe, no embedding
    assert np.array_equal(vectors, as_array([bag_of_words("income"), bag_of_words("revenue")]))
    again.embed_passages(["income", "cash"])
    assert server.requests[-1].body["input"] == ["cash"]


def test_texts_go_in_batches_and_come_back_in_order(server: ModelServer) -> None:
    embedder = remote_embedder(NAME, api_base=server.base, dim=DIM, batch=2)
    texts = [f"text number {i}" for i in range(5)]
    vectors = embedder.embed_passages(texts)
    assert [r.body["input"] for r in server.requests] == [texts[0:2], texts[2:4], texts[4:]]
    assert np.array_equal(vectors, as_array([bag_of_words(t) for t in texts]))


def test_the_api_base_comes_from_the_environment(
    server: ModelServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(API_BASE_ENV, server.base)
    embedder = Embedder.load(NAME, cache=False, dim=DIM)
    assert embedder.embed_query("revenue").shape == (DIM,)
    assert len(server.of("/v1/embeddings")) == 1


def test_a_local_server_never_gets_the_openai_key(
    server: ModelServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-real-openai-key")
    remote_embedder(NAME, api_base=server.base, dim=DIM).embed_query("revenue")
    monkeypatch.setenv(API_KEY_ENV, "served-key")
    remote_embedder(NAME, api_base=server.base, dim=DIM).embed_query("income")
    sent = [
        r.headers.get("authorization") or r.headers.get("Authorization") for r in server.requests
    ]
    assert sent == ["Bearer none", "Bearer served-key"]


def test_voyage_models_embed_each_role_with_its_input_type(
    server: ModelServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VOYAGE_API_KEY", "voyage-key")
    embedder = remote_embedder("litellm:voyage/voyage-finance-2", api_base=server.base, dim=DIM)
    embedder.embed_passages(["Total revenue"])
    embedder.embed_query("revenue?")
    bodies = [r.body for r in server.of("/embeddings")]
    assert [(b["model"], b["input_type"]) for b in bodies] == [
        ("voyage-finance-2", "document"),
        ("voyage-finance-2", "query"),
    ]
    assert server.requests[0].headers.get("Authorization") == "Bearer voyage-key"


def test_a_refused_request_raises_at_once_naming_model_and_server(server: ModelServer) -> None:
    server.fail((401, {"error": {"message": "invalid key"}}))
    embedder = remote_embedder(NAME, api_base=server.base, dim=DIM, retry=NO_WAIT)
    with pytest.raises(EmbeddingEndpointError, match=r"openai/stub-embed at http://127") as info:
        embedder.embed_passages(["revenue"])
    assert "invalid key" in str(info.value)
    assert len(server.requests) == 1  # a wrong key is not retried
    assert isinstance(info.value, RemoteModelError) and isinstance(info.value, RuntimeError)


def test_an_answer_missing_vectors_is_an_error_not_garbage(server: ModelServer) -> None:
    only_one = {"data": [{"embedding": [1.0] * DIM, "index": 0}], "model": "x", "usage": {}}
    server.fail((200, only_one))
    embedder = remote_embedder(NAME, api_base=server.base, dim=DIM, retry=NO_WAIT)
    with pytest.raises(EmbeddingEndpointError, match="1 embeddings for 2 texts"):
        embedder.embed_passages(["revenue", "income"])


def test_a_wrong_dimension_is_refused(server: ModelServer) -> None:
    embedder = remote_embedder(NAME, api_base=server.base, dim=DIM + 1)
    with pytest.raises(ValueError, match="expected"):
        embedder.embed_query("revenue")


def test_a_failing_probe_fails_the_load(server: ModelServer) -> None:
    server.fail((404, {"error": {"message": "model stub-embed not found"}}))
    with pytest.raises(EmbeddingEndpointError, match="not found"):
        Embedder.load(NAME, api_base=server.base, cache=False)


def test_names_must_be_litellm_models() -> None:
    assert litellm_model("litellm:voyage/voyage-finance-2") == "voyage/voyage-finance-2"
    for bad in ("openai/text-embedding-3-small", "litellm:no-provider"):
        with pytest.raises(ValueError, match="litellm:<provider>/<model>"):
            litellm_model(bad)


def test_an_index_built_with_a_remote_model_records_it(server: ModelServer, tmp_path: Path) -> None:
    files = write_filings(tmp_path / "filings")
    remote = remote_embedder(NAME, api_base=server.base)
    build_index(tmp_path / "index", paths=files, embedder=remote, progress=False)
    with pytest.raises(IndexMismatchError, match=f"embedder={NAME!r}"):
        PassageIndex.open(tmp_path / "index", fake_embedder())
    reopened = remote_embedder(NAME, api_base=server.base)
    with closing(FilingSearch.open(tmp_path / "index", reranker=None, embedder=reopened)) as search:
        [hit] = search.ranked("What was Acme's revenue in fiscal 2024?", k=1)
    assert hit.passage.doc_id == "ACME_2024_10K"
