import json
import shutil
import warnings
from pathlib import Path

import dspy
import pytest

import filingqa
from filingqa.artifacts.compiled import BackboneMismatch
from filingqa.artifacts.manifest import UnsupportedArtifact
from filingqa.datasets import load_dataset
from filingqa.datasets.gold_context import gold_passages
from filingqa.program.financial_qa import FinancialQA
from filingqa.router.lightgbm_router import LightGBMRouter

from ..optimizers.compile_fakes import SPLIT, rule_lm


@pytest.fixture(autouse=True)
def _restore_dspy_settings():
    """``load`` makes its backbone DSPy's default LM; other tests expect none."""
    yield
    dspy.configure(lm=None, adapter=None)


def test_load_returns_the_compiled_program_with_its_router(mini_artifact) -> None:
    out, data = mini_artifact
    with warnings.catch_warnings():
        warnings.simplefilter("error", BackboneMismatch)
        qa = filingqa.load(out, lm=rule_lm())
    assert isinstance(qa, FinancialQA)
    assert isinstance(qa.router, LightGBMRouter)
    assert qa.pot.write.demos, "compiled demos are loaded"
    assert qa.manifest.name == "mini"
    record = next(
        r for r in load_dataset(f"tatqa:{SPLIT}", data) if "percentage change" in r.question
    )
    final = qa(question=record.question, passages=gold_passages(record)).final
    assert float(final.value) == pytest.approx(float(record.answer), rel=1e-3)
    route = next(s for s in final.trace.steps if s.name == "route")
    assert "lightgbm" in route.note


def test_loading_with_another_backbone_warns(mini_artifact) -> None:
    out, _ = mini_artifact
    other = dspy.LM("other/model", engine=rule_lm().engine, cache=False)
    with pytest.warns(BackboneMismatch, match="compiled for rules/test"):
        filingqa.load(out, lm=other)


def test_unknown_format_version_is_refused(mini_artifact, tmp_path: Path) -> None:
    out, _ = mini_artifact
    copy = shutil.copytree(out, tmp_path / "future")
    manifest = json.loads((copy / "manifest.json").read_text())
    (copy / "manifest.json").write_text(json.dumps(manifest | {"format_version": 99}))
    with pytest.raises(UnsupportedArtifact, match="format version 99 is not supported"):
        filingqa.load(copy, lm=rule_lm())


def test_invalid_manifest_and_missing_artifact_are_clear(mini_artifact, tmp_path: Path) -> None:
    out, _ = mini_artifact
    copy = shutil.copytree(out, tmp_path / "broken")
    manifest = json.loads((copy / "manifest.json").read_text())
    del manifest["backbone"]
    (copy / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(ValueError, match=r"invalid manifest.json \(backbone: Field required"):
        filingqa.load(copy, lm=rule_lm())
    with pytest.raises(FileNotFoundError, match="not a compiled artifact"):
        filingqa.load(tmp_path / "nothing", lm=rule_lm())


def test_import_filingqa_stays_light() -> None:
    import subprocess
    import sys

    code = "import sys, filingqa; print(any(m.startswith('dspy') for m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd="/")
    assert out.stdout.strip() == "False"
