"""The embedder fine-tuned on contrastive examples, exported as the index reads it.

Starts from the pinned fp32 weights (:data:`~filingqa.models.registry.MINILM_L6_V2_WEIGHTS`)
and trains with in-batch and hard negatives (the multiple-negatives ranking loss: each
question's passage must outscore every other passage of its batch); mean-pooled, normalized
embeddings as sentence-transformers computes them. The result is an ONNX model with 8-bit
weights beside the base's tokenizer files and an ``encoder.json`` naming it by the model's
sha256, a folder fastembed loads like the pinned model. Needs the ``train`` extra (torch,
transformers, onnx, onnx-ir): :class:`TrainingUnavailable` says so when it is missing.
"""

from __future__ import annotations

import importlib.util
import logging
import math
import random
import shutil
import tempfile
import time
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from tqdm import tqdm

from filingqa.models.embedding import TUNED_MARK, write_tuned_encoder
from filingqa.models.registry import MINILM_L6_V2_WEIGHTS, EmbeddingSpec, TunedEncoder
from filingqa.models.verify import pin_of
from filingqa.optimizers.encoder_examples import ContrastiveExample

TOKENIZER_FILES = (
    "config.json",
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "vocab.txt",
)
OUTPUT = "last_hidden_state"  # the pinned model's output, which fastembed pools
WEIGHT_BLOCK = 32  # input channels sharing one weight scale; divides MiniLM's 384 and 1536
INT8_COMPUTE = 4  # MatMulNBits accuracy level: multiply in int8, each row's block scaled alone
INSTALL_HINT = "pip install 'filingqa[train]'"


class TrainingUnavailable(RuntimeError):
    """The ``train`` extra (torch, transformers, onnx) is not installed."""


class EncoderSettings(BaseModel):
    """How the encoder is fine-tuned."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    epochs: int = 1
    batch_size: int = 8
    learning_rate: float = 2e-5
    warmup_share: float = Field(default=0.1, description="of the steps, the learning-rate ramp")
    scale: float = Field(default=20.0, description="logits are cosine similarities times this")
    query_tokens: int = 64
    seed: int = 0


class EncoderTuneReport(BaseModel):
    """What a fine-tune did: examples, steps, the loss at the start and the end, seconds,
    and the exported encoder's name."""

    model_config = ConfigDict(extra="forbid")

    examples: int
    steps: int
    first_loss: float = Field(description="mean loss over the first tenth of the steps")
    last_loss: float = Field(description="mean loss over the last tenth of the steps")
    seconds: float
    encoder: str


