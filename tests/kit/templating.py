"""Chat messages as the embedded model reads them: rendered with Qwen2.5's own chat template
the way llama-cpp-python renders them (the ``Jinja2ChatFormatter`` its ``Llama`` builds
from the GGUF's metadata when no chat format is given, as for the embedded model).

``qwen_chat_template.jinja`` is the GGUF's ``tokenizer.chat_template`` byte for byte
(``tests/lm/test_evidence_first.py`` checks it against the model file under ``slow``).
"""

from __future__ import annotations

import functools
from pathlib import Path

from llama_cpp.llama_chat_format import Jinja2ChatFormatter

QWEN_TEMPLATE = Path(__file__).with_name("qwen_chat_template.jinja")
QWEN_EOS = "<|im_end|>"
QWEN_BOS = "<|endoftext|>"  # the GGUF's BOS token; Qwen's template does not use it
QWEN_DEFAULT_SYSTEM = "You are Qwen, created by Alibaba Cloud. You are a helpful assistant."
QWEN_START = f"<|im_start|>system\n{QWEN_DEFAULT_SYSTEM}<|im_end|>\n<|im_start|>user\n"
"""How every rendered request without a system message begins, up to its user text."""
QWEN_REPLY = "<|im_end|>\n<|im_start|>assistant\n"
"""How a rendered user turn ends when the model is to answer (the generation prompt)."""


def qwen_template() -> str:
    """The template text, byte-exact (no newline translation)."""
    return QWEN_TEMPLATE.read_bytes().decode("utf-8")


@functools.cache
def qwen_formatter(add_generation_prompt: bool = True) -> Jinja2ChatFormatter:
    """llama-cpp-python's formatter over the Qwen template and the GGUF's special tokens."""
    return Jinja2ChatFormatter(
        template=qwen_template(),
        eos_token=QWEN_EOS,
        bos_token=QWEN_BOS,
        add_generation_prompt=add_generation_prompt,
    )


def render_qwen(messages: list[dict[str, str]], *, add_generation_prompt: bool = True) -> str:
    """The prompt text llama.cpp tokenizes for ``messages`` (OpenAI-style chat dicts)."""
    return qwen_formatter(add_generation_prompt)(messages=messages).prompt
