"""End-to-end checks on the real embedded models (marked slow; CI runs them)."""

from typing import Literal

import dspy
import numpy as np
import pytest

from filingqa.ask import SAMPLE_QUESTION, answer_over_filing, sample_filing
from filingqa.lm.backbone import adapter_for, get_lm
from filingqa.lm.llama_engine import MAX_ARRAY_ITEMS
from filingqa.models.embedding import load_text_embedding
from filingqa.program.multi_hyde import MultiHydeRetriever
from filingqa.signatures.hyde import PASSAGE_CHARS

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def local_lm() -> dspy.LM:
    return get_lm("local", cache=False)


def test_sample_question_is_answered_correctly_with_citation(local_lm: dspy.LM) -> None:
    answer = answer_over_filing(SAMPLE_QUESTION, lm=local_lm)
    assert not answer.refused
    assert answer.value == pytest.approx(812.4 - 412.6, rel=0.01)
    assert answer.answer == "399.8 million"
    assert (4, "table") in [(c.page, c.kind) for c in answer.citations]
    assert answer.untraced_numbers == []


class QuestionKind(dspy.Signature):
    """Say what kind of computation the question needs and which years it mentions."""

    question: str = dspy.InputField()
    kind: Literal["lookup", "difference", "ratio", "growth"] = dspy.OutputField()
    years: list[int] = dspy.OutputField()


def test_typed_signature_parses_under_constrained_json(local_lm: dspy.LM) -> None:
    with dspy.context(lm=local_lm, adapter=adapter_for(local_lm)):
        prediction = dspy.Predict(QuestionKind)(
            question="What was the growth in revenue from 2022 to 2023?"
        )
    assert prediction.kind in {"lookup", "difference", "ratio", "growth"}
    assert set(prediction.years) <= {2022, 2023} and prediction.years


def test_the_grammar_closes_a_list_the_model_would_repeat(local_lm: dspy.LM) -> None:
    # Without the item bound this question made the 1.5B model repeat "quick ratio for
    # Q2 FY2023" as a variant until the step's token cap cut the reply.
    question = (
        "Does 3M have a reasonably healthy liquidity profile based on its quick ratio for Q2 "
        "of FY2023? If the quick ratio is not relevant to measure liquidity, please state "
        "that and explain why."
    )
    retriever = MultiHydeRetriever()
    with dspy.context(lm=local_lm, adapter=adapter_for(local_lm)):
        rewritten = retriever.rewrite(question=question)
        written = retriever.hyde(question=question, count=3)
    assert local_lm.history[-2]["response"].finish_reason == "stop"  # not cut by the cap
    assert 1 <= len(rewritten.variants) <= MAX_ARRAY_ITEMS
    assert all(len(v) <= 160 for v in rewritten.variants)
    assert all(len(h.passage) <= PASSAGE_CHARS for h in written.hypotheses)


def test_embedding_model_embeds_offline() -> None:
    model = load_text_embedding()
    vectors = np.array(list(model.embed(["net revenue grew", "revenue increased", "a cat"])))
    assert vectors.shape == (3, 384)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-3)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2]
    assert model.model.tokenizer.truncation["max_length"] == 256


def test_financial_qa_answers_end_to_end_over_an_index(local_lm: dspy.LM, tmp_path) -> None:
    """Ingest the sample filing, index it (MiniLM + BM25), then the whole program answers."""
    from filingqa.ask import answer_over_index
    from filingqa.retrieval.corpus import build_index

    report = build_index(tmp_path / "index", paths=[sample_filing()], progress=False)
    assert report.failures == [] and report.passages > 0
    answer = answer_over_index(SAMPLE_QUESTION, index=tmp_path / "index", lm=local_lm)
    assert not answer.refused
    assert answer.value == pytest.approx(812.4 - 412.6, rel=0.01)
    assert 4 in {c.page for c in answer.citations}
