"""Samples decoded together: the hint, stop strings, and the engine answering each seed's
request from one batch."""

from __future__ import annotations

from typing import Any

import pytest
from dspy.lm15 import Config, Message, Request

import filingqa.lm.llama_engine as llama_engine
from filingqa.lm.llama_engine import LlamaCppEngine
from filingqa.lm.parallel_samples import (
    Decoded,
    DecodedTogether,
    Draws,
    _Stream,
    draws_together,
    sampled_together,
)


def test_the_hint_holds_inside_its_block_only() -> None:
    assert draws_together() is None
    with sampled_together([1, 2, 2, 3], temperature=0.7):
        assert draws_together() == Draws((1, 2, 3), 0.7, greedy=True)
        assert draws_together().batch() == (None, 1, 2, 3)
    assert draws_together() is None


def test_without_seeds_there_is_nothing_to_decode_together() -> None:
    with sampled_together([], temperature=0.7):
        assert draws_together() is None


def test_a_stream_ends_before_its_first_stop_string() -> None:
    stream = _Stream(["\n```\n"])
    for piece in (b"result = 1", b"\n``", b"`\nmore"):
        stream.add(piece)
    assert stream.done
    stream.finish("stop")
    assert stream.decoded() == Decoded(text="result = 1", tokens=3, finish_reason="stop")


class FakeFormatter:
    """Stands in for the chat template: the prompt is the last message's text."""

    def __call__(self, messages: list[dict[str, str]]) -> Any:
        class Formatted:
            prompt = messages[-1]["content"]
            added_special = True

        return Formatted()


class FakeLlama:
    def tokenize(self, text: bytes, add_bos: bool, special: bool) -> list[int]:
        return list(text)


@pytest.fixture
def engine(monkeypatch: pytest.MonkeyPatch) -> tuple[LlamaCppEngine, list[tuple]]:
    """An engine over a fake model whose batches are recorded, not decoded."""
    batches: list[tuple] = []

    def decode(llama: Any, prompt: list[int], seeds: list[int], settings: Any, **kw: Any):
        batches.append((tuple(seeds), settings.temperature, kw["max_tokens"]))
        decoded = [
            Decoded(text=f"result = {seed}", tokens=4, finish_reason="stop") for seed in seeds
        ]
        return DecodedTogether(
            decoded, prompt_evaluated=len(prompt), prefill_seconds=1.0, generation_seconds=2.0
        )

    monkeypatch.setattr(llama_engine, "decode_together", decode)
    monkeypatch.setattr(llama_engine, "reset_perf", lambda llama: None)
    monkeypatch.setattr(llama_engine, "read_perf", lambda llama: llama_engine.Perf(0, 0.0, 0.0))
    fake = LlamaCppEngine("/models/stub.gguf", prefix_states=0)
    fake._llama = FakeLlama()
    fake._template = FakeFormatter()
    return fake, batches


def sampled(seed: int | None, text: str = "write it") -> Request:
    """The request for ``text`` at ``seed`` (temperature 0.7), or greedy for None."""
    if seed is None:
        config = Config(temperature=0.0, max_tokens=50)
    else:
        config = Config(temperature=0.7, seed=seed, max_tokens=50)
    return Request(model="local", messages=(Message.user(text),), config=config)


def test_the_first_listed_request_decodes_every_draw_and_the_others_are_served(
    engine: tuple[LlamaCppEngine, list[tuple]],
) -> None:
    fake, batches = engine
    with sampled_together([1, 2, 3], temperature=0.7):
        replies = [fake.complete(sampled(seed)) for seed in (None, 1, 2, 3)]
    assert batches == [((None, 1, 2, 3), 0.7, 50)]
    texts = [r.message.text for r in replies]
    assert texts == ["result = None", "result = 1", "result = 2", "result = 3"]
    first, *rest = replies
    assert first.usage.input_tokens == len("write it")
    assert first.provider_data["prefill_seconds"] == 1.0  # the batch's cost, counted once
    assert all(r.provider_data["seconds"] == 0.0 for r in rest)


def test_another_prompt_is_decoded_afresh(engine: tuple[LlamaCppEngine, list[tuple]]) -> None:
    fake, batches = engine
    with sampled_together([1, 2], temperature=0.7):
        fake.complete(sampled(1, "first question"))
        fake.complete(sampled(1, "second question"))
    assert len(batches) == 2


def test_without_the_hint_or_switched_off_nothing_is_batched(
    engine: tuple[LlamaCppEngine, list[tuple]], monkeypatch: pytest.MonkeyPatch
) -> None:
    fake, batches = engine
    plain: list[dict] = []

    def chat(**kwargs: Any) -> dict:
        plain.append(kwargs)
        return {"choices": [{"message": {"content": "x"}, "finish_reason": "stop"}], "usage": {}}

    fake._llama.create_chat_completion = chat
    fake.complete(sampled(1))
    with sampled_together([1, 2], temperature=0.5):
        fake.complete(sampled(1))  # another temperature than the one listed
    fake.parallel_samples = False
    with sampled_together([1, 2], temperature=0.7):
        fake.complete(sampled(1))
    assert batches == []
    assert [call["seed"] for call in plain] == [1, 1, 1]
