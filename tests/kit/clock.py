"""A clock the scripted LM advances, read where the runner times a question: row seconds
that count the calls a question made, whatever the machine's load."""

from __future__ import annotations

import pytest

from filingqa.evaluation import runner


class FakeClock:
    """``perf_counter`` for :mod:`filingqa.evaluation.runner`; a scripted reply calls
    :meth:`advance` instead of sleeping."""

    def __init__(self) -> None:
        self.now = 0.0

    def perf_counter(self) -> float:
        """The seconds advanced so far."""
        return self.now

    def advance(self, seconds: float) -> None:
        """Move the clock ``seconds`` on."""
        self.now += seconds


def time_rows_by(clock: FakeClock, monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the runner time each question's answer on ``clock``."""
    monkeypatch.setattr(runner, "time", clock)
