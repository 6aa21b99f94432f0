"""The queue in front of the model: ``workers`` questions answered at once, at most
``waiting`` more waiting; a question beyond that is turned away with a time to retry.

A question runs in a worker thread (generation blocks). Its client going away cancels it:
a waiting question leaves the queue; a running one is stopped at its next step, and its
slot is freed only once its thread has stopped, so the model never answers two questions
more than it may.
"""

from __future__ import annotations

import asyncio
import contextvars
import math
import threading
import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")
RECENT = 20  # answers the expected time of the next one is the mean of


class QueueFull(Exception):
    """Every worker is busy and the waiting line is full."""

    def __init__(self, retry_after: int) -> None:
        super().__init__(f"busy: retry in {retry_after} s")
        self.retry_after = retry_after


class QuestionCancelled(BaseException):
    """Raised inside a running question whose client has gone (a ``BaseException``, so no
    step's fault handling takes it for a failure of the step)."""


class AnswerQueue:
    """Admission and concurrency for the questions of one server."""

    def __init__(self, workers: int, waiting: int) -> None:
        self.workers = workers
        self.waiting = waiting
        self._slots = asyncio.Semaphore(workers)
        self._admitted = 0
        self._seconds: list[float] = []
        self._running: dict[int, float] = {}

    @property
    def admitted(self) -> int:
        """Questions running or waiting."""
        return self._admitted

    def retry_after(self) -> int:
        """Seconds until a place in the queue is likely free, i.e. until a running question
        ends: the mean time of recent answers over the workers (before any answer, the time
        the running questions have taken so far); whole seconds, at least 1."""
        recent = self._seconds[-RECENT:]
        if recent:
            expected = sum(recent) / len(recent)
        else:
            now = time.monotonic()
            expected = max((now - since for since in self._running.values()), default=0.0)
        return max(1, math.ceil(expected / self.workers))

    def check(self) -> None:
        """Raise :class:`QueueFull` when a question now would be turned away."""
        if self._admitted >= self.workers + self.waiting:
            raise QueueFull(self.retry_after())

    async def run(self, work: Callable[[threading.Event], T]) -> T:
        """``work(cancelled)`` in a worker thread once a worker is free; ``cancelled`` is set
        when the caller is cancelled, and the slot is held until ``work`` returns.

        Raises:
            QueueFull: the queue is full.
        """
        self.check()
        self._admitted += 1
        try:
            async with self._slots:
                return await self._in_thread(work)
        finally:
            self._admitted -= 1

    async def _in_thread(self, work: Callable[[threading.Event], T]) -> T:
        cancelled = threading.Event()
        loop = asyncio.get_running_loop()
        context = contextvars.copy_context()
        started = time.monotonic()
        self._running[id(cancelled)] = started
        future = loop.run_in_executor(None, context.run, work, cancelled)
        try:
            result = await asyncio.shield(future)
        except asyncio.CancelledError:
            cancelled.set()
            await asyncio.wait([future])  # the model is free only once the thread stops
            raise
        finally:
            del self._running[id(cancelled)]
        self._seconds.append(time.monotonic() - started)
        return result
