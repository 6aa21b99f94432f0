"""A one-layer BERT with random weights, for fine-tuning tests that need the ``train`` extra."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from filingqa.models.registry import EmbeddingSpec

TINY = EmbeddingSpec(
    key="tiny-bert-weights",
    fastembed_name="sentence-transformers/all-MiniLM-L6-v2",
    dim=32,
    max_length=32,
    files=(),
    pypi_sources=(),
)


def write_tiny_bert(folder: Path, texts: Iterable[str]) -> Path:
    """Write into ``folder`` a one-layer BERT (random weights, seed 0) and a word-level
    tokenizer whose vocabulary is the words of ``texts``; return ``folder``."""
    import torch
    import transformers

    folder.mkdir(parents=True, exist_ok=True)
    words = sorted({w for text in texts for w in text.split()})
    (folder / "vocab.txt").write_text(
        "\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *words]) + "\n"
    )
    transformers.BertTokenizerFast(str(folder / "vocab.txt"), model_max_length=32).save_pretrained(
        folder
    )
    specials = {"unk_token": "[UNK]", "sep_token": "[SEP]", "pad_token": "[PAD]"}
    (folder / "special_tokens_map.json").write_text(json.dumps(specials | {"cls_token": "[CLS]"}))
    config = transformers.BertConfig(
        vocab_size=5 + len(words),
        hidden_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=64,
    )
    torch.manual_seed(0)
    transformers.BertModel(config).save_pretrained(folder)
    return folder
