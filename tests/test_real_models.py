"""End-to-end checks on the real embedded models (marked slow; CI runs them)."""

from collections.abc import Iterator
from typing import Any, Literal

import dspy
import numpy as np
import pytest
from dspy.lm15 import Config, Message, Request, Response

from filingqa.ask import SAMPLE_QUESTION, answer_over_filing, sample_filing
from filingqa.lm.backbone import adapter_for, get_lm
from filingqa.lm.llama_engine import MAX_ARRAY_ITEMS, LlamaCppEngine
from filingqa.lm.parallel_samples import sampled_together
from filingqa.models.embedding import load_text_embedding
from filingqa.models.store import ensure_llm
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
    assert 1 <= len(written.hypotheses) <= 3  # the grammar closes the list at its count


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
    from filingqa.retrieval.index.build import build_index

    report = build_index(tmp_path / "index", paths=[sample_filing()], progress=False)
    assert report.failures == [] and report.passages > 0
    answer = answer_over_index(SAMPLE_QUESTION, index=tmp_path / "index", lm=local_lm)
    assert not answer.refused
    assert answer.value == pytest.approx(812.4 - 412.6, rel=0.01)
    assert 4 in {c.page for c in answer.citations}


EVIDENCE_ROWS = "\n".join(
    f"| Segment {i} | {100 + 7 * i} | {90 + 5 * i} |" for i in range(60)
)  # about 1,200 tokens


def _ask(engine: LlamaCppEngine, evidence: str, question: str, **config: Any) -> Response:
    text = f"| Segment | 2019 | 2018 |\n|---|---|---|\n{evidence}\n\nQuestion: {question}"
    settings = Config(max_tokens=config.pop("max_tokens", 24), **config)
    return engine.complete(Request(model="local", messages=(Message.user(text),), config=settings))


@pytest.fixture(scope="module")
def engine() -> Iterator[LlamaCppEngine]:
    engine = LlamaCppEngine(ensure_llm())
    yield engine
    engine.close()


def test_a_saved_context_resumes_the_evidence_and_a_changed_block_is_read_again(
    engine: LlamaCppEngine,
) -> None:
    question = "What was the 2019 value of Segment 41?"
    _ask(engine, EVIDENCE_ROWS, "What was the 2018 value of Segment 3?")
    engine.complete(
        Request(model="local", messages=(Message.user("Say hello."),), config=Config(max_tokens=4))
    )  # another request in between: the live context shares nothing
    resumed = _ask(engine, EVIDENCE_ROWS, question)
    assert resumed.usage.cache_read_tokens > 1000  # the evidence came from a saved context
    changed = EVIDENCE_ROWS.replace("| Segment 30 | 310 |", "| Segment 30 | 999 |")
    after_change = _ask(engine, changed, question)
    fresh = LlamaCppEngine(ensure_llm(), prefix_states=0)
    try:
        expected = _ask(fresh, changed, question)
    finally:
        fresh.close()
    assert after_change.message.text == expected.message.text
    assert after_change.usage.cache_read_tokens < resumed.usage.cache_read_tokens


def test_samples_decoded_together_leave_the_live_context_sound(engine: LlamaCppEngine) -> None:
    question = "Write Python that stores in result the growth of Segment 7 from 2018 to 2019."
    _ask(engine, EVIDENCE_ROWS, question, max_tokens=40)
    # Asked again, the prompt is all cached and only its last token is read again, as it
    # will be after the batch: greedy output depends on how a prompt was batched.
    before = _ask(engine, EVIDENCE_ROWS, question, max_tokens=40)
    with sampled_together([1, 2, 3, 4], temperature=0.7):
        greedy = _ask(engine, EVIDENCE_ROWS, question, max_tokens=40)
        samples = [
            _ask(engine, EVIDENCE_ROWS, question, temperature=0.7, seed=seed, max_tokens=40)
            for seed in (1, 2, 3, 4)
        ]
    assert greedy.message.text.strip()
    assert all(sample.message.text.strip() for sample in samples)
    assert len({sample.message.text for sample in samples}) >= 2
    assert samples[0].usage.output_tokens > 0
    after = _ask(engine, EVIDENCE_ROWS, question, max_tokens=40)
    assert after.message.text == before.message.text
