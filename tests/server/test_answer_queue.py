"""The queue in front of the model: 503 with Retry-After when full, never a dropped or
hanging question, and a question whose client goes away is cancelled."""

from __future__ import annotations

import asyncio
import threading
import time

import httpx
import pytest

from filingqa.lm.trace import Step
from filingqa.server.answer_queue import AnswerQueue, QuestionCancelled, QueueFull
from filingqa.server.answering import AskRequest, AskResponse
from filingqa.server.app import _streamed

from .conftest import QUESTION, serving


class HeldAnswerer:
    """Answers once released; reports each step; stops at a step once cancelled."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.started = threading.Event()
        self.cancelled: list[bool] = []
        self.running = 0
        self.most_running = 0
        self._lock = threading.Lock()

    def __call__(self, request: AskRequest, on_step, cancelled: threading.Event) -> AskResponse:
        with self._lock:
            self.running += 1
            self.most_running = max(self.most_running, self.running)
        try:
            self.started.set()
            for number in range(200):
                on_step(Step(name=f"step {number}"))
                if cancelled.is_set():
                    self.cancelled.append(True)
                    raise QuestionCancelled("client gone")
                if self.release.wait(0.01):
                    break
            return AskResponse(
                question=request.question, program="uncompiled", answer="42", outcome="answered",
                reason="", working="", citations=[], untraced_numbers=[], lm_calls=0,
                cached_calls=0, tokens=0, seconds=0.0,
            )  # fmt: skip
        finally:
            with self._lock:
                self.running -= 1


async def test_a_full_queue_is_503_with_retry_after_and_the_rest_are_answered(
    settings, library
) -> None:
    held = HeldAnswerer()
    app = serving(settings.model_copy(update={"workers": 1, "queue": 1}), library, held)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
        ask = {"question": QUESTION}
        first = asyncio.ensure_future(client.post("/v1/ask", json=ask))
        await asyncio.to_thread(held.started.wait, 5)
        second = asyncio.ensure_future(client.post("/v1/ask", json=ask))
        await asyncio.sleep(0.1)
        refused = await client.post("/v1/ask", json=ask)
        streamed = await client.post("/v1/ask/stream", json=ask)
        held.release.set()
        answered = await asyncio.gather(first, second)
    for busy in (refused, streamed):
        assert busy.status_code == 503
        assert int(busy.headers["retry-after"]) >= 1
        assert "busy" in busy.json()["detail"]
    assert [r.status_code for r in answered] == [200, 200]
    assert held.most_running == 1  # one question at a time on the model
    app.state.jobs.close(timeout=10)


async def test_a_cancelled_question_stops_at_its_next_step_and_frees_its_slot() -> None:
    queue = AnswerQueue(workers=1, waiting=0)
    held = HeldAnswerer()
    task = asyncio.ensure_future(
        queue.run(lambda cancelled: held(AskRequest(question="q"), lambda s: None, cancelled))
    )
    await asyncio.to_thread(held.started.wait, 5)
    with pytest.raises(QueueFull):
        queue.check()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert held.cancelled == [True] and held.running == 0  # stopped before the slot was freed
    assert queue.admitted == 0
    queue.check()


async def test_a_stream_whose_client_goes_away_cancels_its_question() -> None:
    queue = AnswerQueue(workers=1, waiting=0)
    held = HeldAnswerer()
    events = _streamed(queue, held, AskRequest(question="q"))
    first = await anext(events)
    assert first.startswith("event: step\n")
    await events.aclose()  # what the server does when the client disconnects
    assert held.cancelled == [True] and held.running == 0 and queue.admitted == 0


async def test_retry_after_is_the_time_until_a_running_question_ends() -> None:
    queue = AnswerQueue(workers=1, waiting=1)
    held = HeldAnswerer()
    running = [
        asyncio.ensure_future(
            queue.run(lambda cancelled: held(AskRequest(question="q"), lambda s: None, cancelled))
        )
        for _ in range(2)
    ]
    await asyncio.to_thread(held.started.wait, 5)
    await asyncio.sleep(1.3)
    with pytest.raises(QueueFull) as full:
        queue.check()
    assert full.value.retry_after == 2  # nothing answered yet: as long as it has run so far
    held.release.set()
    await asyncio.gather(*running)
    for _ in range(20):
        await queue.run(lambda cancelled: time.sleep(0.01))
    assert queue.retry_after() == 1  # recent answers took a fraction of a second
