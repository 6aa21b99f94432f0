"""The API over a small index with the scripted program: ask (whole and streamed), the
filings, uploads and their jobs, page images, health."""

from __future__ import annotations

import asyncio
import io
import json

import httpx
import numpy as np
from PIL import Image

from .conftest import QUESTION, WORKING


def events(body: str) -> list[tuple[str, dict]]:
    """The server-sent events of a stream, as (event, data)."""
    found = []
    for block in body.strip().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in block.splitlines())
        found.append((lines["event"], json.loads(lines["data"])))
    return found


async def test_ask_gives_the_answer_its_working_and_the_cited_text(client) -> None:
    response = await client.post("/v1/ask", json={"question": QUESTION})
    assert response.status_code == 200, response.text
    answer = response.json()
    assert answer["answer"] == "1,250 million"
    assert (answer["outcome"], answer["working"]) == ("answered", WORKING)
    assert answer["program"] == "uncompiled"
    cited = answer["citations"]
    assert [(c["doc"], c["page"]) for c in cited] == [("ACME_2024_10K", 3)]
    assert "| Total revenue | 1,250.0 | 900.0 |" in cited[0]["text"]
    assert answer["lm_calls"] >= 4 and answer["seconds"] >= 0
    timing = dict(part.split(";dur=") for part in response.headers["server-timing"].split(", "))
    assert set(timing) == {"queue", "answer", "total"}
    assert float(timing["total"]) >= float(timing["answer"]) + float(timing["queue"]) - 0.01


async def test_the_stream_sends_each_step_as_it_happens_then_the_answer(client) -> None:
    response = await client.post("/v1/ask/stream", json={"question": QUESTION})
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/event-stream")
    sent = events(response.text)
    kinds = [kind for kind, _ in sent]
    assert kinds[-1] == "answer" and set(kinds[:-1]) == {"step"}
    steps = [data["name"] for kind, data in sent if kind == "step"]
    assert {"route", "retrieve", "curate"} <= set(steps)
    assert any(name.startswith("reason") for name in steps)
    assert sent[-1][1]["answer"] == "1,250 million"


async def test_a_narrowed_question_searches_only_its_documents(client, library) -> None:
    body = {"question": QUESTION, "doc_ids": ["GLOBEX_2024Q2_10Q"]}
    answer = (await client.post("/v1/ask", json=body)).json()
    assert {c["doc"] for c in answer["citations"]} <= {"GLOBEX_2024Q2_10Q"}


async def test_filings_list_the_indexed_documents_with_their_metadata(client) -> None:
    listed = (await client.get("/v1/filings")).json()
    by_id = {f["doc_id"]: f for f in listed}
    assert sorted(by_id) == ["ACME_2024_10K", "GLOBEX_2024Q2_10Q"]
    assert by_id["ACME_2024_10K"]["company"] == "Acme Corporation"
    assert by_id["ACME_2024_10K"]["fiscal_year"] == 2024
    assert "source" not in by_id["ACME_2024_10K"]  # no server path leaves the server


async def wait_for(client: httpx.AsyncClient, job_id: str) -> dict:
    for _ in range(200):
        job = (await client.get(f"/v1/jobs/{job_id}")).json()
        if job["state"] in ("done", "failed"):
            return job
        await asyncio.sleep(0.05)
    raise AssertionError(f"job {job_id} did not finish")


async def test_an_uploaded_filing_is_indexed_by_its_job_and_then_searchable(
    client, filings, settings
) -> None:
    body = filings[0].read_bytes()  # ACME_2023_10K.txt
    response = await client.post("/v1/filings", params={"name": "ACME_2023_10K.txt"}, content=body)
    assert response.status_code == 202, response.text
    job = await wait_for(client, response.json()["id"])
    assert (job["state"], job["doc_id"], job["error"]) == ("done", "ACME_2023_10K", None)
    assert job["passages"] > 0 and job["pages"] == 3
    listed = {f["doc_id"] for f in (await client.get("/v1/filings")).json()}
    assert "ACME_2023_10K" in listed
    stored = [p.name for p in settings.uploads_dir.iterdir() if p.is_file()]
    assert stored == ["ACME_2023_10K.txt"]


async def test_an_unreadable_upload_fails_its_job_with_the_reason(client) -> None:
    response = await client.post("/v1/filings", params={"name": "BROKEN.pdf"}, content=b"%PDF-1.4")
    job = await wait_for(client, response.json()["id"])
    assert job["state"] == "failed" and job["error"].startswith("corrupt")
    assert "/" not in job["error"]  # no server path in the reason
    listed = {f["doc_id"] for f in (await client.get("/v1/filings")).json()}
    assert "BROKEN" not in listed


async def test_a_page_image_shows_the_cited_passage_highlighted(client) -> None:
    answer = (await client.post("/v1/ask", json={"question": QUESTION})).json()
    cited = answer["citations"][0]
    url = f"/v1/filings/{cited['doc']}/pages/{cited['page']}.png"
    plain = await client.get(url)
    marked = await client.get(url, params={"passage": cited["passage_id"]})
    assert plain.status_code == marked.status_code == 200
    assert marked.headers["content-type"] == "image/png"
    yellow = [_yellow_share(response.content) for response in (plain, marked)]
    assert yellow[0] == 0 < yellow[1]


def _yellow_share(png: bytes) -> float:
    pixels = np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(int)
    red, green, blue = pixels[..., 0], pixels[..., 1], pixels[..., 2]
    return float(((red > 200) & (green > 190) & (blue < 180)).mean())


async def test_health_and_readiness(client) -> None:
    assert (await client.get("/healthz")).json() == {"status": "ok"}
    ready = (await client.get("/readyz")).json()
    assert ready["ready"] is True and ready["documents"] == 2


async def test_the_api_is_described_by_openapi(client) -> None:
    spec = (await client.get("/v1/openapi.json")).json()
    assert {"/v1/ask", "/v1/ask/stream", "/v1/filings", "/v1/jobs/{job_id}"} <= set(spec["paths"])
    assert "/v1/filings/{doc_id}/pages/{page}.png" in spec["paths"]


async def test_the_page_is_served_with_security_headers(client) -> None:
    response = await client.get("/")
    assert response.status_code == 200 and "<html" in response.text
    assert response.headers["x-content-type-options"] == "nosniff"
    assert "default-src 'self'" in response.headers["content-security-policy"]
