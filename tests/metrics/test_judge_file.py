"""Judging a JSONL file: result lines, error lines and the summary line."""

from __future__ import annotations

import io
import json

from dspy.utils import DummyLM

from filingqa.metrics.judge import StrictJudge
from filingqa.metrics.judge_file import JudgeSummary, judge_jsonl


def _run(lines: list[str], judge: StrictJudge) -> tuple[JudgeSummary, list[dict]]:
    out = io.StringIO()
    summary = judge_jsonl(lines, judge, out)
    return summary, [json.loads(line) for line in out.getvalue().splitlines()]


def test_good_lines_get_scores_and_a_summary() -> None:
    lines = [
        json.dumps({"id": "a", "question": "q", "gold": "$303.00", "prediction": "302.6M"}),
        json.dumps({"question": "q", "gold": "24", "prediction": "24 million", "scale": "billion"}),
        json.dumps(
            {
                "id": 3,
                "question": "q",
                "gold": "the modified retrospective method",
                "prediction": "modified retrospective",
            }
        ),
        json.dumps({"question": "q", "gold": ["a", "b"], "prediction": "a; b"}),
    ]
    summary, results = _run(lines, StrictJudge(lm=None))
    assert results[0] == {
        "id": "a",
        "score": 1.0,
        "reason": results[0]["reason"],
        "stage": "numeric",
    }
    assert [r["score"] for r in results[:4]] == [1.0, 0.0, 0.5, 1.0]
    assert "id" not in results[1] and results[2]["id"] == 3
    assert results[-1] == {"summary": summary.model_dump()}
    assert summary.count == summary.judged == 4
    assert summary.errors == 0
    assert summary.mean_score == 0.625
    assert summary.scores == {"1": 2, "0.5": 1, "0": 1}
    assert summary.stages == {"numeric": 2, "exact": 2}


def test_malformed_lines_become_error_lines_and_are_counted() -> None:
    lines = [
        "{not json",
        json.dumps({"question": "q", "gold": "1"}),
        "",
        json.dumps([1, 2]),
        json.dumps({"question": "q", "gold": "1.0", "prediction": "1"}),
    ]
    summary, results = _run(lines, StrictJudge(lm=None))
    assert len(results) == 5  # four input lines (the blank one skipped) and the summary
    assert all("error" in r for r in results[:3])
    assert results[3]["score"] == 1.0
    assert (summary.count, summary.judged, summary.errors) == (4, 1, 3)
    assert summary.mean_score == 1.0


def test_a_failing_llm_reply_is_an_error_line_not_a_crash() -> None:
    lm = DummyLM([{"reason": "r", "score": "maybe"}])
    line = json.dumps({"id": "x", "question": "q", "gold": "increased", "prediction": "went up"})
    summary, results = _run([line], StrictJudge(lm=lm))
    assert results[0]["id"] == "x"
    assert results[0]["error"].startswith("judge failed")
    assert summary.errors == 1 and summary.mean_score == 0.0


def test_empty_input_writes_only_a_summary() -> None:
    summary, results = _run([], StrictJudge())
    assert results == [{"summary": summary.model_dump()}]
    assert summary.count == 0


def test_a_line_without_a_scale_takes_the_one_its_question_asks() -> None:
    capex = "What was 3M's FY2018 capital expenditure? Answer in USD millions."
    line = {"question": capex, "gold": "$1,577.00", "prediction": "$1.577 billion"}
    lines = [json.dumps(line), json.dumps(line | {"scale": ""})]
    _, results = _run(lines, StrictJudge(lm=None))
    assert [r["score"] for r in results[:2]] == [1.0, 0.0]
    assert "same value in base units" in results[0]["reason"]
