"""The scripted engine: a reply as a function of the prompt text, under DSPy."""

from __future__ import annotations

import dspy
from dspy.lm15 import Message, Request, Usage

from filingqa.lm.reply_engine import ReplyEngine, prompt_text


def test_the_prompt_text_is_the_system_text_then_each_message() -> None:
    request = Request(
        model="m", messages=(Message.user("first"), Message.user("second")), system="Be exact."
    )
    assert prompt_text(request) == "Be exact.\nfirst\nsecond"
    assert prompt_text(Request(model="m", messages=(Message.user("only"),))) == "\nonly"


def test_the_reply_answers_the_prompt_under_the_engines_name_and_usage() -> None:
    usage = Usage(input_tokens=100, output_tokens=10, total_tokens=110)
    engine = ReplyEngine(str.upper, model="scripted-test", usage=usage)
    response = engine.complete(Request(model="m", messages=(Message.user("write it"),)))
    assert (response.text, response.model, response.finish_reason) == (
        "\nWRITE IT",
        "scripted-test",
        "stop",
    )
    assert response.usage.total_tokens == 110


def test_a_dspy_lm_over_the_engine_returns_the_reply() -> None:
    lm = dspy.LM("scripted/test", engine=ReplyEngine(lambda prompt: "42"), cache=False)
    assert lm("What is six times seven?") == ["42"]
    assert lm.history[-1]["usage"]["total_tokens"] == 15
