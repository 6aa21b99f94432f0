"""Locked down by default: loopback unless a token is set, the token checked, uploads
bounded and recognised by content, nothing served or stored outside what was indexed."""

from __future__ import annotations

import httpx
import pytest

from filingqa.cli import main
from filingqa.server.security import (
    RejectedUpload,
    UnsafeBind,
    authorized,
    check_bind,
    stored_name,
    upload_kind,
)
from filingqa.server.settings import ServerSettings

from .conftest import QUESTION, serving


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.20", "::", "example.org"])
def test_a_bind_beyond_loopback_without_a_token_refuses_to_start(tmp_path, host) -> None:
    with pytest.raises(UnsafeBind, match="FILINGQA_API_TOKEN"):
        check_bind(ServerSettings(index=tmp_path, host=host))
    check_bind(ServerSettings(index=tmp_path, host=host, token="s3cret"))


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "::1", "127.0.0.5"])
def test_loopback_needs_no_token(tmp_path, host) -> None:
    check_bind(ServerSettings(index=tmp_path, host=host))


def test_the_serve_command_refuses_a_public_bind_before_loading_anything(
    tmp_path, capsys, monkeypatch
) -> None:
    monkeypatch.delenv("FILINGQA_API_TOKEN", raising=False)
    code = main(["serve", "--index", str(tmp_path / "index"), "--host", "0.0.0.0"])
    assert code == 2
    assert "refusing to listen on 0.0.0.0 without a token" in capsys.readouterr().err
    assert not (tmp_path / "index").exists()


def test_the_token_comes_from_the_environment(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("FILINGQA_API_TOKEN", "from-env")
    settings = ServerSettings.from_environment(index=tmp_path)
    assert authorized(settings, "Bearer from-env")
    assert not authorized(settings, "Bearer from-envX")
    assert not authorized(settings, "Basic from-env")
    assert not authorized(settings, None)
    assert "from-env" not in repr(settings)  # a secret is not printed


async def token_client(settings, library, answerer, token: str | None) -> httpx.AsyncClient:
    guarded = ServerSettings(**{**settings.model_dump(exclude={"token"}), "token": "s3cret"})
    app = serving(guarded, library, answerer)
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    transport = httpx.ASGITransport(app=app)
    return httpx.AsyncClient(transport=transport, base_url="http://t", headers=headers)


@pytest.mark.parametrize("token", [None, "wrong", "S3CRET", "s3cret2"])
async def test_a_missing_or_wrong_token_is_401(settings, library, answerer, token) -> None:
    async with await token_client(settings, library, answerer, token) as client:
        for response in (
            await client.get("/v1/filings"),
            await client.post("/v1/ask", json={"question": QUESTION}),
            await client.get("/v1/filings/ACME_2024_10K/pages/1.png"),
        ):
            assert response.status_code == 401
            assert response.headers["www-authenticate"].startswith("Bearer")
        assert (await client.get("/healthz")).status_code == 200


async def test_the_right_token_is_let_in(settings, library, answerer) -> None:
    async with await token_client(settings, library, answerer, "s3cret") as client:
        assert (await client.get("/v1/filings")).status_code == 200


@pytest.mark.parametrize(
    "path",
    [
        "/v1/filings/..%2F..%2Fetc%2Fpasswd/pages/1.png",
        "/v1/filings/../../etc/passwd/pages/1.png",
        "/v1/filings/NOT_INDEXED_10K/pages/1.png",
        "/v1/filings/ACME_2024_10K/pages/99.png",
        "/v1/filings/ACME_2024_10K/pages/0.png",
        "/v1/jobs/no-such-job",
    ],
)
async def test_traversal_and_unknown_documents_are_404(client, path) -> None:
    assert (await client.get(path)).status_code == 404


async def test_a_passage_of_another_filing_is_not_highlighted_on_a_page(client) -> None:
    response = await client.get(
        "/v1/filings/GLOBEX_2024Q2_10Q/pages/1.png", params={"passage": "ACME_2024_10K:p3:tab1"}
    )
    assert response.status_code == 200


def left_behind(settings: ServerSettings) -> list[str]:
    folder = settings.uploads_dir
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())


