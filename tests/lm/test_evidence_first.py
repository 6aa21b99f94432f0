"""Evidence-first requests, as the embedded model reads them.

Every predictor of FinancialQA (walked by ``named_predictors``, so later steps are covered)
is formatted with the adapter the program gives it and rendered with Qwen2.5's chat
template: the steps reading the question over the evidence must open with one
byte-identical block (template start, evidence, ``Question: ...``), so that llama.cpp
reuses its KV cache across them. Then the message shape (one user message, no system
message; demos as earlier turns) and the section helpers.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from types import NoneType, UnionType
from typing import Any, Literal, Union, get_args, get_origin

import dspy
import pytest
from dspy.utils.exceptions import LMError

import filingqa.program.pot as pot_program
import filingqa.signatures.pot as pot_signatures
from filingqa.evidence.render import render
from filingqa.lm.code_adapter import FencedCodeAdapter
from filingqa.lm.evidence_first import (
    EXAMPLES_FIELD,
    EvidenceFirstChatAdapter,
    EvidenceFirstJSONAdapter,
    output_description,
    request_sections,
)
from filingqa.lm.llama_engine import chat_messages
from filingqa.program.curation import passage_list
from filingqa.program.financial_qa import FinancialQA
from filingqa.signatures.pot import RepairProgram, ReviseProgram, WriteProgram
from filingqa.signatures.verify import VerifyAnswer

from ..kit import replies
from ..kit.lm import fake_lm, marker_lm
from ..kit.passages import CASH_FLOW, MDNA, OTHER, QUESTION, ListSearch
from ..kit.templating import (
    QWEN_BOS,
    QWEN_EOS,
    QWEN_REPLY,
    QWEN_START,
    QWEN_TEMPLATE,
    render_qwen,
)

EVIDENCE = render([CASH_FLOW, MDNA])
PASSAGE_LIST = passage_list([CASH_FLOW, MDNA])
EVIDENCE_LEAD = f"{QWEN_START}{EVIDENCE}\n\nQuestion: {QUESTION}"
"""The block every step reading the question over the evidence must open with."""

CODE_SIGNATURES = frozenset({WriteProgram, RepairProgram, ReviseProgram})
"""The signatures :mod:`filingqa.program.pot` runs under :class:`FencedCodeAdapter`."""
CODE_STEPS = {"reason.pot.write", "reason.pot.repair", "reason.pot.revise_program"}
BACKBONES = {"embedded": EvidenceFirstJSONAdapter, "hosted": EvidenceFirstChatAdapter}
"""What ``adapter_for`` gives every other step: JSON for llama.cpp, chat for hosted LMs."""

Message = dict[str, str]


@dataclass(frozen=True)
class Step:
    """One predictor of the program, the adapter it runs under and inputs for it."""

    name: str
    predictor: dspy.Predict
    adapter: dspy.Adapter
    inputs: dict[str, Any]

    @property
    def signature(self) -> type[dspy.Signature]:
        return self.predictor.signature

    def messages(self) -> list[Message]:
        """The chat messages the adapter formats for the step's inputs (no demos)."""
        return self.adapter.format(self.signature, [], self.inputs)

    def templated(self) -> str:
        """The prompt text the embedded model reads for the step."""
        return render_qwen(self.messages())


def program_steps(backbone: str) -> list[Step]:
    """Every predictor of a fresh FinancialQA, with the adapter it runs under for
    ``backbone`` and inputs whose own values differ per step."""
    steps = []
    for index, (name, predictor) in enumerate(FinancialQA().named_predictors()):
        signature = predictor.signature
        adapter = FencedCodeAdapter() if signature in CODE_SIGNATURES else BACKBONES[backbone]()
        inputs = {
            field: sample_value(field, info.annotation, name, index)
            for field, info in signature.input_fields.items()
        }
        steps.append(Step(name, predictor, adapter, inputs))
    return steps


