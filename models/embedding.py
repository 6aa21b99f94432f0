"""Load the pinned embedding model into fastembed, fully offline."""

from __future__ import annotations

from typing import TYPE_CHECKING

from filingqa.models.registry import DEFAULT_EMBEDDING, EmbeddingSpec
from filingqa.models.store import ensure_embedding

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
