"""Completions of one prompt decoded together, as parallel sequences of one batch.

Decoding one token reads every weight; decoding the next token of several sequences in one
batch reads them once. Self-consistency asks one prompt for a greedy program and several
sampled ones: the prompt is evaluated once, its KV cells are shared by every sequence
(``llama_memory_seq_cp``), and each step decodes one token of every unfinished sequence,
each drawn by its own sampler chain (greedy, or top-k, top-p, min-p, temperature and a
draw seeded per sequence).

A program asks for this with :func:`sampled_together`; an engine that can (the in-process
:class:`~filingqa.lm.llama_engine.LlamaCppEngine`) decodes every listed draw on the first
such request and answers the others from what it decoded; any other engine ignores it.
"""

from __future__ import annotations

import contextvars
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from filingqa.lm.prefix_states import shared_prefix

MAX_SEQUENCES = 8  # the parallel sequences the in-process context is created for

Draw = int | None
"""One sequence of a batch: the seed it samples with, or None for the greedy one."""


@dataclass(frozen=True)
class Draws:
    """What :func:`sampled_together` lists: seeds sampled at ``temperature``, and whether the
    greedy request of the same prompt joins them."""

    seeds: tuple[int, ...]
    temperature: float
    greedy: bool

    def batch(self) -> tuple[Draw, ...]:
        """The sequences to decode, greedy first."""
        return ((None,) if self.greedy else ()) + self.seeds


_TOGETHER: contextvars.ContextVar[Draws | None] = contextvars.ContextVar(
    "filingqa_sampled_together", default=None
)


@contextmanager
def sampled_together(
    seeds: Iterable[int], *, temperature: float, greedy: bool = True
) -> Iterator[None]:
    """Within this block, requests for the same prompt sampled at ``temperature`` with any
    of ``seeds`` (and, with ``greedy``, its greedy request) may be decoded together on the
    first of them. Without seeds there is nothing to decode together."""
    draws = Draws(tuple(dict.fromkeys(seeds)), temperature, greedy)
    token = _TOGETHER.set(draws if draws.seeds else None)
    try:
        yield
    finally:
        _TOGETHER.reset(token)


def draws_together() -> Draws | None:
    """What :func:`sampled_together` listed here, if anything."""
    return _TOGETHER.get()


@dataclass(frozen=True)
class SamplerSettings:
    """How the sampled sequences draw their tokens (the greedy one takes the likeliest)."""

    temperature: float
    top_k: int
    top_p: float
    min_p: float


@dataclass(frozen=True)
class Decoded:
    """One sequence's completion: its text, generated tokens and why it ended."""

    text: str
    tokens: int
    finish_reason: str  # "stop" or "length"


@dataclass(frozen=True)
class DecodedTogether:
    """Every sequence's completion, and what the batch cost: prompt tokens evaluated (not
    reused from the live context), seconds on the prompt and on decoding."""

    decoded: list[Decoded]
    prompt_evaluated: int
    prefill_seconds: float
    generation_seconds: float


