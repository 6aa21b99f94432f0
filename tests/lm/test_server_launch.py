"""The llama-cpp-python server launcher and the parser of its per-request timings."""

from __future__ import annotations

import sys

import httpx
import pytest

from filingqa.lm.server_launch import (
    RAM_CACHE_BYTES,
    ServerTiming,
    server_command,
    server_timings,
)

# Captured from a real run (``served_model`` on the embedded Qwen2.5-Coder-1.5B, verbose):
# the same 12-line evidence block twice, with a different question after it.
TWO_REQUESTS = """\
INFO:     Uvicorn running on http://127.0.0.1:51329 (Press CTRL+C to quit)
INFO:     127.0.0.1:49358 - "GET /v1/models HTTP/1.1" 200 OK
llama_perf_context_print:        load time =   28131.41 ms
llama_perf_context_print: prompt eval time =   28130.65 ms /   392 tokens (   71.76 ms per token,    13.93 tokens per second)
llama_perf_context_print:        eval time =    1006.76 ms /     7 runs   (  143.82 ms per token,     6.95 tokens per second)
llama_perf_context_print:       total time =   29150.05 ms /   399 tokens
llama_perf_context_print:    graphs reused =          6
INFO:     127.0.0.1:49374 - "POST /v1/chat/completions HTTP/1.1" 200 OK
Llama.generate: 374 prefix-match hit, remaining 15 prompt tokens to eval
llama_perf_context_print:        load time =   28131.41 ms
llama_perf_context_print: prompt eval time =    9807.62 ms /    15 tokens (  653.84 ms per token,     1.53 tokens per second)
llama_perf_context_print:        eval time =    1103.30 ms /     7 runs   (  157.61 ms per token,     6.34 tokens per second)
llama_perf_context_print:       total time =   10922.21 ms /    22 tokens
llama_perf_context_print:    graphs reused =          6
INFO:     127.0.0.1:49374 - "POST /v1/chat/completions HTTP/1.1" 200 OK
"""  # noqa: E501

# Captured with ``--cache true``: a prompt seen before, restored from the RAM cache; nothing
# is left to evaluate in a batch (llama.cpp prints at least 1 token), the replayed last
# prompt token counts as a run.
RAM_CACHE_HIT = """\
state_read_data: reading state
Llama._create_completion: cache hit
Llama.generate: 512 prefix-match hit, remaining 1 prompt tokens to eval
llama_perf_context_print:        load time =   58148.66 ms
llama_perf_context_print: prompt eval time =       0.00 ms /     1 tokens (    0.00 ms per token,      inf tokens per second)
llama_perf_context_print:        eval time =    3310.66 ms /    16 runs   (  206.92 ms per token,     4.83 tokens per second)
llama_perf_context_print:       total time =    5405.07 ms /    17 tokens
llama_perf_context_print:    graphs reused =         16
Llama._create_completion: cache save
Llama.save_state: saving 15145849 bytes of llama state
INFO:     127.0.0.1:44624 - "POST /v1/chat/completions HTTP/1.1" 200 OK
"""  # noqa: E501


def test_one_timing_per_request_with_the_prefix_hit_when_printed() -> None:
    assert server_timings(TWO_REQUESTS) == [
        ServerTiming(
            prompt_tokens=392,
            prefill_ms=28130.65,
            generated_tokens=7,
            generation_ms=1006.76,
            prefix_hit_tokens=None,
        ),
        ServerTiming(
            prompt_tokens=15,
            prefill_ms=9807.62,
            generated_tokens=7,
            generation_ms=1103.3,
            prefix_hit_tokens=374,
        ),
    ]


def test_a_ram_cache_hit_parses_like_any_request() -> None:
    assert server_timings(RAM_CACHE_HIT) == [
        ServerTiming(
            prompt_tokens=1,
            prefill_ms=0.0,
            generated_tokens=16,
            generation_ms=3310.66,
            prefix_hit_tokens=512,
        )
    ]


def test_a_prefix_hit_does_not_leak_into_the_next_request() -> None:
    failed = (
        "Llama.generate: 300 prefix-match hit, remaining 9 prompt tokens to eval\n"
        'INFO:     127.0.0.1:1 - "POST /v1/chat/completions HTTP/1.1" 500 Internal Server Error\n'
    )
    cold = TWO_REQUESTS.split("llama_perf_context_print:        load", 1)[1]
    timings = server_timings(failed + "llama_perf_context_print:        load" + cold)
    assert [t.prefix_hit_tokens for t in timings] == [None, 374]


def test_no_perf_lines_no_timings() -> None:
    assert server_timings("") == []
    assert server_timings(TWO_REQUESTS.splitlines(keepends=True)[3]) == []


def test_the_command_serves_on_loopback_without_all_logits() -> None:
    command = server_command("/m.gguf", port=8123, n_ctx=8192, cache=False)
    assert command[:3] == [sys.executable, "-m", "llama_cpp.server"]
    pairs = dict(zip(command[3::2], command[4::2], strict=True))
    assert pairs == {
        "--model": "/m.gguf",
        "--host": "127.0.0.1",
        "--port": "8123",
        "--n_ctx": "8192",
        "--logits_all": "false",
        "--verbose": "true",
    }


def test_the_ram_cache_is_opt_in_and_small() -> None:
    command = server_command("/m.gguf", port=1, n_ctx=8192, cache=True, verbose=False)
    pairs = dict(zip(command[3::2], command[4::2], strict=True))
    assert pairs["--cache"] == "true"
    assert pairs["--cache_type"] == "ram"
    assert pairs["--cache_size"] == str(RAM_CACHE_BYTES)
    assert pairs["--verbose"] == "false"


def test_the_flags_exist_in_the_installed_server() -> None:
    settings = pytest.importorskip("llama_cpp.server.settings")
    fields = settings.Settings.model_fields
    command = server_command("/m.gguf", port=1, n_ctx=8192, cache=True)
    flags = [part[2:] for part in command[3:] if part.startswith("--")]
    assert set(flags) <= set(fields)
    assert fields["logits_all"].default is True  # why the command turns it off


@pytest.mark.slow
def test_a_real_server_reuses_the_shared_prefix() -> None:
    from filingqa.lm.server_launch import served_model
    from filingqa.models.store import llm_path

    path = llm_path()
    if not path.is_file():
        pytest.skip(f"no local LLM at {path} (filingqa models pull)")
    evidence = "\n".join(
        f"Segment {i}: revenue {100 + 7 * i} million in 2019 and {90 + 5 * i} million in 2018."
        for i in range(12)
    )
    with served_model(path, n_ctx=2048, cache=False) as served, httpx.Client(timeout=600) as http:
        for question in ("What was segment 3 revenue in 2019?", "How did segment 7 change?"):
            message = {"role": "user", "content": f"{evidence}\nQuestion: {question}"}
            body = {"messages": [message], "max_tokens": 2, "temperature": 0}
            http.post(f"{served.url}/chat/completions", json=body).raise_for_status()
        first, second = served.timings()
    served.log_path.unlink()
    assert first.prompt_tokens > 300
    assert second.prefix_hit_tokens is not None and second.prefix_hit_tokens > 300
    assert second.prompt_tokens < first.prompt_tokens / 10
