"""A server over a small index (fake embedder, no reranker) answering with the scripted LM,
and an httpx client on its ASGI app."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import dspy
import httpx
import pytest
from fastapi import FastAPI

from filingqa.server.answering import Answerer, ProgramAnswerer
from filingqa.server.app import create_app
from filingqa.server.library import Library
from filingqa.server.settings import ServerSettings

from ..kit.lm import marker_lm
from ..kit.replies import AMBIGUITY, CURATE, HYDE, NO_AMBIGUITY, REWRITE, WRITE, chat, fenced
from ..retrieval.filings import fake_embedder, write_filings

QUESTION = "What was Acme's total revenue in fiscal 2024?"
PROGRAM = "total_revenue_2024 = 1250.0\nresult = total_revenue_2024"
WORKING = (
    "revenue = 1250  # Total revenue | FY2024 | ACME_2024_10K p.3 millions\nresult = revenue\n"
)
"""QUESTION's working: its figure is in the statement records, so code writes the program."""


def program_lm() -> dspy.LM:
    """The scripted backbone: one pass of the program, the code reading Acme's revenue (when
    the statement records do not settle the question)."""
    return marker_lm(
        [
            (AMBIGUITY, chat(**NO_AMBIGUITY)),
            (REWRITE, chat(company="Acme", period="FY2024", variants=["total revenue"])),
            (HYDE, chat(hypotheses=[{"query": "revenue", "passage": "Total revenue"}])),
            (CURATE, chat(keep=[1, 2, 3], answerable=True, missing="", complementary_query="")),
            (WRITE, fenced(PROGRAM)),
        ]
    )


@pytest.fixture
def filings(tmp_path: Path) -> list[Path]:
    return write_filings(tmp_path / "filings")


@pytest.fixture
def library(tmp_path: Path, filings: list[Path]) -> Iterator[Library]:
    opened = Library.open(tmp_path / "index", embedder=fake_embedder(), reranker=None)
    for path in filings[1:]:  # Acme's 2024 10-K and Globex's 10-Q; the 2023 10-K is uploaded
        opened.add(path)
    yield opened
    opened.close()


@pytest.fixture
def settings(tmp_path: Path) -> ServerSettings:
    return ServerSettings(index=tmp_path / "index", max_upload_bytes=200_000)


def serving(settings: ServerSettings, library: Library, answerer: Answerer) -> FastAPI:
    return create_app(settings, library, answerer)


@pytest.fixture
def answerer(library: Library) -> Answerer:
    return ProgramAnswerer(library, program_lm(), program=None)


@pytest.fixture
async def client(
    settings: ServerSettings, library: Library, answerer: Answerer
) -> AsyncIterator[httpx.AsyncClient]:
    app = serving(settings, library, answerer)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://filingqa.test") as http:
        yield http
    app.state.jobs.close(timeout=30)