async def test_an_oversized_upload_is_413_and_leaves_no_file(client, settings) -> None:
    big = b"a" * (settings.max_upload_bytes + 1)
    response = await client.post("/v1/filings", params={"name": "BIG_10K.txt"}, content=big)
    assert response.status_code == 413
    assert "limit" in response.json()["detail"]
    assert left_behind(settings) == []


async def test_an_oversized_upload_without_a_length_is_cut_off(client, settings) -> None:
    async def chunks():
        for _ in range(settings.max_upload_bytes // 10_000 + 2):
            yield b"b" * 10_000

    response = await client.post("/v1/filings", params={"name": "BIG_10K.txt"}, content=chunks())
    assert response.status_code == 413
    assert left_behind(settings) == []


async def test_a_text_file_renamed_pdf_is_refused_clearly(client, settings) -> None:
    response = await client.post(
        "/v1/filings", params={"name": "report.pdf"}, content=b"Revenue was 12.\n"
    )
    assert response.status_code == 415
    assert (
        response.json()["detail"] == "'report.pdf' is named as a PDF but its content is plain text"
    )
    assert left_behind(settings) == []


async def test_binary_content_is_refused(client, settings) -> None:
    response = await client.post(
        "/v1/filings", params={"name": "image.png"}, content=b"\x89PNG\r\n\x1a\n\x00\x00"
    )
    assert response.status_code == 415
    assert left_behind(settings) == []


async def test_an_empty_upload_is_refused(client, settings) -> None:
    response = await client.post("/v1/filings", params={"name": "EMPTY.txt"}, content=b"")
    assert response.status_code == 422
    assert left_behind(settings) == []


def test_stored_names_cannot_leave_the_uploads_folder() -> None:
    assert stored_name("../../etc/passwd", "text") == "passwd.txt"
    assert stored_name("..\\..\\boot.ini", "text") == "boot.txt"
    assert stored_name("ACME 2024 10-K (final).pdf", "pdf") == "ACME_2024_10-K_final.pdf"
    assert stored_name("report.txt", "pdf") == "report.pdf"  # the content decides the suffix
    with pytest.raises(RejectedUpload):
        stored_name("../..", "text")


def test_upload_kinds_come_from_content() -> None:
    assert upload_kind("x.pdf", b"%PDF-1.7 ...") == "pdf"
    assert upload_kind("x", b"<!DOCTYPE html><html><body>10-K") == "html"
    assert upload_kind("x.htm", b"<html><table>") == "html"
    assert upload_kind("x.txt", "Umsatz stieg um 5 % – gut".encode()) == "text"
    with pytest.raises(RejectedUpload, match="named as plain text but its content is a PDF"):
        upload_kind("x.txt", b"%PDF-1.4")


async def test_json_bodies_and_questions_are_bounded(client, settings) -> None:
    padded = {"question": QUESTION, "company": "x" * settings.max_json_bytes}
    assert (await client.post("/v1/ask", json=padded)).status_code == 413
    long = {"question": "What was revenue? " * 200}
    response = await client.post("/v1/ask", json=long)
    assert response.status_code == 422
    assert "over 2,000 characters" in response.json()["detail"]


async def test_cors_is_off_unless_configured(client, settings, library, answerer) -> None:
    origin = {"Origin": "https://elsewhere.example"}
    response = await client.get("/v1/filings", headers=origin)
    assert "access-control-allow-origin" not in response.headers
    allowed = settings.model_copy(update={"cors_origins": ("https://elsewhere.example",)})
    app = serving(allowed, library, answerer)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as c:
        response = await c.get("/v1/filings", headers=origin)
    assert response.headers["access-control-allow-origin"] == "https://elsewhere.example"
    app.state.jobs.close(timeout=10)
