"""``filingqa index``: a summary table, one line per failed file, resumable reruns."""

from __future__ import annotations

from pathlib import Path

import pytest

from filingqa.cli import main
from filingqa.retrieval.index.embedder import Embedder
from filingqa.retrieval.ingest.metadata_store import MetadataStore

from .retrieval.filings import fake_embedder, write_filings


@pytest.fixture(autouse=True)
def offline_embedder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Embedder, "load", classmethod(lambda cls, *a, **kw: fake_embedder()))


def test_index_files_prints_summary_and_failures(tmp_path: Path, capsys) -> None:
    files = write_filings(tmp_path / "filings")
    broken = tmp_path / "filings" / "broken.pdf"
    broken.write_bytes(b"%PDF-1.4 not really")
    location = tmp_path / "index"
    code = main(["index", *map(str, files), str(broken), "--index", str(location), "--quiet"])
    out = capsys.readouterr().out
    assert code == 1  # some file failed
    assert "files     4 (3 indexed, 0 already done, 1 failed)" in out
    assert f"failed: {broken}: corrupt: not a readable PDF" in out
    assert MetadataStore.load(location).company("GBX") == "Globex Inc."
    assert main(["index", *map(str, files), "--index", str(location), "--quiet"]) == 0
    assert "files     3 (0 indexed, 3 already done, 0 failed)" in capsys.readouterr().out


def test_index_defaults_to_the_home_index(isolated_home: Path, tmp_path: Path, capsys) -> None:
    files = write_filings(tmp_path / "filings")
    assert main(["index", str(tmp_path / "filings"), "--quiet"]) == 0
    assert f"index     {isolated_home / 'indexes' / 'default'}" in capsys.readouterr().out
    assert (isolated_home / "indexes" / "default" / "metadata.json").is_file()
    assert len(files) == 3


def test_index_needs_paths_or_a_dataset(capsys) -> None:
    assert main(["index", "--quiet"]) == 2
    assert "give files or folders to index, or --dataset" in capsys.readouterr().err
    assert main(["index", "a.txt", "--dataset", "financebench"]) == 2


def test_index_dataset_without_data_dir_is_a_one_line_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    monkeypatch.delenv("FILINGQA_DATA_DIR", raising=False)
    assert main(["index", "--dataset", "financebench", "--index", str(tmp_path / "i")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("filingqa: error: no data dir") and err.count("\n") == 1
