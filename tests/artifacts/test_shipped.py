"""The shipped artifacts and the program a backbone answers with when none is named: the
artifact compiled for it, else the uncompiled program with a line on how to compile one."""

import shutil
import warnings
from pathlib import Path

import dspy
import pytest

import filingqa
from filingqa.artifacts import shipped
from filingqa.artifacts.compiled import (
    BackboneMismatch,
    NoCompiledProgram,
    ProgramChoice,
    choose_program,
)
from filingqa.artifacts.manifest import read_manifest
from filingqa.artifacts.shipped import (
    UNCOMPILED,
    compiled_for,
    program_label,
    program_name,
    shipped_artifact_for,
)
from filingqa.lm.backbone import Backbone
from filingqa.program.financial_qa import FinancialQA

from ..optimizers.compile_fakes import rule_lm

QWEN_LOCAL = Path(__file__).resolve().parents[2] / "artifacts" / "qwen-local"


@pytest.fixture(autouse=True)
def _restore_dspy_settings():
    """``load`` makes its backbone DSPy's default LM; other tests expect none."""
    yield
    dspy.configure(lm=None, adapter=None)


@pytest.fixture
def shipped_mini(mini_artifact, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A shipped folder holding only the mini artifact (compiled for ``rules/test``)."""
    folder = tmp_path / "shipped"
    shutil.copytree(mini_artifact[0], folder / "mini")
    (folder / "reranker").mkdir()  # a data folder without a manifest is not an artifact
    monkeypatch.setattr(shipped, "SHIPPED_DIR", folder)
    return folder / "mini"


def test_the_embedded_model_alone_or_on_a_llama_server_is_compiled_for_local() -> None:
    manifest = read_manifest(QWEN_LOCAL)
    assert compiled_for(manifest, Backbone.parse("local"))
    assert compiled_for(manifest, Backbone.parse("local@http://127.0.0.1:8000/v1"))
    assert not compiled_for(manifest, Backbone.parse("openai/qwen"))
    assert not compiled_for(manifest, Backbone.parse("openai/gpt-4o-mini"))


def test_the_shipped_artifact_for_the_local_backbone_is_qwen_local() -> None:
    assert shipped_artifact_for(Backbone.parse("local")) == QWEN_LOCAL
    assert shipped_artifact_for(Backbone.parse("local@http://127.0.0.1:8000/v1")) == QWEN_LOCAL
    assert shipped_artifact_for(Backbone.parse("openai/gpt-4o-mini")) is None


def test_choose_program_reads_the_shipped_artifact_unless_told_otherwise() -> None:
    local = Backbone.parse("local")
    chosen = choose_program(local)
    assert (chosen.name, chosen.note) == ("qwen-local", None)
    assert isinstance(chosen.program, FinancialQA)
    assert chosen.program.pot.samples == chosen.program.manifest.program_options["samples"]
    assert choose_program(local, uncompiled=True) == ProgramChoice(None, UNCOMPILED)
    with pytest.raises(ValueError, match="--program and --uncompiled name two programs"):
        choose_program(local, QWEN_LOCAL, uncompiled=True)


def test_a_backbone_no_artifact_was_compiled_for_runs_uncompiled_with_how_to_compile() -> None:
    chosen = choose_program(Backbone.parse("openai/gpt-4o-mini"))
    assert (chosen.program, chosen.name) == (None, UNCOMPILED)
    assert chosen.note is not None and "\n" not in chosen.note
    assert chosen.note.startswith("no shipped program is compiled for openai/gpt-4o-mini")
    assert "`filingqa compile --lm openai/gpt-4o-mini --out DIR`" in chosen.note


def test_a_named_artifact_is_read_whatever_the_backbone(mini_artifact) -> None:
    chosen = choose_program(Backbone.parse("openai/gpt-4o-mini"), mini_artifact[0])
    assert chosen.name == "mini" and chosen.note is None
    assert program_name(chosen.program) == "mini"


def test_load_without_a_path_runs_the_shipped_artifact_compiled_for_the_lm(shipped_mini) -> None:
    lm = rule_lm()  # its model is rules/test, the mini artifact's backbone
    with warnings.catch_warnings():
        warnings.simplefilter("error", BackboneMismatch)
        qa = filingqa.load(lm=lm)
    assert program_name(qa) == "mini" and qa.pot.write.demos
    assert dspy.settings.lm is lm


def test_load_without_a_path_and_no_artifact_for_the_lm_is_the_uncompiled_program(
    shipped_mini,
) -> None:
    other = dspy.LM("other/model", engine=rule_lm().engine, cache=False)
    with pytest.warns(NoCompiledProgram, match="no shipped program is compiled for other/model"):
        qa = filingqa.load(lm=other)
    assert isinstance(qa, FinancialQA) and program_name(qa) == UNCOMPILED
    assert not qa.pot.write.demos
    assert dspy.settings.lm is other


def test_load_names_a_backbone_string_as_given_in_how_to_compile(shipped_mini) -> None:
    with pytest.warns(NoCompiledProgram) as warned:
        qa = filingqa.load(lm="openai/gpt-4o-mini")
    assert "`filingqa compile --lm openai/gpt-4o-mini --out DIR`" in str(warned[0].message)
    assert program_name(qa) == UNCOMPILED


def test_program_labels_say_compiled_or_uncompiled() -> None:
    assert program_label("qwen-local") == "qwen-local (compiled)"
    assert program_label(UNCOMPILED) == "uncompiled"
    assert program_name(FinancialQA()) == UNCOMPILED
