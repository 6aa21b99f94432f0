"""The compile's clock: stages timed and counted, runs added across resumes."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import dspy

from filingqa.optimizers.compile_clock import CLOCK_FILE, START, CompileClock

from ..kit.lm import marker_lm


def ask(lm: dspy.LM, times: int) -> None:
    for _ in range(times):
        lm("Q")


def test_a_stage_counts_the_calls_of_the_lms_and_their_copies(tmp_path: Path) -> None:
    lm = marker_lm([("Q", "A")])
    clock = CompileClock(tmp_path)
    with clock.counting([lm, None, lm]), clock.stage("answers"):
        ask(lm, 2)
        ask(lm.copy(temperature=0.5), 1)  # an optimizer's copy of the backbone
    ask(lm, 1)  # after the compile: not counted, and no callback left behind
    assert clock.record.stages["answers"].lm_calls == 3
    assert lm.callbacks == []


def test_a_resumed_compile_adds_its_run_and_its_stages_to_the_earlier_ones(
    tmp_path: Path,
) -> None:
    first = CompileClock(tmp_path, started=time.monotonic() - 2.0)  # 2 s of loading
    first.begin()
    with first.stage("dev score before"):
        time.sleep(0.1)
    first.finished()
    second = CompileClock(tmp_path)
    second.begin()
    with second.stage("dev score before"):
        time.sleep(0.1)
    record = second.finished()
    assert len(record.runs) == 2 and record.runs[0] >= 2.1
    assert record.stages[START].seconds >= 2.0
    assert record.stages["dev score before"].seconds >= 0.2
    assert record.wall_seconds == round(sum(record.runs), 1)
    assert json.loads((tmp_path / CLOCK_FILE).read_text())["runs"] == record.runs


def test_a_stage_that_fails_is_still_timed(tmp_path: Path) -> None:
    clock = CompileClock(tmp_path)
    try:
        with clock.stage("optimization"):
            raise KeyboardInterrupt
    except KeyboardInterrupt:
        pass
    assert "optimization" in json.loads((tmp_path / CLOCK_FILE).read_text())["stages"]


def test_a_ticking_clock_saves_the_stage_in_progress_for_a_run_killed_outright(
    tmp_path: Path,
) -> None:
    lm = marker_lm([("Q", "A")])
    clock = CompileClock(tmp_path / "run")
    killed = tmp_path / "killed"  # the out dir as a SIGKILL would leave it
    with clock.ticking(every=0.02), clock.counting([lm]), clock.stage("open corpus"):
        ask(lm, 2)
        time.sleep(0.2)
        shutil.copytree(tmp_path / "run", killed)
    saved = json.loads((killed / CLOCK_FILE).read_text())
    assert saved["stages"]["open corpus"]["lm_calls"] == 2
    assert saved["stages"]["open corpus"]["seconds"] >= 0.1 and saved["runs"][-1] >= 0.1
    resumed = CompileClock(killed)
    assert resumed.record.stages["open corpus"].seconds == saved["stages"]["open corpus"]["seconds"]
    assert resumed.record.runs[:-1] == saved["runs"]


def test_a_stage_ended_while_ticking_is_counted_once(tmp_path: Path) -> None:
    clock = CompileClock(tmp_path)
    with clock.ticking(every=0.01):
        begun = time.monotonic()
        with clock.stage("reranker"):
            time.sleep(0.1)
        took = time.monotonic() - begun
        time.sleep(0.05)  # ticks after the stage: its time stands as it ended
    seconds = clock.finished().stages["reranker"].seconds
    assert 0.1 <= seconds <= round(took, 2) + 0.01  # once, whatever the machine's load
    assert json.loads((tmp_path / CLOCK_FILE).read_text())["stages"]["reranker"]["seconds"] == (
        seconds
    )
    assert not list(tmp_path.glob("*.partial"))
