import json
from pathlib import Path

import pytest

from filingqa.artifacts.manifest import (
    REDACTED,
    UnsupportedArtifact,
    read_manifest,
    redact_url,
    scrub,
)


@pytest.mark.parametrize(
    ("url", "clean"),
    [
        ("https://u:p4ss@host.example:8443/v1?key=abc#x", "https://host.example:8443/v1"),
        ("http://127.0.0.1:8000/v1", "http://127.0.0.1:8000/v1"),
        (None, None),
    ],
)
def test_urls_lose_credentials_and_queries(url: str | None, clean: str | None) -> None:
    assert redact_url(url) == clean


def test_scrub_replaces_secret_env_values(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-0123456789")
    monkeypatch.setenv("HOME_DIR_NAME", "sk-ant-0123456789-not-a-secret-name")
    text = scrub('{"backbone": "x", "note": "sk-ant-0123456789"}')
    assert "sk-ant-0123456789" not in text and REDACTED in text
    assert scrub("abc", secrets=["b"]) == f"a{REDACTED}c"


def test_read_manifest_refuses_unknown_versions(tmp_path: Path) -> None:
    (tmp_path / "manifest.json").write_text(json.dumps({"format_version": "2"}))
    with pytest.raises(UnsupportedArtifact, match="this filingqa reads version 1"):
        read_manifest(tmp_path)
    (tmp_path / "manifest.json").write_text("[]")
    with pytest.raises(UnsupportedArtifact):
        read_manifest(tmp_path)
