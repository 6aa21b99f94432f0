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


@pytest.mark.parametrize(
    ("spec", "kind", "in_process", "local_model", "url"),
    [
        ("local", "embedded", True, True, None),
        ("local:/m.gguf", "gguf", True, True, None),
        ("local@http://127.0.0.1:8000/v1", "served", False, True, "http://127.0.0.1:8000/v1"),
        ("openai/gpt-4o-mini", "hosted", False, False, None),
    ],
)
def test_a_backbone_string_is_parsed_once_into_its_kind(
    spec: str, kind: str, in_process: bool, local_model: bool, url: str | None
) -> None:
    backbone = Backbone.parse(spec, "http://llm.example/v1")
    assert (backbone.spec, backbone.kind, backbone.served_url) == (spec, kind, url)
    assert (backbone.in_process, backbone.local_model) == (in_process, local_model)
    assert backbone.api_base == "http://llm.example/v1"
    assert backbone.gguf == (Path("/m.gguf") if kind == "gguf" else None)


def test_get_lm_takes_the_parsed_value_with_its_api_base(isolated_home: Path) -> None:
    backbone = Backbone.parse("openai/my-model", "http://127.0.0.1:8000/v1")
    lm = get_lm(backbone)
    assert lm.model == "openai/my-model"
    assert lm.kwargs["api_base"] == "http://127.0.0.1:8000/v1"
    with pytest.raises(ValueError, match="api_base goes with the backbone string"):
        get_lm(backbone, api_base="http://elsewhere/v1")


def test_a_gguf_backbone_expands_its_home_and_names_a_missing_file() -> None:
    backbone = Backbone.parse("local:~/models/tiny.gguf")
    assert backbone.gguf == Path("~/models/tiny.gguf").expanduser()
    with pytest.raises(FileNotFoundError, match=r"no GGUF model at .*tiny.gguf"):
        backbone.model_path()
    with pytest.raises(ValueError, match="does not run a GGUF file in process"):
        Backbone.parse("openai/gpt-4o-mini").model_path()
