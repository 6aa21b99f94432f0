"""A DSPy engine whose reply is a function of the prompt text: the scripted backbone of the
benchmarks' offline dry runs, and the base of the test kit's fake engine.

:class:`TextEngine` is what every such engine shares: the completion's text wrapped in a
``dspy.lm15`` response (under the engine's model name, with fixed token usage), streaming,
and nothing to close. :class:`ReplyEngine` answers with ``reply(prompt_text(request))``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from dspy.lm15 import FinishReason, Message, Request, Response, TextPart, Usage, response_to_events

SCRIPTED_USAGE = Usage(input_tokens=10, output_tokens=5, total_tokens=15)


def prompt_text(request: Request) -> str:
    """Everything a request sends the LM: the system text, then each message's text."""
    system = request.system if isinstance(request.system, str) else ""
    return system + "\n" + "\n".join(m.text or "" for m in request.messages)


class TextEngine:
    """A DSPy engine whose completions are plain text, named ``model`` and each costing
    ``usage``."""

    def __init__(self, *, model: str, usage: Usage = SCRIPTED_USAGE) -> None:
        self.model = model
        self.usage = usage

    def complete(self, request: Request) -> Response:
        """The completion for ``request``: a subclass decides it."""
        raise NotImplementedError

    def stream(self, request: Request) -> Iterator[Any]:
        """The completion as stream events."""
        return response_to_events(self.complete(request))

    def close(self) -> None:
        """Nothing to release."""

    def response(self, text: str, finish: FinishReason = "stop") -> Response:
        """``text`` as this engine's completion, ending for ``finish``."""
        return Response(
            id=None,
            model=self.model,
            message=Message.assistant([TextPart(text)]),
            finish_reason=finish,
            usage=self.usage,
        )


class ReplyEngine(TextEngine):
    """A DSPy engine answering each request with ``reply`` of its prompt text."""

    def __init__(
        self, reply: Callable[[str], str], *, model: str = "scripted", usage: Usage = SCRIPTED_USAGE
    ) -> None:
        super().__init__(model=model, usage=usage)
        self.reply = reply

    def complete(self, request: Request) -> Response:
        """The reply to the request's prompt text."""
        return self.response(self.reply(prompt_text(request)))
