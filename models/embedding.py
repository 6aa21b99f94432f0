"""Load the pinned embedding model into fastembed, fully offline."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import TYPE_CHECKING

from filingqa.core.config import models_dir
from filingqa.models.registry import DEFAULT_EMBEDDING, ENCODER_FILE, EmbeddingSpec, TunedEncoder
from filingqa.models.store import ModelNotReady, ensure_embedding
from filingqa.models.verify import ModelFileError, verify_file

if TYPE_CHECKING:
    from fastembed import TextEmbedding


def load_text_embedding(
    spec: EmbeddingSpec = DEFAULT_EMBEDDING, *, threads: int | None = None
) -> TextEmbedding:
    """A fastembed ``TextEmbedding`` over the verified local files of ``spec``.

    Loaded through ``specific_model_path``, with which fastembed fetches nothing (checked:
    no network lookup happens). Inputs are truncated at ``spec.max_length`` tokens (256 for
    MiniLM, as sentence-transformers does; fastembed would otherwise take the tokenizer's 512).

    Raises:
        filingqa.models.store.ModelNotReady: the files are missing or corrupt.
    """
    from fastembed import TextEmbedding

    folder = ensure_embedding(spec)
    model = TextEmbedding(
        model_name=spec.fastembed_name, specific_model_path=str(folder), threads=threads
    )
    # fastembed types TextEmbedding.model as the base class; the ONNX model it holds has one
    model.model.tokenizer.enable_truncation(max_length=spec.max_length)  # type: ignore[attr-defined]
    return model


TUNED_MARK = "+tuned-"  # in a fine-tuned encoder's name: <base>+tuned-<sha256 prefix>


def is_tuned_encoder(location: str | Path) -> bool:
    """Whether ``location`` is a folder holding a fine-tuned encoder."""
    return (Path(location) / ENCODER_FILE).is_file()


def tuned_encoder_dir(name: str) -> Path:
    """Where the model store keeps the fine-tuned encoder called ``name``."""
    return models_dir() / "encoders" / name


def installed_tuned_encoder(name: str) -> Path:
    """The store's folder of the fine-tuned encoder ``name`` (what an index built with it
    records), so that its queries are embedded by the same model.

    Raises:
        ModelNotReady: ``name`` is not installed here, naming how to install it.
    """
    folder = tuned_encoder_dir(name)
    if not is_tuned_encoder(folder):
        raise ModelNotReady(
            f"the index was built with the fine-tuned encoder {name}, which is not installed "
            "here: load it once from the folder that holds it (`filingqa index --embedder "
            "<folder>`, or the compiled artifact it belongs to)"
        )
    return folder


def install_tuned_encoder(folder: Path) -> Path:
    """Copy the checked fine-tuned encoder in ``folder`` into the model store (once) and
    return its store folder.

    Raises:
        ModelNotReady: see :func:`read_tuned_encoder`.
    """
    encoder = read_tuned_encoder(folder)
    target = tuned_encoder_dir(encoder.name)
    if folder.resolve() != target.resolve() and not is_tuned_encoder(target):
        staging = target.with_name(target.name + ".partial")
        shutil.rmtree(staging, ignore_errors=True)
        shutil.copytree(folder, staging)
        shutil.rmtree(target, ignore_errors=True)  # an earlier copy left incomplete
        staging.replace(target)
    return target


def read_tuned_encoder(folder: Path) -> TunedEncoder:
    """The description of the fine-tuned encoder in ``folder``, its model checked against
    its pin (the hash recomputed only when the file changed).

    Raises:
        ModelNotReady: the description is missing, or the model is not the one it pins.
    """
    described = folder / ENCODER_FILE
    if not described.is_file():
        raise ModelNotReady(f"{folder} holds no fine-tuned encoder (no {ENCODER_FILE})")
    encoder = TunedEncoder.model_validate_json(described.read_text())
    try:
        verify_file(folder / encoder.model.name, encoder.model)
    except ModelFileError as problem:
        raise ModelNotReady(f"not the model the sha256 in {ENCODER_FILE} pins: {problem}") from None
    return encoder


def write_tuned_encoder(folder: Path, encoder: TunedEncoder) -> None:
    """Write ``encoder``'s description into ``folder`` (beside its model)."""
    (folder / ENCODER_FILE).write_text(encoder.model_dump_json(indent=2) + "\n")


def load_tuned_embedding(
    folder: Path, spec: EmbeddingSpec = DEFAULT_EMBEDDING, *, threads: int | None = None
) -> tuple[TunedEncoder, TextEmbedding]:
    """The fine-tuned encoder in ``folder`` (a model of ``spec``'s architecture), checked
    and loaded into fastembed offline, with its description.

    Raises:
        ModelNotReady: see :func:`read_tuned_encoder`.
    """
    from fastembed import TextEmbedding

    encoder = read_tuned_encoder(folder)
    model = TextEmbedding(
        model_name=spec.fastembed_name, specific_model_path=str(folder), threads=threads
    )
    model.model.tokenizer.enable_truncation(max_length=encoder.max_length)  # type: ignore[attr-defined]
    return encoder, model
