"""The remote rerank stage, against a loopback server speaking the ``/v1/rerank`` protocol:
the order it makes, the pipeline stage it is (off by default), and its failures."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from types import SimpleNamespace

import pytest

from filingqa.cli.options import rerank_settings
from filingqa.evaluation.modes import reranked_search
from filingqa.evaluation.open_corpus import OpenCorpus
from filingqa.retrieval.index.remote_embedder import RemoteModelError, Retry
from filingqa.retrieval.search.pipeline import FilingSearch, SearchSettings
from filingqa.retrieval.search.remote_rerank import (
    API_BASE_ENV,
    API_KEY_ENV,
    RemoteReranker,
    RerankEndpointError,
)

from ..model_server import ModelServer, model_server

MODEL = "hosted_vllm/stub-rerank"
NO_WAIT = Retry(attempts=2, backoff=0.0)
QUESTION = "What was Acme's revenue in fiscal 2024?"


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[ModelServer]:
    for variable in (API_BASE_ENV, API_KEY_ENV, "HOSTED_VLLM_API_KEY"):
        monkeypatch.delenv(variable, raising=False)
    with model_server() as running:
        yield running


def test_documents_come_back_in_the_models_order(server: ModelServer) -> None:
    reranker = RemoteReranker(MODEL, server.base)
    documents = ["cash flow", "total revenue grew", "revenue", "risk factors"]
    ordered = reranker.order("total revenue", documents, str)
    assert ordered == ["total revenue grew", "revenue", "cash flow", "risk factors"]
    [request] = server.requests
    assert request.path == "/v1/rerank"
    assert request.body["model"] == "stub-rerank"
    assert request.body["query"] == "total revenue"
    assert request.body["documents"] == documents
    assert request.body["top_n"] == len(documents)  # every document scored


def test_the_api_base_comes_from_the_environment(
    server: ModelServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(API_BASE_ENV, server.base)
    assert RemoteReranker(MODEL).scores("revenue", ["revenue", "cash"]) == [1.0, 0.0]
    assert RemoteReranker(MODEL).where() == f"rerank model {MODEL} at {server.base}"


def test_a_transient_failure_is_retried(server: ModelServer) -> None:
    server.fail((503, {"error": {"message": "loading model"}}))
    reranker = RemoteReranker(MODEL, server.base, retry=NO_WAIT)
    assert reranker.order("revenue", ["cash", "revenue"], str) == ["revenue", "cash"]
    assert len(server.requests) == 2


def test_a_failure_that_stays_raises_the_clear_error(server: ModelServer) -> None:
    server.fail(*[(503, {"error": {"message": "loading model"}})] * 2)
    reranker = RemoteReranker(MODEL, server.base, retry=NO_WAIT)
    with pytest.raises(RerankEndpointError, match=r"stub-rerank at http://127.*2 attempts"):
        reranker.order("revenue", ["cash", "revenue"], str)
    assert issubclass(RerankEndpointError, RemoteModelError)


@pytest.mark.parametrize(
    "results",
    [
        [{"index": 0, "relevance_score": 0.5}],  # a document left unscored
        [{"index": 0, "relevance_score": 0.5}, {"index": 0, "relevance_score": 0.4}],
        [{"index": 0, "relevance_score": 0.5}, {"index": 7, "relevance_score": 0.4}],
        [{"index": 0, "relevance_score": 0.5}, {"index": 1}],
    ],
)
def test_a_malformed_answer_is_an_error_not_an_order(
    server: ModelServer, results: list[dict[str, float]]
) -> None:
    server.fail(*[(200, {"id": "x", "results": results})] * NO_WAIT.attempts)
    with pytest.raises(RerankEndpointError):
        RemoteReranker(MODEL, server.base, retry=NO_WAIT).scores("q", ["a", "b"])


def test_the_stage_is_off_by_default(search: FilingSearch) -> None:
    assert SearchSettings().remote_rerank is None
    assert SearchSettings().remote_reranker() is None
    assert search.ranked(QUESTION, k=3)  # no server needed


def test_the_stage_reorders_the_first_candidates_by_the_models_scores(
    search: FilingSearch, server: ModelServer
) -> None:
    before = search.with_settings(spread=0).ranked(QUESTION, k=4)
    texts = [r.passage.text for r in before]
    server.score = lambda query, document: float(texts.index(document))  # last is best
    remote = search.with_settings(
        spread=0, remote_rerank=MODEL, remote_rerank_api_base=server.base, remote_depth=4
    )
    after = remote.ranked(QUESTION, k=4)
    assert [r.passage.id for r in after] == [r.passage.id for r in reversed(before)]
    [request] = server.of("/v1/rerank")
    assert request.body["query"] == QUESTION
    assert request.body["documents"] == texts
    assert "reranked from #" in " ".join(after[0].why)


def test_a_failing_endpoint_fails_the_search(search: FilingSearch, server: ModelServer) -> None:
    server.fail((400, {"error": {"message": "documents too long"}}))
    remote = search.with_settings(remote_rerank=MODEL, remote_rerank_api_base=server.base)
    with pytest.raises(RerankEndpointError, match="documents too long"):
        remote.ranked(QUESTION, k=3)


def test_a_compiled_programs_recorded_settings_reach_its_search(search: FilingSearch) -> None:
    recorded = {"remote_rerank": MODEL, "remote_rerank_api_base": "http://127.0.0.1:9/v1"}
    qa = SimpleNamespace(reranker=None, search_settings=recorded)
    handle = reranked_search(OpenCorpus(search=search, plain=search), qa)  # type: ignore[arg-type]
    assert isinstance(handle, FilingSearch)
    assert handle.settings.remote_reranker() == RemoteReranker(MODEL, "http://127.0.0.1:9/v1")


def test_the_command_line_options_name_the_stage() -> None:
    given = argparse.Namespace(rerank_model=MODEL, rerank_api_base="http://127.0.0.1:8080/v1")
    changes = rerank_settings(given)
    assert SearchSettings.model_validate(changes).remote_reranker() == RemoteReranker(
        MODEL, "http://127.0.0.1:8080/v1"
    )
    assert rerank_settings(argparse.Namespace(rerank_model=None, rerank_api_base=None)) == {}
    with pytest.raises(ValueError, match="--rerank-model"):
        rerank_settings(argparse.Namespace(rerank_model=None, rerank_api_base="http://x/v1"))
