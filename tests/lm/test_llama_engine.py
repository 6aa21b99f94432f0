import json
from typing import Literal

import dspy
import httpx
import llama_cpp
import pytest
from dspy.lm15 import ContextLengthError, Message, Request

from filingqa.lm.backbone import adapter_for, get_lm, is_embedded, served_url
from filingqa.lm.evidence_first import EvidenceFirstChatAdapter, EvidenceFirstJSONAdapter
from filingqa.lm.llama_engine import (
    MAX_ARRAY_ITEMS,
    LlamaCppEngine,
    Perf,
    _json_schema,
    bounded,
    chat_messages,
    to_response,
)
from filingqa.signatures.rewrite import RewriteQuery

STUB_PERF = Perf(prompt_evaluated=50, prefill_seconds=0.5, generation_seconds=0.25)


class StubLlama:
    """Stands in for llama_cpp.Llama: records calls, returns a canned completion; its
    context's perf counters (:func:`stub_perf_counters`) report ``perf``."""

    def __init__(
        self,
        content: str = "",
        error: Exception | None = None,
        perf: Perf = STUB_PERF,
    ) -> None:
        self.content = content
        self.error = error
        self.calls: list[dict] = []
        self.ctx = self
        self.perf = perf
        self.perf_resets = 0

    def create_chat_completion(self, **kwargs):
        self.calls.append(kwargs)
        if self.error:
            raise self.error
        return {
            "id": "c1",
            "model": "/models/stub.gguf",
            "choices": [{"message": {"content": self.content}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 50, "completion_tokens": 7, "total_tokens": 57},
        }


class StubPerfData:
    """llama.cpp's ``llama_perf_context_data`` as read from a stub's counters."""

    def __init__(self, perf: Perf) -> None:
        self.n_p_eval = perf.prompt_evaluated
        self.t_p_eval_ms = perf.prefill_seconds * 1000
        self.n_eval = 7
        self.t_eval_ms = perf.generation_seconds * 1000


@pytest.fixture(autouse=True)
def stub_perf_counters(monkeypatch: pytest.MonkeyPatch) -> None:
    """llama.cpp's perf functions, read from the stub standing in for the context."""

    def reset(ctx: StubLlama) -> None:
        ctx.perf_resets += 1

    monkeypatch.setattr(llama_cpp, "llama_perf_context_reset", reset)
    monkeypatch.setattr(llama_cpp, "llama_perf_context", lambda ctx: StubPerfData(ctx.perf))


def engine_with(stub: StubLlama) -> LlamaCppEngine:
    """An engine over ``stub`` without saved contexts (the stub has no KV state)."""
    engine = LlamaCppEngine("/models/stub.gguf", prefix_states=0)
    engine._llama = stub
    return engine


class Classify(dspy.Signature):
    """Classify the question."""

    question: str = dspy.InputField()
    kind: Literal["lookup", "computation"] = dspy.OutputField()
    note: str = dspy.OutputField()


def test_json_adapter_requests_reach_llama_as_schema_constrained_json_object() -> None:
    stub = StubLlama('{"kind": "computation", "note": "two lines:\nfirst\nsecond"}')
    lm = dspy.LM("local/stub.gguf", engine=engine_with(stub), cache=False, num_retries=0)
    with dspy.context(lm=lm, adapter=adapter_for(lm)):
        prediction = dspy.Predict(Classify)(question="What was growth?")
    assert prediction.kind == "computation"
    assert prediction.note == "two lines:\nfirst\nsecond"  # raw newlines survived parsing
    response_format = stub.calls[0]["response_format"]
    assert response_format["type"] == "json_object"
    assert response_format["schema"]["properties"]["kind"]["enum"] == ["lookup", "computation"]
    assert stub.calls[0]["temperature"] == 0.0
    assert stub.calls[0]["repeat_penalty"] == 1.0
    assert lm.history[-1]["usage"]["total_tokens"] == 57


COMPLETION = {
    "id": "c1",
    "model": "/models/stub.gguf",
    "choices": [{"message": {"content": "42"}, "finish_reason": "stop"}],
    "usage": {"prompt_tokens": 300, "completion_tokens": 12, "total_tokens": 312},
}


def test_perf_counters_give_cached_tokens_and_prefill_and_generation_seconds() -> None:
    perf = Perf(prompt_evaluated=120, prefill_seconds=1.23449, generation_seconds=0.6)
    response = to_response(COMPLETION, json_mode=False, seconds=2.0, perf=perf)
    usage = response.usage
    assert (usage.input_tokens, usage.output_tokens, usage.total_tokens) == (300, 12, 312)
    assert usage.cache_read_tokens == 180
    assert response.provider_data == {
        "seconds": 2.0,
        "prefill_seconds": 1.234,
        "generation_seconds": 0.6,
    }


def test_without_perf_counters_only_the_total_seconds_are_reported() -> None:
    response = to_response(COMPLETION, json_mode=False, seconds=1.5)
    assert response.usage.cache_read_tokens is None
    assert response.provider_data == {"seconds": 1.5}


def test_each_completion_is_measured_by_the_context_perf_counters_into_dspy_usage() -> None:
    stub = StubLlama(
        "Paris", perf=Perf(prompt_evaluated=20, prefill_seconds=0.5, generation_seconds=0.25)
    )
    lm = dspy.LM("local/stub.gguf", engine=engine_with(stub), cache=False, num_retries=0)
    lm("What is the capital of France?")
    entry = lm.history[-1]
    assert stub.perf_resets == 1
    assert entry["usage"]["prompt_tokens"] == 50
    assert entry["usage"]["prompt_tokens_details"] == {"cached_tokens": 30}
    assert entry["response"].provider_data["prefill_seconds"] == 0.5
    assert entry["response"].provider_data["generation_seconds"] == 0.25


def test_every_list_in_a_schema_gets_an_item_bound_the_grammar_enforces() -> None:
    stub = StubLlama('{"company": "3M", "period": "Q2 FY2023", "variants": ["quick ratio"]}')
    lm = dspy.LM("local/stub.gguf", engine=engine_with(stub), cache=False, num_retries=0)
    with dspy.context(lm=lm, adapter=adapter_for(lm)):
        dspy.Predict(RewriteQuery)(question="Is 3M's quick ratio healthy?")
    variants = stub.calls[0]["response_format"]["schema"]["properties"]["variants"]
    assert variants["maxItems"] == MAX_ARRAY_ITEMS
    assert variants["items"] == {"type": "string", "maxLength": 160}
    nested = {"type": "object", "properties": {"a": {"type": "array", "maxItems": 2}}}
    assert bounded({"$defs": {"X": nested}}) == {"$defs": {"X": nested}}  # kept as given
    assert bounded({"anyOf": [{"type": "array"}]}) == {
        "anyOf": [{"type": "array", "maxItems": MAX_ARRAY_ITEMS}]
    }


def test_generation_uses_every_cpu_unless_told(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("os.cpu_count", lambda: 6)
    assert LlamaCppEngine("/models/stub.gguf").n_threads == 6
    assert LlamaCppEngine("/models/stub.gguf", n_threads=1).n_threads == 1


def test_adapter_for_local_engine_is_json_and_for_others_chat_both_evidence_first() -> None:
    local = dspy.LM("local/x.gguf", engine=LlamaCppEngine("/x.gguf"))
    hosted = dspy.LM("openai/gpt-4o-mini")
    assert type(adapter_for(local)) is EvidenceFirstJSONAdapter
    assert type(adapter_for(hosted)) is EvidenceFirstChatAdapter
    assert type(adapter_for(local, evidence_first=False)) is dspy.JSONAdapter
    assert type(adapter_for(hosted, evidence_first=False)) is dspy.ChatAdapter


def test_context_overflow_becomes_context_length_error() -> None:
    stub = StubLlama(error=ValueError("Requested tokens (9000) exceed context window of 8192"))
    request = Request(model="local", messages=(Message.user("hi"),))
    with pytest.raises(ContextLengthError):
        engine_with(stub).complete(request)


@pytest.mark.parametrize(
    ("response_format", "schema"),
    [
        (None, None),
        ({"type": "json_object"}, None),
        ({"type": "json_schema", "schema": {"type": "object"}}, {"type": "object"}),
        ({"type": "json_schema", "json_schema": {"schema": {"type": "x"}}}, {"type": "x"}),
    ],
)
def test_json_schema_is_found_in_both_shapes(response_format, schema) -> None:
    assert _json_schema(response_format) == schema


def test_system_and_developer_messages_map_to_system_role() -> None:
    request = Request(
        model="local",
        system="Be exact.",
        messages=(
            Message(role="developer", parts=Message.user("rules").parts),
            Message.user("question"),
        ),
    )
    assert chat_messages(request) == [
        {"role": "system", "content": "Be exact."},
        {"role": "system", "content": "rules"},
        {"role": "user", "content": "question"},
    ]


def test_engine_state_round_trips() -> None:
    engine = LlamaCppEngine("/models/m.gguf", n_ctx=4096, seed=7)
    again = LlamaCppEngine.load_state(engine.dump_state())
    assert (again.model_path, again.n_ctx, again.seed) == (engine.model_path, 4096, 7)


class StubServer:
    """A llama.cpp server's chat endpoint over httpx's mock transport."""

    def __init__(self, content: str, status: int = 200) -> None:
        self.content = content
        self.status = status
        self.bodies: list[dict] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.bodies.append(json.loads(request.content))
        assert request.url.path == "/v1/chat/completions"
        if self.status != 200:
            return httpx.Response(self.status, text=self.content)
        return httpx.Response(
            200,
            json={
                "id": "s1",
                "model": "qwen.gguf",
                "choices": [{"message": {"content": self.content}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 40, "completion_tokens": 6, "total_tokens": 46},
            },
        )


def served_lm(server: StubServer) -> dspy.LM:
    lm = get_lm("local@http://127.0.0.1:8000/v1", cache=False)
    lm.engine._client = httpx.Client(transport=httpx.MockTransport(server))
    return lm


def test_a_served_local_model_gets_the_in_process_requests() -> None:
    server = StubServer('{"kind": "lookup", "note": "a\nb"}')
    lm = served_lm(server)
    with dspy.context(lm=lm, adapter=adapter_for(lm)):
        prediction = dspy.Predict(Classify)(question="What was revenue?")
    assert isinstance(adapter_for(lm), dspy.JSONAdapter)
    assert prediction.kind == "lookup" and prediction.note == "a\nb"
    body = server.bodies[0]
    assert body["response_format"]["type"] == "json_object"  # never OpenAI's json_schema
    assert body["response_format"]["schema"]["properties"]["kind"]["enum"] == [
        "lookup",
        "computation",
    ]
    assert (body["temperature"], body["repeat_penalty"], body["min_p"]) == (0.0, 1.0, 0.05)
    assert lm.history[-1]["usage"]["total_tokens"] == 46


def test_a_server_context_overflow_is_a_context_length_error() -> None:
    server = StubServer("Requested tokens (9000) exceed context window of 8192", status=400)
    engine = served_lm(server).engine
    request = Request(model="local", messages=[Message.user("hi")])
    with pytest.raises(ContextLengthError):
        engine.complete(request)


def test_served_url_and_embedded_specs() -> None:
    assert served_url("local@http://127.0.0.1:8000/v1") == "http://127.0.0.1:8000/v1"
    assert served_url("local") is None and served_url("openai/gpt-4o-mini") is None
    assert is_embedded("local@http://h/v1") and is_embedded("local:/m.gguf")
    assert not is_embedded("openai/gpt-4o-mini")