def sample_value(field: str, annotation: Any, step: str, index: int) -> Any:
    """The fixed question, evidence or passages, else a value of ``annotation`` naming
    ``field`` and ``step`` (one or two lines); optional inputs are left out on every other
    step, worked examples (shown before the question, tested apart) on every step."""
    fixed = {"question": QUESTION, "evidence": EVIDENCE, "passage_list": PASSAGE_LIST}
    if field in fixed:
        return fixed[field]
    if field == EXAMPLES_FIELD:
        return None
    label = f"{field} for {step}"
    if get_origin(annotation) in (Union, UnionType) and NoneType in get_args(annotation):
        if index % 2:
            return None
        (annotation,) = (arg for arg in get_args(annotation) if arg is not NoneType)
    if annotation is str:
        return f"{label}\nand a second line" if index % 2 else label
    if annotation is int:
        return index + 2
    if get_origin(annotation) is list and get_args(annotation) == (str,):
        return [f"{label}, first", f"{label}, second"]
    if get_origin(annotation) is Literal:
        return get_args(annotation)[index % len(get_args(annotation))]
    pytest.fail(f"no sample value for {label} of type {annotation!r}: add one")


def evidence_steps(backbone: str) -> list[Step]:
    """The program's steps that read the evidence."""
    return [s for s in program_steps(backbone) if "evidence" in s.signature.input_fields]


def label_of(field: str) -> str:
    """How a request labels an input: ``failed_program`` → ``Failed program``."""
    return field.replace("_", " ").capitalize()


# --- the program, step by step ------------------------------------------------------------


def test_the_pot_steps_and_only_they_run_under_the_fenced_code_adapter() -> None:
    """Fails loudly when the adapter mapping above would no longer be the program's: a new
    PoT signature, a PoT step renamed, or another module choosing its own adapter."""
    declared = {
        value
        for value in vars(pot_signatures).values()
        if isinstance(value, type)
        and issubclass(value, dspy.Signature)
        and value.__module__ == pot_signatures.__name__
    }
    assert declared == CODE_SIGNATURES
    named = {name for name, p in FinancialQA().named_predictors() if p.signature in CODE_SIGNATURES}
    assert named == CODE_STEPS
    program_dir = Path(pot_program.__file__).parent
    choosing = sorted(p.name for p in program_dir.glob("*.py") if "adapter=" in p.read_text())
    assert choosing == ["pot.py"]


@pytest.mark.parametrize("backbone", BACKBONES)
def test_the_steps_over_the_evidence_share_one_leading_block(backbone: str) -> None:
    texts = {
        step.name: step.templated()
        for step in program_steps(backbone)
        if "evidence" in step.signature.input_fields
    }
    assert set(texts) >= CODE_STEPS | {
        "reason.cot",
        "reason.verifier.verify",
        "gather.curator.curate",
    }
    assert any(name.startswith("anti_refusal") for name in texts)
    for name, text in texts.items():
        assert text.startswith(EVIDENCE_LEAD + "\n\n"), name
    shared = {text[: len(EVIDENCE_LEAD) + 2] for text in texts.values()}
    assert shared == {EVIDENCE_LEAD + "\n\n"}  # byte-identical up to the step's own part


def test_worked_examples_come_between_the_shared_evidence_and_the_question() -> None:
    examples = "Q: What was the change in cash?\n```python\nresult = 5 - 3\n```"
    inputs = {"evidence": EVIDENCE, "question": QUESTION, EXAMPLES_FIELD: examples}
    text = render_qwen(FencedCodeAdapter().format(WriteProgram, [], inputs))
    assert text.startswith(f"{QWEN_START}{EVIDENCE}\n\nExamples from other filings:\n")
    assert f"{examples}\n\nQuestion: {QUESTION}\n\nWrite Python code" in text


@pytest.mark.parametrize(("keep", "shared"), [([1, 2], 3), ([1, 3], 1), ([2, 3], 0)])
def test_reasoning_shares_the_curators_evidence_up_to_the_first_passage_dropped(
    keep: list[int], shared: int
) -> None:
    question = "What was Acme cash flow in 2024?"
    candidates = [CASH_FLOW, MDNA, OTHER]  # in the order the search finds them
    curation = {"keep": keep, "answerable": True, "missing": "", "complementary_query": ""}
    lm = marker_lm(
        [
            (replies.AMBIGUITY, replies.NO_AMBIGUITY),
            (replies.REWRITE, {"company": "", "period": "", "variants": []}),
            (replies.CURATE, curation),
            (replies.WRITE, replies.fenced("result = 812.4")),
        ]
    )
    with dspy.context(lm=lm, adapter=EvidenceFirstJSONAdapter()):
        FinancialQA(hypotheses=0)(question, search=ListSearch(candidates))
    sent = [render_qwen(chat_messages(request)) for request in lm.engine.requests]
    (curate,) = (text for text in sent if replies.CURATE in text)
    (write,) = (text for text in sent if replies.WRITE in text)
    lead = f"{QWEN_START}{render(candidates)}\n\nQuestion: {question}\n\n"
    assert curate.startswith(lead)
    common = next(i for i, (a, b) in enumerate(zip(curate, write, strict=False)) if a != b)
    blocks = render(candidates).split("\n\n")  # one per passage, then the closing line
    if shared == len(candidates):
        assert write.startswith(lead)
    else:
        assert len(QWEN_START + "\n\n".join(blocks[:shared])) <= common
        assert common < len(QWEN_START + "\n\n".join(blocks[: shared + 1]))


