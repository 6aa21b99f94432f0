"""The HTTP API and the web page, as an ASGI app (:func:`create_app`).

``/v1`` is the versioned API, described by OpenAPI at ``/v1/openapi.json``: ask (answered
whole, or streamed as server-sent events), the filings and their page images, uploads and
their jobs. ``/healthz`` and ``/readyz`` tell a supervisor the process is up and ready; ``/``
is the page. With a token set, every ``/v1`` call must carry it.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import threading
import time
import uuid
from collections.abc import AsyncIterator, Awaitable
from contextlib import asynccontextmanager
from datetime import date
from importlib import resources
from pathlib import Path
from typing import Annotated, Any, TypeVar

from fastapi import FastAPI, HTTPException, Query, Request
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import FileResponse, JSONResponse, Response, StreamingResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from filingqa import __version__
from filingqa.lm.trace import Step
from filingqa.server.answer_queue import AnswerQueue, QueueFull
from filingqa.server.answering import Answerer, AskRequest, AskResponse, step_event
from filingqa.server.jobs import IngestJobs, Job
from filingqa.server.library import Library
from filingqa.server.pages import PageNotFound, page_png
from filingqa.server.security import (
    SNIFF_BYTES,
    RejectedUpload,
    authorized,
    stored_name,
    upload_kind,
)
from filingqa.server.settings import ServerSettings

T = TypeVar("T")
STATIC = Path(str(resources.files("filingqa.server") / "static"))
INCOMING = ".incoming"  # uploads being received; a partial one is removed at start
DISCONNECT_POLL = 0.25  # seconds between checks that the client of a question is still there


class Filing(BaseModel):
    """An indexed filing and what is known of it."""

    doc_id: str
    company: str | None
    ticker: str | None
    doc_type: str
    fiscal_year: int | None
    fiscal_quarter: int | None
    period_end: date | None
    pages: int | None


class Problem(BaseModel):
    """Why a request was not served."""

    detail: str


def create_app(settings: ServerSettings, library: Library, answerer: Answerer) -> FastAPI:
    """The app serving ``library`` with ``answerer`` under ``settings``; uploads a stopped
    server had not finished indexing are queued again."""
    queue = AnswerQueue(settings.workers, settings.queue)
    uploads = settings.uploads_dir
    shutil.rmtree(uploads / INCOMING, ignore_errors=True)
    jobs = IngestJobs(library)
    for path in library.unfinished(sorted(uploads.glob("*.*")) if uploads.is_dir() else []):
        jobs.submit(path)  # an upload a stopped server had not finished indexing

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        yield
        jobs.close(timeout=60)

    app = FastAPI(
        title="filingqa",
        version=__version__,
        summary="Answers questions about financial filings with the working and citations.",
        docs_url=None,
        redoc_url=None,
        openapi_url="/v1/openapi.json",
        lifespan=lifespan,
    )
    app.add_middleware(_Guard, settings=settings)
    if settings.cors_origins:
        app.add_middleware(
            CORSMiddleware,
            allow_origins=list(settings.cors_origins),
            allow_methods=["GET", "POST"],
            allow_headers=["Authorization", "Content-Type"],
        )
    busy: dict[int | str, dict[str, Any]] = {
        503: {"model": Problem, "description": "busy: retry after Retry-After seconds"}
    }

    @app.post("/v1/ask", response_model=AskResponse, responses=busy, tags=["ask"])
    async def ask(
        request: Request, body: AskRequest, response: Response
    ) -> AskResponse | JSONResponse:
        """The answer to a question, once it is complete. ``Server-Timing`` says how long
        it waited for a worker (``queue``), was answered (``answer``) and took in all
        (``total``), in milliseconds."""
        _check_question(body, settings)
        started = time.perf_counter()
        timed: list[float] = []

        def work(cancelled: threading.Event) -> AskResponse:
            timed.append(time.perf_counter())
            try:
                return answerer(body, _ignore, cancelled)
            finally:
                timed.append(time.perf_counter())

        try:
            answer = await _until_disconnect(request, queue.run(work))
        except QueueFull as full:
            return _busy(full)
        total = time.perf_counter() - started
        response.headers["Server-Timing"] = _server_timing(
            queue=timed[0] - started, answer=timed[1] - timed[0], total=total
        )
        return answer

    stream: dict[int | str, dict[str, Any]] = {
        200: {"content": {"text/event-stream": {}}, "description": "events"}
    }

    @app.post("/v1/ask/stream", response_model=None, responses=busy | stream, tags=["ask"])
    async def ask_stream(body: AskRequest) -> StreamingResponse | JSONResponse:
        """The program's steps as server-sent events as they happen (``event: step``), then
        the answer (``event: answer``) or what stopped it (``event: error``)."""
        _check_question(body, settings)
        try:
            queue.check()
        except QueueFull as full:
            return _busy(full)
        return StreamingResponse(
            _streamed(queue, answerer, body),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
        )

    @app.get("/v1/filings", response_model=list[Filing], tags=["filings"])
    async def filings() -> list[Filing]:
        """The indexed filings with their metadata."""
        return [Filing.model_validate(d.model_dump()) for d in library.documents()]

    @app.post(
        "/v1/filings",
        status_code=202,
        response_model=Job,
        responses={413: {"model": Problem}, 415: {"model": Problem}},
        tags=["filings"],
    )
    async def upload(
        request: Request, name: Annotated[str, Query(max_length=200)]
    ) -> Job | JSONResponse:
        """Upload a PDF, HTML or text filing as the raw request body (``name``: its file
        name, e.g. ``ACME_2024_10K.pdf``); returns its ingestion job."""
        return await _received(request, name, settings, uploads, jobs)

    @app.get("/v1/jobs/{job_id}", response_model=Job, tags=["filings"])
    async def job(job_id: str) -> Job:
        """An ingestion job: queued, running, done (with its passages) or failed (why)."""
        found = jobs.get(job_id)
        if found is None:
            raise HTTPException(404, f"no job {job_id}")
        return found

    @app.get(
        "/v1/filings/{doc_id}/pages/{page}.png",
        response_class=Response,
        responses={200: {"content": {"image/png": {}}}},
        tags=["filings"],
    )
    async def page(doc_id: str, page: int, passage: str | None = None) -> Response:
        """Page ``page`` (1-based) of an indexed filing, ``passage`` highlighted."""
        document = library.document(doc_id)
        if document is None or not document.source:
            raise HTTPException(404, f"no indexed filing {doc_id}")
        cited = library.passage(passage) if passage else None
        if cited is not None and cited.doc_id != doc_id:
            cited = None
        try:
            png = await asyncio.to_thread(page_png, Path(document.source), page, cited)
        except PageNotFound as missing:
            raise HTTPException(404, str(missing)) from None
        return Response(
            png, media_type="image/png", headers={"Cache-Control": "private, max-age=300"}
        )

    @app.get("/healthz", tags=["health"])
    async def healthz() -> dict[str, str]:
        """The process is up."""
        return {"status": "ok"}

    @app.get("/readyz", tags=["health"])
    async def readyz() -> JSONResponse:
        """Models loaded and the index open: questions can be answered."""
        documents = len(library.documents())
        return JSONResponse({"ready": True, "documents": documents, "queued": queue.admitted})

    @app.get("/", include_in_schema=False)
    async def home() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    app.state.queue, app.state.jobs, app.state.library = queue, jobs, library
    return app


def _server_timing(**seconds: float) -> str:
    return ", ".join(f"{name};dur={value * 1000:.2f}" for name, value in seconds.items())


def _ignore(_: Step) -> None:
    """A step listener for a question answered whole."""


def _check_question(body: AskRequest, settings: ServerSettings) -> None:
    if len(body.question) > settings.max_question_chars:
        raise HTTPException(422, f"the question is over {settings.max_question_chars:,} characters")


def _busy(full: QueueFull) -> JSONResponse:
    return JSONResponse(
        {"detail": f"busy answering other questions: retry in {full.retry_after} s"},
        status_code=503,
        headers={"Retry-After": str(full.retry_after)},
    )


async def _until_disconnect(request: Request, work: Awaitable[T]) -> T:
    """``work``'s result; cancelled (and re-raised as such) if the client goes away first."""
    task = asyncio.ensure_future(work)
    while not task.done():
        done, _ = await asyncio.wait([task], timeout=DISCONNECT_POLL)
        if not done and await request.is_disconnected():
            task.cancel()
            await asyncio.wait([task])
            raise HTTPException(499, "the client closed the request")
    return task.result()


