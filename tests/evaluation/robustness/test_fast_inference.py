"""The off-vs-on benchmark's figures: summaries, the paired comparison, steps, the store."""

from __future__ import annotations

from pathlib import Path

import pytest

from filingqa.evaluation.robustness.fast_inference import (
    OFF,
    ON,
    RowStore,
    comparison,
    served_timings,
    step_seconds,
    summarize,
    table,
)
from filingqa.lm.server_launch import ServerTiming
from filingqa.lm.trace import Step

from ...kit.data import judged_row


def rows(setting: str, scores: list[float], seconds: float, evaluated: int) -> list:
    return [
        judged_row(
            id=f"q{i}",
            answer=f"{setting}{i}" if score < 1 else "1",
            score=score,
            seconds=seconds,
            prompt_tokens=1000,
            prompt_tokens_evaluated=evaluated,
            steps=[Step(name="reason 1", seconds=seconds / 2), Step(name="verify 1", seconds=1.0)],
        )
        for i, score in enumerate(scores)
    ]


def test_the_settings_differ_in_layout_and_engine_reuse() -> None:
    assert (OFF.evidence_first, OFF.prefix_states, OFF.parallel_samples) == (False, 0, False)
    assert ON.evidence_first and ON.prefix_states > 0 and ON.parallel_samples


def test_a_summary_gives_per_question_means() -> None:
    summary = summarize(rows("off", [1, 0], seconds=30.0, evaluated=900))
    assert summary["questions"] == 2
    assert summary["accuracy"] == 0.5
    assert summary["seconds"] == 30.0
    assert summary["prompt_tokens_evaluated"] == 900.0


def test_the_comparison_is_paired_and_lists_every_changed_answer() -> None:
    off = rows("off", [1, 0, 0], seconds=30.0, evaluated=900)
    on = rows("on", [1, 1, 0], seconds=15.0, evaluated=300)
    paired = comparison(off, on)
    assert (paired["wins"], paired["losses"]) == (1, 0)
    assert paired["p_value"] == 0.5
    assert paired["speedup"] == 2.0
    assert paired["evaluated_ratio"] == 3.0
    assert [c["id"] for c in paired["changed"]] == ["q1", "q2"]
    assert paired["changed"][0]["before"] == "off1" and paired["changed"][0]["after"] == "1"


def test_steps_are_grouped_without_their_round_number() -> None:
    by_step = step_seconds(rows("on", [1, 1], seconds=10.0, evaluated=1))
    assert by_step == {"reason": 5.0, "verify": 1.0}


def test_server_timings_sum_what_the_server_evaluated_and_reused() -> None:
    timings = [
        ServerTiming(prompt_tokens=392, prefill_ms=2000, generated_tokens=7, generation_ms=500),
        ServerTiming(
            prompt_tokens=15,
            prefill_ms=100,
            generated_tokens=7,
            generation_ms=500,
            prefix_hit_tokens=374,
        ),
    ]
    figures = served_timings(timings)
    assert figures["prompt_tokens_evaluated"] == 407
    assert figures["prefix_hit_tokens"] == 374
    assert figures["prefill_seconds"] == pytest.approx(2.1)


def test_the_table_has_a_line_per_setting() -> None:
    text = table(
        {"off": summarize(rows("off", [1], 3.0, 9)), "on": summarize(rows("on", [1], 1.0, 3))}
    )
    lines = text.splitlines()
    assert lines[0].split()[:3] == ["setting", "q", "acc"]
    assert [line.split()[0] for line in lines[1:]] == ["off", "on"]


def test_the_store_resumes_from_the_rows_written(tmp_path: Path) -> None:
    store = RowStore(tmp_path / "run")
    assert store.rows("on") == []
    first = rows("on", [1], 1.0, 3)[0]
    store.add("on", first)
    assert RowStore(tmp_path / "run").rows("on") == [first]
