"""Starting a server: the checks made before anything loads, and a first start over an
empty index, which indexes the bundled sample so there is something to ask about."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import pytest

from filingqa.server import run
from filingqa.server.settings import ServerSettings

from .conftest import program_lm


def test_several_workers_for_the_embedded_model_are_refused_before_loading(tmp_path) -> None:
    settings = ServerSettings(index=tmp_path / "index", workers=2)
    with pytest.raises(ValueError, match="one question at a time"):
        run.serve(settings)
    assert not (tmp_path / "index").exists()


def test_a_program_and_uncompiled_together_are_refused_before_loading(tmp_path) -> None:
    artifact = Path(__file__).resolve().parents[2] / "artifacts" / "qwen-local"
    settings = ServerSettings(index=tmp_path / "index", program=artifact, uncompiled=True)
    with pytest.raises(ValueError, match="--program and --uncompiled name two programs"):
        run.serve(settings)
    assert not (tmp_path / "index").exists()


@pytest.mark.slow
def test_a_first_start_indexes_the_sample_and_serves_it(tmp_path, monkeypatch, capsys) -> None:
    served = {}

    def fake_uvicorn_run(app, host: str, port: int, log_level: str) -> None:
        async def ask() -> tuple[list[dict], httpx.Response]:
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
                filings = (await client.get("/v1/filings")).json()
                page = await client.get("/v1/filings/NORTHWIND_2024_10K/pages/1.png")
            return filings, page

        served["filings"], served["page"] = asyncio.run(ask())
        served["address"] = (host, port)
        app.state.jobs.close(timeout=10)

    monkeypatch.setattr("uvicorn.run", fake_uvicorn_run)
    monkeypatch.setattr(run, "get_lm", lambda spec, api_base=None: program_lm())
    run.serve(ServerSettings(index=tmp_path / "index", port=8123))
    printed = capsys.readouterr()
    assert "indexing the bundled sample" in printed.err
    assert "serving" in printed.out and "http://127.0.0.1:8123/" in printed.out
    assert "answering with qwen-local (compiled)" in printed.out
    assert [(f["doc_id"], f["fiscal_year"]) for f in served["filings"]] == [
        ("NORTHWIND_2024_10K", 2024)
    ]
    assert served["page"].status_code == 200
    assert served["address"] == ("127.0.0.1", 8123)
    assert Path(tmp_path / "index").is_dir()