async def _streamed(queue: AnswerQueue, answerer: Answerer, body: AskRequest) -> AsyncIterator[str]:
    """Server-sent events of one question; leaving early (the client went away) cancels it."""
    loop = asyncio.get_running_loop()
    events: asyncio.Queue[tuple[str, object]] = asyncio.Queue()

    def on_step(step: Step) -> None:
        loop.call_soon_threadsafe(events.put_nowait, ("step", step_event(step)))

    task = asyncio.ensure_future(queue.run(lambda cancelled: answerer(body, on_step, cancelled)))
    task.add_done_callback(lambda _: events.put_nowait(("done", None)))
    try:
        while True:
            kind, data = await events.get()
            if kind == "step":
                yield _event("step", data)
                continue
            if task.exception() is None:
                yield _event("answer", task.result().model_dump(mode="json"))
            elif isinstance(task.exception(), QueueFull):
                yield _event("error", {"detail": str(task.exception()), "busy": True})
            else:
                yield _event("error", {"detail": f"the question failed: {task.exception()}"})
            return
    finally:
        if not task.done():
            task.cancel()
            await asyncio.wait([task])


def _event(kind: str, data: object) -> str:
    return f"event: {kind}\ndata: {json.dumps(data)}\n\n"


async def _received(
    request: Request, name: str, settings: ServerSettings, uploads: Path, jobs: IngestJobs
) -> Job | JSONResponse:
    """The upload stored under a safe name and queued, or why it was refused (nothing is
    left on disk then)."""
    incoming = uploads / INCOMING
    incoming.mkdir(parents=True, exist_ok=True)
    part = incoming / f"{uuid.uuid4().hex}.part"
    try:
        size = await _receive(request, part, settings.max_upload_bytes)
        if size == 0:
            raise HTTPException(422, "empty upload: send the filing as the request body")
        with part.open("rb") as read:
            head = read.read(SNIFF_BYTES)
        kind = upload_kind(name, head)
        target = uploads / stored_name(name, kind)
        os.replace(part, target)
    except RejectedUpload as rejected:
        raise HTTPException(415, str(rejected)) from None
    finally:
        part.unlink(missing_ok=True)
    return jobs.submit(target)


