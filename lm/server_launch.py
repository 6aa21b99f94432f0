"""A GGUF served by llama-cpp-python's OpenAI-compatible server on loopback, and the
server's own per-request timings read back from its log.

:func:`served_model` starts ``python -m llama_cpp.server`` for a GGUF on 127.0.0.1 (a free
port), waits until ``/v1/models`` answers, yields the ``.../v1`` base URL (for the
``local@URL`` backbone) and the log file, and stops the server on exit.
:func:`server_timings` parses that log (written with ``verbose``) into one
:class:`ServerTiming` per request: how many prompt tokens llama.cpp evaluated — the rest
came from the KV cache — and the prefill and generation milliseconds.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

STARTUP_SECONDS = 180
STOP_SECONDS = 30
RAM_CACHE_BYTES = 128 << 20
"""``--cache_size`` when ``cache=True``: counted in llama.cpp state bytes only (the KV of
the cached tokens). Each cached state also carries up to ``n_batch`` × vocabulary float32
scores that the capacity check does not count, so the budget is kept small (sizes:
docs/experiments.md, fast inference)."""


@dataclass(frozen=True)
class ServedModel:
    """A running server: ``url`` is the OpenAI base (``http://127.0.0.1:PORT/v1``),
    ``log_path`` its stdout and stderr."""

    url: str
    log_path: Path

    def timings(self) -> list[ServerTiming]:
        """The per-request timings logged so far (the server must be verbose)."""
        return server_timings(self.log_path.read_text(errors="replace"))


def server_command(
    model_path: str | Path, *, port: int, n_ctx: int, cache: bool, verbose: bool = True
) -> list[str]:
    """The command line of a llama-cpp-python server for ``model_path`` on 127.0.0.1:``port``.

    Prefix reuse needs no flag: the server keeps one ``Llama`` and, like the in-process
    engine, evaluates only the tokens after the longest common prefix of the new prompt and
    the tokens in its KV cache (``Llama.generate``: "N prefix-match hit, remaining M prompt
    tokens to eval"). Requests of one question share their leading block and come one after
    another, so that live KV already serves them.

    ``--logits_all false``: the server defaults to ``true`` (``Llama`` in process to
    ``false``), which computes and copies the logits of every prompt token into an
    ``n_ctx`` × vocabulary float32 array (gigabytes at full context with Qwen's vocabulary)
    and changes the last layer's batch shape from the in-process one. Only ``logprobs``
    requests need it; the engine sends none.

    ``cache`` adds ``--cache true --cache_type ram --cache_size`` :data:`RAM_CACHE_BYTES`:
    after every completion ``LlamaRAMCache`` stores a ``save_state()`` (KV plus the
    ``scores`` array) keyed by prompt+completion tokens, and loads the stored state with
    the longest common prefix when it beats the live KV. That helps only when requests of
    different questions interleave (several clients); it costs a copy of the scores a
    request, and its capacity check counts ``llama_state_size`` alone, not the scores, so
    the default 2 GiB budget lets the cache grow far past 2 GiB of memory (the measured
    sizes: docs/experiments.md, fast inference). So the benchmark runs without it, and
    ``cache=True`` gets a small budget. The disk cache (``cache_type disk``) pickles the
    same scores to ``.cache/llama_cache`` under the server's working directory.
    """
    command = [
        sys.executable,
        "-m",
        "llama_cpp.server",
        "--model",
        str(model_path),
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--n_ctx",
        str(n_ctx),
        "--logits_all",
        "false",
        "--verbose",
        "true" if verbose else "false",
    ]
    if cache:
        command += ["--cache", "true", "--cache_type", "ram"]
        command += ["--cache_size", str(RAM_CACHE_BYTES)]
    return command


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def served_model(
    model_path: str | Path, *, n_ctx: int, cache: bool, verbose: bool = True
) -> Iterator[ServedModel]:
    """A llama-cpp-python server for ``model_path`` on loopback, once it answers; stopped
    on exit. Settings: :func:`server_command`. The log file outlives the server."""
    port = free_port()
    handle, name = tempfile.mkstemp(prefix="llama-server-", suffix=".log")
    os.close(handle)
    log_path = Path(name)
    command = server_command(model_path, port=port, n_ctx=n_ctx, cache=cache, verbose=verbose)
    # A file, not a pipe: llama.cpp logs the model load verbosely, and a full pipe blocks it.
    with log_path.open("wb") as sink:
        server = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT)
    try:
        url = f"http://127.0.0.1:{port}/v1"
        _wait_until_ready(server, url, log_path)
        yield ServedModel(url=url, log_path=log_path)
    finally:
        _stop(server)


def _wait_until_ready(server: subprocess.Popen, url: str, log_path: Path) -> None:
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        if server.poll() is not None:
            tail = log_path.read_text(errors="replace")[-2000:]
            raise RuntimeError(f"the server exited (log {log_path}): {tail}")
        try:
            httpx.get(f"{url}/models", timeout=2).raise_for_status()
            return
        except httpx.HTTPError:
            time.sleep(1)
    raise RuntimeError(f"the server did not answer within {STARTUP_SECONDS} s (log {log_path})")


def _stop(server: subprocess.Popen) -> None:
    if server.poll() is not None:
        return
    server.terminate()
    try:
        server.wait(timeout=STOP_SECONDS)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()


@dataclass(frozen=True)
class ServerTiming:
    """llama.cpp's counters for one request, as the verbose server prints them.

    ``prompt_tokens``: prompt tokens evaluated in batches (llama.cpp prints at least 1; a
    lone leftover token is counted under ``generated_tokens`` instead). ``generated_tokens``:
    single-token evaluations ("runs"), about one per generated token (the last sampled token
    is not evaluated). ``prefix_hit_tokens``: tokens reused from the KV cache, when the
    server printed a prefix-match hit (None when it did not: a cold or unrelated prompt).
    """

    prompt_tokens: int
    prefill_ms: float
    generated_tokens: int
    generation_ms: float
    prefix_hit_tokens: int | None = None


_PREFIX_HIT = re.compile(r"Llama\.generate: (\d+) prefix-match hit")
_PROMPT_EVAL = re.compile(r"prompt eval time =\s*([\d.]+) ms /\s*(\d+) tokens")
_EVAL = re.compile(r"(?<!prompt )eval time =\s*([\d.]+) ms /\s*(\d+) runs")
_ACCESS = re.compile(r'"POST \S+ HTTP/[\d.]+"')


def server_timings(log_text: str) -> list[ServerTiming]:
    """One :class:`ServerTiming` per request in a verbose llama-cpp-python server log.

    A request's block is an optional ``Llama.generate: N prefix-match hit`` line, then
    ``llama_perf_context_print`` lines whose ``prompt eval time`` and ``eval time`` are
    per request (the server resets the counters before each completion); the request's
    access line (``"POST ... HTTP/1.1" 200``) closes the block. Other lines (model load,
    cache messages) are ignored; a block without an ``eval time`` line is dropped.
    """
    timings: list[ServerTiming] = []
    hit: int | None = None
    prompt: tuple[float, int] | None = None
    for line in log_text.splitlines():
        if _ACCESS.search(line):
            hit, prompt = None, None
        elif found := _PREFIX_HIT.search(line):
            hit = int(found.group(1))
        elif found := _PROMPT_EVAL.search(line):
            prompt = (float(found.group(1)), int(found.group(2)))
        elif (found := _EVAL.search(line)) and prompt is not None:
            timings.append(
                ServerTiming(
                    prompt_tokens=prompt[1],
                    prefill_ms=prompt[0],
                    generated_tokens=int(found.group(2)),
                    generation_ms=float(found.group(1)),
                    prefix_hit_tokens=hit,
                )
            )
            hit, prompt = None, None
    return timings
