from pathlib import Path

import dspy
import pytest

from filingqa.lm.backbone import Backbone, configure, get_lm
from filingqa.lm.llama_engine import LlamaCppEngine
from filingqa.models.store import ModelNotReady


def test_litellm_strings_go_through_dspy_lm(isolated_home: Path) -> None:
    lm = get_lm("openai/my-model", api_base="http://127.0.0.1:8000/v1", max_tokens=256)
    assert isinstance(lm, dspy.LM)
    assert lm.model == "openai/my-model"
    assert lm.kwargs["api_base"] == "http://127.0.0.1:8000/v1"
    assert lm.kwargs["temperature"] == 0.0


def test_local_path_must_exist(isolated_home: Path) -> None:
    with pytest.raises(FileNotFoundError, match="no GGUF model"):
        get_lm("local:/nowhere/model.gguf")


def test_local_without_pulled_model_names_the_fix(isolated_home: Path) -> None:
    with pytest.raises(ModelNotReady, match="run `filingqa models pull`"):
        get_lm("local")


def test_local_path_uses_one_shared_engine(isolated_home: Path, tmp_path: Path) -> None:
    model = tmp_path / "tiny.gguf"
    model.write_bytes(b"GGUF")
    first, second = get_lm(f"local:{model}"), get_lm(f"local:{model}")
    assert isinstance(first.engine, LlamaCppEngine)
    assert first.engine is second.engine  # the model loads once per process


def test_configure_sets_lm_and_adapter(isolated_home: Path, tmp_path: Path) -> None:
    model = tmp_path / "tiny.gguf"
    model.write_bytes(b"GGUF")
    try:
        lm = configure(f"local:{model}")
        assert dspy.settings.lm is lm
        assert isinstance(dspy.settings.adapter, dspy.JSONAdapter)
    finally:
        dspy.configure(lm=None, adapter=None)


@pytest.mark.parametrize(
    ("spec", "local"),
    [("local", True), ("local:/m.gguf", True), ("openai/gpt-4o-mini", False), ("localai", False)],
)
def test_is_local(spec: str, local: bool) -> None:
    assert Backbone.parse(spec).in_process is local