async def _receive(request: Request, part: Path, limit: int) -> int:
    """Write the body to ``part``; refuse it (413) once it exceeds ``limit`` bytes."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise HTTPException(413, f"the upload is over the {limit:,}-byte limit")
    size = 0
    with part.open("wb") as out:
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise HTTPException(413, f"the upload is over the {limit:,}-byte limit")
            out.write(chunk)
        out.flush()
        os.fsync(out.fileno())
    return size


class _Guard:
    """The token check on ``/v1`` and the JSON body bound, before any route runs; security
    headers on every response."""

    def __init__(self, app: ASGIApp, settings: ServerSettings) -> None:
        self.app = app
        self.settings = settings

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
        path: str = scope["path"]
        problem = self._problem(path, scope["method"], headers)
        if problem is None and headers.get("content-type", "").startswith("application/json"):
            body = await _bounded_body(receive, self.settings.max_json_bytes)
            if body is None:
                limit = self.settings.max_json_bytes
                problem = 413, f"the request body is over {limit:,} bytes", {}
            else:
                receive = _replay(body, receive)
        if problem is not None:
            status, detail, extra = problem
            response = JSONResponse({"detail": detail}, status_code=status, headers=extra)
            await response(scope, receive, _secured(send))
            return
        await self.app(scope, receive, _secured(send))

    def _problem(
        self, path: str, method: str, headers: dict[str, str]
    ) -> tuple[int, str, dict[str, str]] | None:
        guarded = path.startswith("/v1/") and path != "/v1/openapi.json" and method != "OPTIONS"
        if guarded and not authorized(self.settings, headers.get("authorization")):
            bearer = {"WWW-Authenticate": 'Bearer realm="filingqa"'}
            return 401, "missing or wrong token", bearer
        length = headers.get("content-length", "")
        is_json = headers.get("content-type", "").startswith("application/json")
        if is_json and length.isdigit() and int(length) > self.settings.max_json_bytes:
            return 413, f"the request body is over {self.settings.max_json_bytes:,} bytes", {}
        return None


async def _bounded_body(receive: Receive, limit: int) -> bytes | None:
    """The whole request body, or None once it exceeds ``limit`` bytes."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


def _replay(body: bytes, receive: Receive) -> Receive:
    """A ``receive`` that gives ``body`` whole, then what the client sends next (its
    disconnect)."""
    sent = False

    async def replayed() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replayed


SECURITY_HEADERS = [
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (
        b"content-security-policy",
        b"default-src 'self'; img-src 'self' data:; frame-ancestors 'none'",
    ),
]


def _secured(send: Send) -> Send:
    async def sending(message: Message) -> None:
        if message["type"] == "http.response.start":
            message["headers"] = [*message.get("headers", []), *SECURITY_HEADERS]
        await send(message)

    return sending
