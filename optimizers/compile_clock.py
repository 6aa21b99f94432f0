"""The compile's clock: each stage's wall seconds and LM calls as they ran, and the whole
compile's wall time, kept in the out dir (``clock.json``) so that a resumed compile adds
its run to the earlier ones'. While :meth:`CompileClock.ticking`, the record is saved every
few seconds with the stage in progress, so that a run killed outright (SIGKILL, a host
stopping) keeps its time but the last few seconds.

Stage records count what the answers' rows do not: loading models and indexes, the
open-corpus page check's searches, the judge's calls, writing files. An LM call is counted
when it is made (cached or not), by a callback on the compile's LMs.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import dspy
from dspy.utils.callback import BaseCallback
from pydantic import BaseModel, ConfigDict

CLOCK_FILE = "clock.json"
START = "models, plan and timing"
"""The stage from the command's start to the first stage: loading, drawing, timing."""
TICK_SECONDS = 30.0
"""How often :meth:`CompileClock.ticking` saves the record."""


class StageTime(BaseModel):
    """A stage's wall seconds and LM calls, over every run that worked on it."""

    model_config = ConfigDict(extra="forbid")

    seconds: float = 0.0
    lm_calls: int = 0


class ClockRecord(BaseModel):
    """What ``clock.json`` holds: each run's wall seconds, and each stage's time."""

    model_config = ConfigDict(extra="forbid")

    runs: list[float] = []
    stages: dict[str, StageTime] = {}

    @property
    def wall_seconds(self) -> float:
        """Every run's wall seconds together."""
        return round(sum(self.runs), 1)


class CallCount(BaseCallback):
    """Counts the LM calls of the LMs it is attached to; a copy of an LM shares the count."""

    def __init__(self) -> None:
        self.calls = 0

    def on_lm_start(self, call_id: str, instance: Any, inputs: dict[str, Any]) -> None:
        self.calls += 1

    def __deepcopy__(self, memo: dict[int, Any]) -> CallCount:
        return self  # ``LM.copy`` deep-copies its callbacks: its calls count here too


class CompileClock:
    """The clock of one compile run over ``out``, started at ``started`` (a
    ``time.monotonic()`` reading: the command's start; default now)."""

    def __init__(self, out: Path, started: float | None = None) -> None:
        self.path = out / CLOCK_FILE
        self.started = time.monotonic() if started is None else started
        earlier = (
            ClockRecord.model_validate_json(self.path.read_text(encoding="utf-8"))
            if self.path.is_file()
            else ClockRecord()
        )
        self.record = earlier.model_copy(update={"runs": [*earlier.runs, 0.0]})
        self.count = CallCount()
        self._begun = False
        self._current: tuple[str, float, int] | None = None
        """The stage in progress: its name, its start and the calls counted before it."""
        self._lock = threading.Lock()

    @contextmanager
    def counting(self, lms: Sequence[dspy.BaseLM | None]) -> Iterator[None]:
        """Count the calls of ``lms`` while the block runs (the callback is removed after)."""
        attached = [lm for lm in dict.fromkeys(lms) if lm is not None]
        for lm in attached:
            lm.callbacks = [*lm.callbacks, self.count]
        try:
            yield
        finally:
            for lm in attached:
                lm.callbacks = [c for c in lm.callbacks if c is not self.count]

    def begin(self) -> None:
        """Close the time since the command started as the :data:`START` stage (once a
        run)."""
        if not self._begun:
            self._begun = True
            self._add(START, time.monotonic() - self.started, 0)

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        """Add the block's wall seconds and LM calls to stage ``name``; saved at its end
        (and, while :meth:`ticking`, as it runs)."""
        begun, calls = time.monotonic(), self.count.calls
        self._current = (name, begun, calls)
        try:
            yield
        finally:
            self._add(name, time.monotonic() - begun, self.count.calls - calls)

    @contextmanager
    def ticking(self, every: float = TICK_SECONDS) -> Iterator[None]:
        """Save the record every ``every`` seconds while the block runs, the stage in
        progress with its time so far."""
        stop = threading.Event()

        def tick() -> None:
            while not stop.wait(every):
                with self._lock:
                    self._save(self.record.stages)

        ticker = threading.Thread(target=tick, name="compile-clock", daemon=True)
        ticker.start()
        try:
            yield
        finally:
            stop.set()
            ticker.join()

    def _add(self, name: str, seconds: float, lm_calls: int) -> None:
        """Add to stage ``name`` (ending the stage in progress) and save."""
        with self._lock:
            self._current = None
            self._save(_added(self.record.stages, name, seconds, lm_calls))

    def finished(self) -> ClockRecord:
        """The record with this run's wall seconds up to now."""
        with self._lock:
            self._save(self.record.stages)
        return self.record

    def _save(self, stages: dict[str, StageTime]) -> None:
        """Keep ``stages`` and this run's wall seconds up to now in memory, and on disk with
        the stage in progress so far (replacing the file whole: a kill mid-write leaves the
        last one). The caller holds the lock."""
        now = time.monotonic()
        runs = [*self.record.runs[:-1], round(now - self.started, 2)]
        self.record = ClockRecord(runs=runs, stages=stages)
        current = self._current
        if current is not None:
            name, begun, calls = current
            stages = _added(stages, name, now - begun, self.count.calls - calls)
        saved = ClockRecord(runs=runs, stages=stages)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        partial = self.path.with_suffix(".json.partial")
        partial.write_text(json.dumps(saved.model_dump(), indent=2) + "\n")
        os.replace(partial, self.path)


def _added(
    stages: dict[str, StageTime], name: str, seconds: float, lm_calls: int
) -> dict[str, StageTime]:
    """``stages`` with ``seconds`` and ``lm_calls`` added to stage ``name``."""
    before = stages.get(name, StageTime())
    now = StageTime(seconds=round(before.seconds + seconds, 2), lm_calls=before.lm_calls + lm_calls)
    return stages | {name: now}