@pytest.mark.parametrize("backbone", BACKBONES)
def test_the_steps_without_evidence_keep_dspys_own_layout(backbone: str) -> None:
    dspy_layout = {"embedded": dspy.JSONAdapter, "hosted": dspy.ChatAdapter}[backbone]()
    others = [s for s in program_steps(backbone) if "evidence" not in s.signature.input_fields]
    assert "ambiguity.detect" in {s.name for s in others}
    for step in others:
        expected = dspy_layout.format(step.signature, [], step.inputs)
        assert step.messages() == expected, step.name
        assert expected[0]["role"] == "system"


@pytest.mark.parametrize("backbone", BACKBONES)
def test_each_step_s_own_inputs_follow_the_question_in_signature_order(backbone: str) -> None:
    for step in evidence_steps(backbone):
        lead = EVIDENCE_LEAD
        rest = step.templated()[len(lead) :]
        own = [
            field
            for field in step.signature.input_fields
            if field not in {"question", "evidence"} and step.inputs[field] is not None
        ]
        places = [rest.find(f"\n\n{label_of(field)}:") for field in own]
        assert -1 not in places, (step.name, own, places)
        assert places == sorted(places), step.name
        for field, value in step.inputs.items():
            if value is None:
                assert f"\n\n{label_of(field)}:" not in rest, (step.name, field)


class _Sent(Exception):
    """Stops a call once its request has reached the engine."""


def _stop(request: Any) -> str:
    raise _Sent


@pytest.mark.parametrize("backbone", BACKBONES)
def test_a_request_reaches_the_engine_as_one_user_message_without_a_system_message(
    backbone: str,
) -> None:
    for step in evidence_steps(backbone):
        lm = fake_lm(_stop)
        with dspy.context(lm=lm, adapter=step.adapter), pytest.raises(LMError):
            step.predictor(**step.inputs)
        (request,) = lm.engine.requests
        sent = chat_messages(request)
        assert [m["role"] for m in sent] == ["user"], step.name
        assert sent == step.messages(), step.name
        assert render_qwen(sent) == QWEN_START + sent[0]["content"] + QWEN_REPLY


# --- demos ----------------------------------------------------------------------------------

VERIFY_DEMO = {
    "question": "What was Acme's operating cash flow in 2023?",
    "evidence": EVIDENCE,
    "answer": "701.9 million",
    "working": "result = 701.9",
    "checks": "no problem found",
    "reasons": ["the 2023 column of the cash flow table"],
    "missing": "",
    "verdict": "ACCEPT",
}
VERIFY_INPUTS = {
    "question": QUESTION,
    "evidence": EVIDENCE,
    "answer": "399.8 million",
    "working": "result = 812.4 - 412.6",
    "checks": "no problem found",
}
WRITE_DEMO = {
    "question": "What was Acme's operating cash flow in 2023?",
    "evidence": EVIDENCE,
    "program": "result = 701.9",
}