def fine_tune(
    examples: Sequence[ContrastiveExample],
    weights: Path,
    out: Path,
    settings: EncoderSettings | None = None,
    *,
    spec: EmbeddingSpec = MINILM_L6_V2_WEIGHTS,
    threads: int | None = None,
    progress: bool = False,
) -> EncoderTuneReport:
    """Fine-tune the model in ``weights`` (a folder of safetensors weights and tokenizer) on
    ``examples`` and export it to ``out`` (see the module docstring).

    Raises:
        TrainingUnavailable: torch, transformers, onnx or onnx-ir is missing.
        ValueError: no examples.
    """
    if not examples:
        raise ValueError("no contrastive examples to train the encoder on")
    settings = settings or EncoderSettings()
    torch, transformers = training_libraries()
    started = time.perf_counter()
    if threads:
        torch.set_num_threads(threads)
    torch.manual_seed(settings.seed)
    tokenizer = transformers.AutoTokenizer.from_pretrained(str(weights))
    model = transformers.AutoModel.from_pretrained(str(weights))
    model.train()
    steps = math.ceil(len(examples) / settings.batch_size) * settings.epochs
    optimizer = torch.optim.AdamW(model.parameters(), lr=settings.learning_rate)
    schedule = transformers.get_linear_schedule_with_warmup(
        optimizer, math.ceil(settings.warmup_share * steps), steps
    )
    losses: list[float] = []
    with tqdm(total=steps, desc="encoder fine-tune", unit="step", disable=not progress) as bar:
        for epoch in range(settings.epochs):
            for batch in _batches(examples, settings, epoch):
                loss = _batch_loss(torch, model, tokenizer, batch, settings, spec.max_length)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                optimizer.step()
                schedule.step()
                optimizer.zero_grad()
                losses.append(float(loss.detach()))
                bar.set_postfix(loss=f"{losses[-1]:.3f}")
                bar.update()
    model.eval()
    name = export_encoder(torch, model, tokenizer, weights, out, spec)
    tenth = max(1, len(losses) // 10)
    return EncoderTuneReport(
        examples=len(examples),
        steps=steps,
        first_loss=round(sum(losses[:tenth]) / tenth, 4),
        last_loss=round(sum(losses[-tenth:]) / tenth, 4),
        seconds=round(time.perf_counter() - started, 1),
        encoder=name,
    )


def export_encoder(
    torch: ModuleType, model: Any, tokenizer: Any, weights: Path, out: Path, spec: EmbeddingSpec
) -> str:
    """Write ``model`` to ``out`` as ONNX with 8-bit weights (inputs and output as the
    pinned model's) with the tokenizer files of ``weights`` and ``encoder.json``; returns
    the encoder's name.

    The weights are quantized in blocks of :data:`WEIGHT_BLOCK` along each input channel
    and multiplied in int8 (:data:`INT8_COMPUTE`), each block of each token's activations
    given its own scale: a passage's vector does not move with the passages embedded
    beside it, as it would with activations quantized per batch."""
    from onnxruntime.quantization.matmul_nbits_quantizer import (  # type: ignore[import-untyped]
        MatMulNBitsQuantizer,
    )

    out.mkdir(parents=True, exist_ok=True)
    sample = tokenizer(["a passage"], return_tensors="pt")
    inputs = (sample["input_ids"], sample["attention_mask"], sample["token_type_ids"])
    names = ["input_ids", "attention_mask", "token_type_ids"]
    with tempfile.TemporaryDirectory() as scratch, _quiet_export():
        fp32 = Path(scratch) / "model-fp32.onnx"
        torch.onnx.export(
            _last_hidden_state(torch, model),
            inputs,
            str(fp32),
            input_names=names,
            output_names=[OUTPUT],
            dynamic_axes={name: {0: "batch", 1: "sequence"} for name in [*names, OUTPUT]},
            opset_version=17,
            dynamo=False,
        )
        quantizer = MatMulNBitsQuantizer(
            str(fp32),
            bits=8,
            block_size=WEIGHT_BLOCK,
            is_symmetric=True,
            accuracy_level=INT8_COMPUTE,
        )
        quantizer.process()
        quantizer.model.save_model_to_file(str(out / "model.onnx"))
    for name in TOKENIZER_FILES:
        shutil.copyfile(weights / name, out / name)
    pinned = pin_of(out / "model.onnx")
    name = f"{spec.key.removesuffix('-weights')}{TUNED_MARK}{pinned.sha256[:12]}"
    encoder = TunedEncoder(
        name=name,
        base=spec.key,
        model=pinned,
        dim=model.config.hidden_size,
        max_length=spec.max_length,
    )
    write_tuned_encoder(out, encoder)
    return name


@contextmanager
def _quiet_export() -> Iterator[None]:
    """Silence the exporter's tracing warnings and the quantizer's advice (logged at the
    root logger): neither applies to a BERT encoder exported with its attention mask."""
    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        root.setLevel(level)


TRAINING_MODULES = ("onnx", "onnx_ir", "torch", "transformers")


def trainable() -> bool:
    """Whether the ``train`` extra's libraries are installed (found, not imported)."""
    return all(importlib.util.find_spec(name) is not None for name in TRAINING_MODULES)


def training_libraries() -> tuple[ModuleType, ModuleType]:
    """torch and transformers, once the ``train`` extra is found complete.

    Raises:
        TrainingUnavailable: a library of the extra is missing, naming it.
    """
    try:
        import onnx  # noqa: F401  (the ONNX export needs it)
        import onnx_ir  # noqa: F401  (and the weight-only quantizer)
        import torch
        import transformers
    except ImportError as missing:
        raise TrainingUnavailable(
            f"the encoder fine-tune needs {missing.name}: {INSTALL_HINT}"
        ) from None
    transformers.logging.set_verbosity_error()
    return torch, transformers


def _batches(
    examples: Sequence[ContrastiveExample], settings: EncoderSettings, epoch: int = 0
) -> list[list[ContrastiveExample]]:
    """The examples shuffled (by seed and epoch) into batches."""
    order = list(examples)
    random.Random(settings.seed * 1000 + epoch).shuffle(order)
    size = settings.batch_size
    return [order[start : start + size] for start in range(0, len(order), size)]


def _batch_loss(
    torch: ModuleType,
    model: Any,
    tokenizer: Any,
    batch: list[ContrastiveExample],
    settings: EncoderSettings,
    max_length: int,
) -> Any:
    """The multiple-negatives ranking loss of one batch: each query against every positive
    and hard negative of the batch, its own positive the target; another example's positive
    for the same query, and any copy of its own positive (another example's negative drawn
    from another company may be it), are masked (not negatives)."""
    queries = _embed(torch, model, tokenizer, [e.query for e in batch], settings.query_tokens)
    passages = [e.positive for e in batch] + [n for e in batch for n in e.negatives]
    candidates = _embed(torch, model, tokenizer, passages, max_length)
    logits = settings.scale * queries @ candidates.T
    mask = torch.tensor(
        [
            [
                i != j and (text == a.positive or (j < len(batch) and a.query == batch[j].query))
                for j, text in enumerate(passages)
            ]
            for i, a in enumerate(batch)
        ]
    )
    logits = logits.masked_fill(mask, float("-inf"))
    return torch.nn.functional.cross_entropy(logits, torch.arange(len(batch)))


def _embed(torch: ModuleType, model: Any, tokenizer: Any, texts: list[str], max_length: int) -> Any:
    """Mean-pooled, L2-normalized embeddings of ``texts`` (with gradients)."""
    encoded = tokenizer(
        texts, padding=True, truncation=True, max_length=max_length, return_tensors="pt"
    )
    hidden = model(**encoded).last_hidden_state
    weights = encoded["attention_mask"].unsqueeze(-1).to(hidden.dtype)
    pooled = (hidden * weights).sum(dim=1) / weights.sum(dim=1).clamp(min=1e-9)
    return torch.nn.functional.normalize(pooled, dim=-1)


def _last_hidden_state(torch: ModuleType, model: Any) -> Any:
    """``model`` as a module with the pinned ONNX model's signature: three id tensors in,
    the last hidden state out."""

    class LastHiddenState(torch.nn.Module):  # type: ignore[name-defined]
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            return self.model(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state

    return LastHiddenState()
