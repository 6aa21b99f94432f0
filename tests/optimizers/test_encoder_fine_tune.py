"""The encoder fine-tune on a tiny synthetic BERT: it learns, exports an ONNX model pinned by
sha256, and the index's embedder loads it by folder (needs the ``train`` extra)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from filingqa.models.embedding import read_tuned_encoder
from filingqa.models.store import ModelNotReady
from filingqa.optimizers.encoder_examples import ContrastiveExample
from filingqa.optimizers.encoder_fine_tune import EncoderSettings, _batch_loss, fine_tune
from filingqa.retrieval.index.embedder import Embedder

from .tiny_bert import TINY, write_tiny_bert

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
pytest.importorskip("onnx")

PAIRS = [
    ("what was capital expenditure", "purchases of property plant and equipment"),
    ("what was the dividend", "cash dividends paid to shareholders"),
    ("how much inventory", "inventories finished goods and raw materials"),
    ("what was revenue", "net sales by segment and region"),
]


@pytest.fixture(scope="module")
def tiny_weights(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_tiny_bert(tmp_path_factory.mktemp("weights"), [t for pair in PAIRS for t in pair])


def _examples() -> list[ContrastiveExample]:
    passages = [passage for _, passage in PAIRS]
    return [
        ContrastiveExample(query, passage, (passages[(i + 1) % len(passages)],), f"doc{i}")
        for i, (query, passage) in enumerate(PAIRS)
    ]


def test_the_tuned_encoder_ranks_each_question_s_passage_first(
    tiny_weights: Path, tmp_path: Path, isolated_home: Path
) -> None:
    settings = EncoderSettings(epochs=40, batch_size=4, learning_rate=5e-3, warmup_share=0.0)
    report = fine_tune(_examples(), tiny_weights, tmp_path / "encoder", settings, spec=TINY)
    assert (report.examples, report.steps) == (4, 40)
    assert report.last_loss < report.first_loss

    embedder = Embedder.load(str(tmp_path / "encoder"), cache=False)
    encoder = read_tuned_encoder(tmp_path / "encoder")
    assert embedder.name == report.encoder == encoder.name
    assert encoder.name.startswith("tiny-bert+tuned-") and encoder.dim == 32
    queries = np.stack([embedder.embed_query(q) for q, _ in PAIRS])
    passages = embedder.embed_passages([p for _, p in PAIRS])
    assert np.allclose(np.linalg.norm(passages, axis=1), 1.0, atol=1e-4)
    assert list((queries @ passages.T).argmax(axis=1)) == [0, 1, 2, 3]


def test_a_copy_of_an_example_s_own_positive_is_not_its_negative(tiny_weights: Path) -> None:
    model = transformers.AutoModel.from_pretrained(str(tiny_weights))
    tokenizer = transformers.AutoTokenizer.from_pretrained(str(tiny_weights))
    query, passage = PAIRS[0]
    copied = ContrastiveExample(query, passage, (passage,), "doc0")
    loss = _batch_loss(torch, model, tokenizer, [copied], EncoderSettings(), TINY.max_length)
    assert float(loss) == pytest.approx(0.0)  # its positive is the only candidate left


def test_a_passage_embeds_alike_alone_and_beside_others(
    tiny_weights: Path, tmp_path: Path, isolated_home: Path
) -> None:
    settings = EncoderSettings(epochs=1, batch_size=4)
    fine_tune(_examples(), tiny_weights, tmp_path / "encoder", settings, spec=TINY)
    embedder = Embedder.load(str(tmp_path / "encoder"), cache=False)
    alone = embedder.embed_passages([PAIRS[0][1]])
    beside = embedder.embed_passages([PAIRS[0][1], " ".join(p for _, p in PAIRS)])
    assert np.allclose(alone[0], beside[0], atol=1e-5)  # scales per row block, none per batch


def test_an_index_s_tuned_encoder_is_found_by_name_once_installed(
    tiny_weights: Path, tmp_path: Path, isolated_home: Path
) -> None:
    settings = EncoderSettings(epochs=1, batch_size=4)
    name = fine_tune(_examples(), tiny_weights, tmp_path / "encoder", settings, spec=TINY).encoder
    with pytest.raises(ModelNotReady, match="not installed here"):
        Embedder.load(name, cache=False)
    from_folder = Embedder.load(str(tmp_path / "encoder"), cache=False)
    by_name = Embedder.load(name, cache=False)
    assert by_name.name == from_folder.name == name
    assert np.allclose(
        by_name.embed_query("what was revenue"), from_folder.embed_query("what was revenue")
    )


def test_a_changed_model_file_is_refused(
    tiny_weights: Path, tmp_path: Path, isolated_home: Path
) -> None:
    folder = tmp_path / "encoder"
    settings = EncoderSettings(epochs=1, batch_size=4)
    fine_tune(_examples(), tiny_weights, folder, settings, spec=TINY)
    with (folder / "model.onnx").open("ab") as model:
        model.write(b"\0")
    with pytest.raises(ModelNotReady, match="sha256"):
        Embedder.load(str(folder), cache=False)


def test_no_examples_is_an_error(tiny_weights: Path, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no contrastive examples"):
        fine_tune([], tiny_weights, tmp_path / "encoder", spec=TINY)