def decode_together(
    llama: Any,
    prompt: Sequence[int],
    draws: Sequence[Draw],
    settings: SamplerSettings,
    *,
    max_tokens: int,
    stop: Sequence[str] = (),
) -> DecodedTogether:
    """One completion of ``prompt`` per draw, decoded as parallel sequences of ``llama``.

    The prompt is evaluated through llama-cpp-python (so a shared prefix with the live
    context is reused); afterwards the live context is the prompt alone. Each text ends
    before the first of ``stop`` or the end-of-generation token.
    """
    import llama_cpp

    if not 1 <= len(draws) <= MAX_SEQUENCES:
        raise ValueError(f"decode 1 to {MAX_SEQUENCES} sequences together, not {len(draws)}")
    started = time.perf_counter()
    evaluated = _evaluate(llama, list(prompt))
    start = len(prompt)
    prefilled = time.perf_counter()
    memory = llama_cpp.llama_get_memory(llama.ctx)
    for sequence in range(1, len(draws)):
        llama_cpp.llama_memory_seq_cp(memory, 0, sequence, -1, -1)
    samplers = [_sampler(settings, draw) for draw in draws]
    vocab = llama_cpp.llama_model_get_vocab(llama.model)
    streams = [_Stream(stop) for _ in draws]
    batch = llama_cpp.llama_batch_init(len(draws), 0, 1)
    try:
        positions = {sequence: -1 for sequence in range(len(draws))}  # logits index per seq
        for step in range(max_tokens):
            live = [s for s, stream in enumerate(streams) if not stream.done]
            batch.n_tokens = 0
            for sequence in live:
                token = llama_cpp.llama_sampler_sample(
                    samplers[sequence], llama.ctx, positions[sequence]
                )
                stream = streams[sequence]
                if llama_cpp.llama_vocab_is_eog(vocab, token):
                    stream.finish("stop")
                    continue
                stream.add(llama.detokenize([token]))
                if stream.done or step == max_tokens - 1:
                    stream.finish("stop" if stream.done else "length")
                    continue
                _add(batch, token, start + step, sequence)
                positions[sequence] = batch.n_tokens - 1
            if batch.n_tokens == 0:
                break
            if llama_cpp.llama_decode(llama.ctx, batch) != 0:
                raise RuntimeError("llama.cpp could not decode the sampled sequences")
        for stream in streams:
            stream.finish("length")
    finally:
        llama_cpp.llama_batch_free(batch)
        for sampler in samplers:
            llama_cpp.llama_sampler_free(sampler)
        for sequence in range(1, len(draws)):
            llama_cpp.llama_memory_seq_rm(memory, sequence, -1, -1)
        llama_cpp.llama_memory_seq_rm(memory, 0, start, -1)
        llama.n_tokens = start
        llama._requires_eval = True  # the logits are the last sequence's, not the prompt's
    return DecodedTogether(
        decoded=[stream.decoded() for stream in streams],
        prompt_evaluated=evaluated,
        prefill_seconds=prefilled - started,
        generation_seconds=time.perf_counter() - prefilled,
    )


def _evaluate(llama: Any, prompt: list[int]) -> int:
    """Evaluate ``prompt`` on sequence 0 after the prefix it shares with the live context
    (at least its last token, for fresh logits); returns how many tokens it evaluated."""
    live = llama.input_ids[: llama.n_tokens].tolist()
    shared = min(shared_prefix(live, prompt), len(prompt) - 1)
    llama.n_tokens = shared
    llama.eval(prompt[shared:])  # removes every cell past the shared prefix first
    return len(prompt) - shared


def _sampler(settings: SamplerSettings, draw: Draw) -> Any:
    """The sampler chain of one sequence: the likeliest token for the greedy draw (as
    llama-cpp-python samples at temperature 0), else top-k, top-p, min-p, temperature and
    a draw seeded ``draw``."""
    import llama_cpp

    chain = llama_cpp.llama_sampler_chain_init(llama_cpp.llama_sampler_chain_default_params())
    if draw is None:
        llama_cpp.llama_sampler_chain_add(chain, llama_cpp.llama_sampler_init_greedy())
        return chain
    for sampler in (
        llama_cpp.llama_sampler_init_top_k(settings.top_k),
        llama_cpp.llama_sampler_init_top_p(settings.top_p, 1),
        llama_cpp.llama_sampler_init_min_p(settings.min_p, 1),
        llama_cpp.llama_sampler_init_temp(settings.temperature),
        llama_cpp.llama_sampler_init_dist(draw),
    ):
        llama_cpp.llama_sampler_chain_add(chain, sampler)
    return chain


def _add(batch: Any, token: int, position: int, sequence: int) -> None:
    index = batch.n_tokens
    batch.token[index] = token
    batch.pos[index] = position
    batch.n_seq_id[index] = 1
    batch.seq_id[index][0] = sequence
    batch.logits[index] = True
    batch.n_tokens = index + 1


class _Stream:
    """One sequence's bytes so far, cut at the first stop string."""

    def __init__(self, stop: Sequence[str]) -> None:
        self.stop = [s for s in stop if s]
        self.data = b""
        self.tokens = 0
        self.done = False
        self.reason = ""

    def add(self, piece: bytes) -> None:
        self.data += piece
        self.tokens += 1
        text = self.data.decode("utf-8", errors="ignore")
        cut = min((i for i in (text.find(s) for s in self.stop) if i >= 0), default=-1)
        if cut >= 0:
            self.data = text[:cut].encode("utf-8")
            self.done = True

    def finish(self, reason: str) -> None:
        if not self.reason:
            self.reason = reason
        self.done = True

    def decoded(self) -> Decoded:
        text = self.data.decode("utf-8", errors="ignore")
        return Decoded(text=text, tokens=self.tokens, finish_reason=self.reason or "stop")
