"""Prefill and generation speed of the embedded LLM under llama.cpp thread and attention
settings, on a prompt the size of the program's curation step (~3,000 tokens).

llama-cpp-python's default generation threads are half the CPU count (1 on the 2-core
machine the settings below are written for) and its prompt threads the full count; this
measures what 2 generation threads and flash attention change. Each setting loads the model
afresh and is timed on the same prompt: prefill = a 1-token completion after a reset;
generation = the extra time of a completion of ``--generate`` tokens (greedy, end-of-text
ignored).

    python benchmarks/llm_threads.py [--prompt-tokens 3000] [--generate 128] [--repeats 2]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from llama_cpp import Llama

from filingqa.models.store import ensure_llm

SETTINGS: dict[str, dict[str, object]] = {
    "default (1 generation thread)": {},
    "2 generation threads": {"n_threads": 2},
    "flash attention": {"flash_attn": True},
    "2 threads + flash attention": {"n_threads": 2, "flash_attn": True},
}
FILLER = (
    "| Net sales | 34,229 | 35,355 | 32,184 |\n| Cost of sales | 19,372 | 18,795 | 16,605 |\n"
    "Operating income increased primarily due to higher volumes and pricing actions. "
)


def prompt_of(llama: Llama, tokens: int) -> str:
    """Filing-like text cut to about ``tokens`` tokens, then a question."""
    text = FILLER * (tokens // 40 + 1)
    ids = llama.tokenize(text.encode())[:tokens]
    return llama.detokenize(ids).decode(errors="ignore") + "\nQuestion: what was net sales?"


def timed(llama: Llama, prompt: str, max_tokens: int) -> float:
    llama.reset()
    started = time.perf_counter()
    llama.create_completion(prompt, max_tokens=max_tokens, temperature=0.0)
    return time.perf_counter() - started


def measure(options: dict[str, object], tokens: int, generate: int, repeats: int) -> dict:
    llama = Llama(str(ensure_llm()), n_ctx=8192, verbose=False, **options)
    prompt = prompt_of(llama, tokens)
    timed(llama, prompt, 1)  # warm-up
    prefill = [timed(llama, prompt, 1) for _ in range(repeats)]
    full = [timed(llama, prompt, generate + 1) for _ in range(repeats)]
    llama.close()
    prefill_s = statistics.median(prefill)
    generate_s = statistics.median(full) - prefill_s
    return {
        "options": options,
        "prompt_tokens": tokens,
        "prefill_s": round(prefill_s, 2),
        "prefill_tok_s": round(tokens / prefill_s, 1),
        "generate_tok_s": round(generate / generate_s, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prompt-tokens", type=int, default=3000)
    parser.add_argument("--generate", type=int, default=128)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--json", type=Path, default=Path("results/llm_threads.json"))
    parser.add_argument("--reverse", action="store_true", help="run the settings last first")
    args = parser.parse_args()
    results = {}
    order = list(SETTINGS.items())
    for name, options in reversed(order) if args.reverse else order:
        found = measure(options, args.prompt_tokens, args.generate, args.repeats)
        results[name] = found
        print(
            f"{name:32s} prefill {found['prefill_s']:6.2f} s ({found['prefill_tok_s']:6.1f} tok/s)"
            f"  generation {found['generate_tok_s']:5.1f} tok/s",
            flush=True,
        )
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