@pytest.mark.parametrize(
    ("adapter", "signature", "demo", "inputs"),
    [
        (EvidenceFirstJSONAdapter(), VerifyAnswer, VERIFY_DEMO, VERIFY_INPUTS),
        (EvidenceFirstChatAdapter(), VerifyAnswer, VERIFY_DEMO, VERIFY_INPUTS),
        (
            FencedCodeAdapter(),
            WriteProgram,
            WRITE_DEMO,
            {"question": QUESTION, "evidence": EVIDENCE},
        ),
    ],
    ids=["json", "chat", "fenced"],
)
def test_a_demo_is_an_earlier_user_and_assistant_turn(
    adapter: dspy.Adapter,
    signature: type[dspy.Signature],
    demo: dict[str, Any],
    inputs: dict[str, Any],
) -> None:
    demo_inputs = {k: v for k, v in demo.items() if k in signature.input_fields}
    (request,) = adapter.format(signature, [], inputs)
    (shown,) = adapter.format(signature, [], demo_inputs)
    messages = adapter.format(signature, [demo], inputs)
    assert messages == [
        {"role": "user", "content": shown["content"]},
        {"role": "assistant", "content": messages[1]["content"]},
        request,
    ]
    outputs = {name: demo[name] for name in signature.output_fields}
    assert adapter.parse(signature, messages[1]["content"]) == outputs
    assert shown["content"].startswith(f"{EVIDENCE}\n\nQuestion: {demo['question']}\n\n")
    assert render_qwen(messages) == (
        f"{QWEN_START}{shown['content']}{QWEN_EOS}\n"
        f"<|im_start|>assistant\n{messages[1]['content']}{QWEN_EOS}\n"
        f"<|im_start|>user\n{request['content']}{QWEN_REPLY}"
    )
    assert adapter.format(signature, [demo_inputs], inputs) == [request]  # no outputs: skipped


# --- the sections ---------------------------------------------------------------------------


class Probe(dspy.Signature):
    """Probe the layout."""

    note: str = dspy.InputField()
    passages: str = dspy.InputField()
    question: str = dspy.InputField()
    evidence: str = dspy.InputField()
    extra_detail: str | None = dspy.InputField(default=None)
    tried: list[str] = dspy.InputField()
    count: int = dspy.InputField()
    answer: str = dspy.OutputField(desc="the answer")
    figures: list[float] = dspy.OutputField(desc="the figures used")
    verdict: Literal["ACCEPT", "REJECT"] = dspy.OutputField()
    remark: str = dspy.OutputField()


PROBE_INPUTS = {
    "note": "one line",
    "passages": "first\nsecond",
    "question": "Q?",
    "evidence": "E1\nE2",
    "extra_detail": None,
    "tried": ["a", "b"],
    "count": 3,
}


def test_sections_are_the_evidence_bare_the_question_then_the_rest_in_order() -> None:
    # evidence leads even though other inputs come first in the signature
    assert request_sections(Probe, PROBE_INPUTS) == [
        "E1\nE2",
        "Question: Q?",
        "Note: one line",
        "Passages:\nfirst\nsecond",
        'Tried: ["a", "b"]',
        "Count: 3",
    ]
    with_detail = request_sections(Probe, {**PROBE_INPUTS, "extra_detail": "x_1"})
    assert with_detail[4] == "Extra detail: x_1"


def test_without_evidence_the_question_leads() -> None:
    bare = Probe.delete("evidence")
    assert request_sections(bare, PROBE_INPUTS)[:2] == ["Question: Q?", "Note: one line"]
    absent = {**PROBE_INPUTS, "evidence": None}
    assert request_sections(Probe, absent)[:2] == ["Question: Q?", "Note: one line"]


def test_output_description_lists_each_output_with_its_description_and_format() -> None:
    assert output_description(Probe) == (
        "Your output fields, in this order:\n"
        "- `answer`: the answer\n"
        "- `figures`: the figures used; the value you produce must adhere to the JSON schema: "
        '{"type": "array", "items": {"type": "number"}}\n'
        "- `verdict`: the value you produce must exactly match (no extra characters) one of: "
        "ACCEPT; REJECT\n"
        "- `remark`"
    )


# --- the template fixture -------------------------------------------------------------------


@pytest.mark.slow
def test_the_template_fixture_is_the_gguf_s_chat_template() -> None:
    from llama_cpp import Llama

    from filingqa.models.store import llm_path

    path = llm_path()
    if not path.is_file():
        pytest.skip(f"no local LLM at {path} (filingqa models pull)")
    llama = Llama(model_path=str(path), vocab_only=True, verbose=False)
    try:
        template = llama.metadata["tokenizer.chat_template"]
        special = [llama.token_eos(), llama.token_bos()]
        eos, bos = (llama.detokenize([t], special=True).decode("utf-8") for t in special)
    finally:
        llama.close()
    assert QWEN_TEMPLATE.read_bytes() == template.encode("utf-8")
    assert (eos, bos) == (QWEN_EOS, QWEN_BOS)


def test_the_chat_adapters_json_fallback_keeps_the_evidence_first_layout() -> None:
    fallback = EvidenceFirstChatAdapter()._make_json_adapter_fallback()
    assert type(fallback) is EvidenceFirstJSONAdapter
