"""The compiled default artifact the repository ships: it loads, and (slow) it answers."""

from pathlib import Path

import dspy
import pytest

import filingqa
from filingqa.artifacts.compiled import BackboneMismatch
from filingqa.ask import SAMPLE_DOC, SAMPLE_QUESTION, sample_filing
from filingqa.evidence.plain_filing import split_filing
from filingqa.models.registry import DEFAULT_LLM
from filingqa.program.financial_qa import FinancialQA
from filingqa.retrieval.search.rerank import Reranker
from filingqa.router.lightgbm_router import LightGBMRouter

from .optimizers.compile_fakes import rule_lm

DEFAULT_ARTIFACT = Path(__file__).resolve().parents[1] / "artifacts" / "qwen-local"


@pytest.fixture(autouse=True)
def _restore_dspy_settings():
    """``load`` makes its backbone DSPy's default LM; other tests expect none."""
    yield
    dspy.configure(lm=None, adapter=None)


def test_the_default_artifact_is_the_compiled_local_backbone() -> None:
    with pytest.warns(BackboneMismatch):  # a scripted LM stands in for the local model
        qa = filingqa.load(DEFAULT_ARTIFACT, lm=rule_lm())
    manifest = qa.manifest
    assert isinstance(qa, FinancialQA)
    assert manifest.backbone == "local"
    assert manifest.model_file is not None
    assert manifest.model_file.sha256 == DEFAULT_LLM.file.sha256
    assert manifest.after.accuracy > manifest.before.accuracy
    assert manifest.optimizer["optimizer"] == "structure"
    assert manifest.selection.kept == "compiled"
    (picked, *_) = manifest.structures  # rank order: the gold-context pick first
    assert manifest.open_corpus is not None  # then the retrieval steps chosen over an index
    structure = dict(manifest.open_corpus["structure"])
    assert structure.pop("loop") == manifest.loop  # the loop policy is kept apart
    assert structure == manifest.program_options
    gold_options = {"samples", "answer_forms", "evidence_chars", "sign_check", "cell_check"}
    assert {name: picked["structure"][name] for name in gold_options} == {
        name: structure[name] for name in gold_options
    }
    assert qa.form.choice == manifest.program_options["answer_forms"]
    assert qa.pot.samples == manifest.program_options["samples"]
    assert isinstance(qa.router, LightGBMRouter)
    assert isinstance(qa.reranker, Reranker)


def test_a_loaded_program_deep_copies_without_warnings(caplog) -> None:
    with pytest.warns(BackboneMismatch):
        qa = filingqa.load(DEFAULT_ARTIFACT, lm=rule_lm())
    copy = qa.deepcopy()
    assert "Failed to deep copy" not in caplog.text
    assert copy.router is qa.router  # read-only once trained: shared, not copied
    assert copy.pot.write.demos == qa.pot.write.demos


@pytest.fixture(scope="module")
def sample_answer():
    qa = filingqa.load(DEFAULT_ARTIFACT)
    passages = split_filing(sample_filing().read_text(encoding="utf-8"), SAMPLE_DOC)
    try:
        return qa(question=SAMPLE_QUESTION, passages=passages).final
    finally:
        dspy.configure(lm=None, adapter=None)


@pytest.mark.slow
def test_the_default_artifact_runs_the_program_end_to_end(sample_answer) -> None:
    assert sample_answer.outcome in {"answered", "unverified"}
    assert sample_answer.value is not None and sample_answer.working
    assert (4, "table") in [(c.page, c.kind) for c in sample_answer.citations]
    assert any(s.name == "route" and "lightgbm" in s.note for s in sample_answer.trace.steps)


@pytest.mark.slow
def test_the_default_artifact_answers_the_sample_question(sample_answer) -> None:
    # the earlier artifact, compiled on TAT-QA dev alone, answered 812.4 - 701.9 = 110.5
    assert sample_answer.answer == "399.8 million"
