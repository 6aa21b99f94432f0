"""Shared fixtures: the evaluation data dir and an isolated filingqa home."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def shared_data_dir() -> Path:
    """The shared evaluation data (``$FILINGQA_DATA_DIR``, else ``../shared/datasets``).

    Skips when absent, except under CI (``CI=true``), where missing data is a failure.
    """
    chosen = os.environ.get("FILINGQA_DATA_DIR") or REPO_ROOT.parent / "shared" / "datasets"
    path = Path(chosen)
    if not path.is_dir():
        if os.environ.get("CI") == "true":
            pytest.fail(f"evaluation data dir {path} is missing under CI")
        pytest.skip(f"evaluation data dir {path} not present")
    return path


@pytest.fixture
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A throwaway ``FILINGQA_HOME`` so a test never touches the user's model cache."""
    home = tmp_path / "filingqa-home"
    monkeypatch.setenv("FILINGQA_HOME", str(home))
    return home


class ScriptedEngine:
    """A DSPy engine that replays raw completions in order and records every request."""

    def __init__(self, replies: list[str]) -> None:
        self.replies = list(replies)
        self.requests: list = []

    def complete(self, request):
        from dspy.lm15 import Message, Response, TextPart, Usage

        self.requests.append(request)
        if not self.replies:
            raise AssertionError("the scripted LM ran out of replies")
        text = self.replies.pop(0)
        return Response(
            id=None,
            model="scripted",
            message=Message.assistant([TextPart(text)]),
            finish_reason="stop",
            usage=Usage(input_tokens=10, output_tokens=5, total_tokens=15),
        )

    def stream(self, request):
        from dspy.lm15 import response_to_events

        return response_to_events(self.complete(request))

    def close(self) -> None:
        pass

    def prompt_text(self, index: int) -> str:
        """Everything the LM was sent in request ``index`` (system + messages)."""
        request = self.requests[index]
        system = request.system if isinstance(request.system, str) else ""
        return system + "\n" + "\n".join(m.text or "" for m in request.messages)


@pytest.fixture
def scripted_lm():
    """Factory: ``scripted_lm([...raw completions...])`` → a ``dspy.LM`` (cache off)."""
    import dspy

    def make(replies: list[str]) -> dspy.LM:
        return dspy.LM("scripted/test", engine=ScriptedEngine(replies), cache=False, num_retries=0)

    return make
