import json
from pathlib import Path

import dspy
import pytest
from dspy.lm15 import Usage
from dspy.utils import DummyLM

from filingqa.evaluation.modes import ModeAnswer
from filingqa.evaluation.runner import read_rows, run_mode
from filingqa.metrics.judge import StrictJudge, Verdict
from filingqa.records.qa_record import Context, Paragraph, QARecord, Table

from ..kit.lm import FakeEngine, in_order
from ..kit.replies import fenced


def record(n: int, answer: float) -> QARecord:
    return QARecord(
        id=f"q{n}",
        dataset="synthetic",
        split="dev",
        question=f"Question {n}?",
        answer=str(answer),
        answer_value=answer,
        answer_type="number",
        context=Context(
            tables=[Table(id="t", rows=[["", "2024"], ["Revenue", "10"]])],
            paragraphs=[Paragraph(id="1", text="Revenue rose.")],
        ),
    )


RECORDS = [record(n, float(n)) for n in range(1, 5)]


def echo_mode(calls: list[str]):
    def mode(rec: QARecord) -> ModeAnswer:
        calls.append(rec.id)
        if rec.id == "q3":
            raise RuntimeError("the LM timed out")
        return ModeAnswer(answer=rec.answer if rec.id != "q2" else "999")

    return mode


def test_rows_are_judged_and_errors_are_wrong_answers(tmp_path: Path) -> None:
    calls: list[str] = []
    rows = run_mode(
        RECORDS,
        echo_mode(calls),
        judge=StrictJudge(),
        rows_path=tmp_path / "r.jsonl",
        progress=False,
    )
    assert [r.score for r in rows] == [1.0, 0.0, 0.0, 1.0]
    assert rows[2].error == "RuntimeError: the LM timed out"
    assert rows[2].outcome == "error"
    assert calls == ["q1", "q2", "q3", "q4"]


def test_a_rerun_resumes_without_repeating_done_rows(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    run_mode(RECORDS[:2], echo_mode([]), judge=StrictJudge(), rows_path=path, progress=False)
    calls: list[str] = []
    rows = run_mode(RECORDS, echo_mode(calls), judge=StrictJudge(), rows_path=path, progress=False)
    assert calls == ["q3", "q4"]
    assert [r.id for r in rows] == ["q1", "q2", "q3", "q4"]
    assert len(path.read_text().splitlines()) == 4


def test_a_torn_last_line_is_dropped_and_its_record_rerun(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    run_mode(RECORDS[:2], echo_mode([]), judge=StrictJudge(), rows_path=path, progress=False)
    text = path.read_text()
    path.write_text(text[: len(text) - 20])  # a kill in the middle of writing q2
    calls: list[str] = []
    run_mode(RECORDS, echo_mode(calls), judge=StrictJudge(), rows_path=path, progress=False)
    assert calls == ["q2", "q3", "q4"]
    assert [json.loads(line)["id"] for line in path.read_text().splitlines()] == [
        "q1",
        "q2",
        "q3",
        "q4",
    ]


def test_concurrent_runs_write_every_row_once(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    rows = run_mode(
        RECORDS,
        echo_mode([]),
        judge=StrictJudge(),
        rows_path=path,
        concurrency=3,
        progress=False,
    )
    assert sorted(r.id for r in read_rows(path)) == ["q1", "q2", "q3", "q4"]
    assert [r.id for r in rows] == ["q1", "q2", "q3", "q4"]


def test_lm_calls_and_tokens_are_counted_per_question(tmp_path: Path, scripted_lm) -> None:
    import dspy

    from filingqa.evaluation.modes import build_mode

    lm = scripted_lm(["```python\nresult = 1\n```", "```python\nresult = 2\n```"])
    with dspy.context(lm=lm):
        rows = run_mode(
            RECORDS[:2],
            build_mode("pot"),
            judge=StrictJudge(),
            rows_path=tmp_path / "p.jsonl",
            progress=False,
        )
    assert [(r.lm_calls, r.tokens) for r in rows] == [(1, 15), (1, 15)]
    assert [r.score for r in rows] == [1.0, 1.0]
    assert rows[0].working == "result = 1"


def test_rows_total_the_prompt_tokens_evaluated_and_the_reported_seconds(tmp_path: Path) -> None:
    from filingqa.evaluation.modes import build_mode

    usage = Usage(input_tokens=100, output_tokens=5, total_tokens=105, cache_read_tokens=60)
    timings = {"seconds": 1.0, "prefill_seconds": 0.4, "generation_seconds": 0.6}
    engine = FakeEngine(in_order([fenced("result = 1")]), usage=usage, provider_data=timings)
    lm = dspy.LM("fake/metered", engine=engine, cache=False, num_retries=0)
    with dspy.context(lm=lm):
        (row,) = run_mode(
            RECORDS[:1],
            build_mode("pot"),
            judge=StrictJudge(),
            rows_path=tmp_path / "p.jsonl",
            progress=False,
        )
    assert (row.prompt_tokens, row.prompt_tokens_evaluated, row.generated_tokens) == (100, 40, 5)
    assert (row.prefill_seconds, row.generation_seconds) == (0.4, 0.6)
    assert read_rows(tmp_path / "p.jsonl") == [row]


def test_rows_written_before_the_cost_figures_still_load_without_them(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    run_mode(RECORDS[:1], echo_mode([]), judge=StrictJudge(), rows_path=path, progress=False)
    figures = ("prompt_tokens", "prompt_tokens_evaluated", "generated_tokens")
    figures += ("prefill_seconds", "generation_seconds")
    old = {k: v for k, v in json.loads(path.read_text()).items() if k not in figures}
    path.write_text(json.dumps(old) + "\n")
    row = read_rows(path)[0]
    assert row.id == "q1"
    assert [getattr(row, figure) for figure in figures] == [None] * 5


def test_calls_answered_from_the_cache_still_count_as_calls(tmp_path: Path) -> None:
    import dspy

    from filingqa.evaluation.modes import build_mode

    lm = dspy.LM("fake/cached", engine=FakeEngine(in_order([fenced("result = 1")])))
    previous = dspy.cache
    dspy.configure_cache(enable_disk_cache=False, enable_memory_cache=True)
    try:
        with dspy.context(lm=lm):
            first, again = (
                run_mode(
                    RECORDS[:1],
                    build_mode("pot"),
                    judge=StrictJudge(),
                    rows_path=tmp_path / f"{name}.jsonl",
                    progress=False,
                )[0]
                for name in ("first", "again")
            )
    finally:
        dspy.cache = previous
    assert (first.lm_calls, first.tokens, first.cached_calls) == (1, 15, 0)
    # a cache hit: still a call, but no new tokens, and the row says it was cached
    assert (again.lm_calls, again.tokens, again.cached_calls) == (1, 0, 1)


@pytest.mark.parametrize("missing", [True, False])
def test_read_rows_of_missing_or_empty_file(tmp_path: Path, missing: bool) -> None:
    path = tmp_path / "r.jsonl"
    if not missing:
        path.write_text("")
    assert read_rows(path) == []


def test_rows_keep_cited_and_retrieved_pages_across_a_resume(tmp_path: Path) -> None:
    def mode(rec: QARecord) -> ModeAnswer:
        return ModeAnswer(
            answer=rec.answer,
            cited=[("DOC", 4)],
            retrieved=[("DOC", 4), ("DOC", 9)],
            gold_retrieved=True,
        )

    path = tmp_path / "r.jsonl"
    run_mode(RECORDS[:1], mode, judge=StrictJudge(), rows_path=path, progress=False)
    row = read_rows(path)[0]
    assert (row.cited, row.retrieved, row.gold_retrieved) == (
        [("DOC", 4)],
        [("DOC", 4), ("DOC", 9)],
        True,
    )


def test_rows_written_before_retrieval_was_recorded_still_resume(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    run_mode(RECORDS[:1], echo_mode([]), judge=StrictJudge(), rows_path=path, progress=False)
    old = {
        k: v
        for k, v in json.loads(path.read_text()).items()
        if k not in ("cited", "retrieved", "gold_retrieved")
    }
    path.write_text(json.dumps(old) + "\n")
    row = read_rows(path)[0]
    assert (row.id, row.cited, row.retrieved, row.gold_retrieved) == ("q1", [], None, None)


def test_ctrl_c_stops_before_the_questions_not_started(tmp_path: Path) -> None:
    calls: list[str] = []

    def interrupted(rec: QARecord) -> ModeAnswer:
        calls.append(rec.id)
        if rec.id == "q2":
            raise KeyboardInterrupt
        return ModeAnswer(answer=rec.answer)

    path = tmp_path / "r.jsonl"
    with pytest.raises(KeyboardInterrupt):
        run_mode(RECORDS, interrupted, judge=StrictJudge(), rows_path=path, progress=False)
    assert calls == ["q1", "q2"]
    assert [row.id for row in read_rows(path)] == ["q1"]


def span_record(gold: str) -> QARecord:
    """A record with a text (span) gold, which the numeric stage does not decide."""
    return record(9, 0.0).model_copy(update={"id": "t1", "answer": gold, "answer_type": "span"})


def test_rows_graded_by_exact_match_are_graded_again_when_a_judge_lm_is_given(
    tmp_path: Path,
) -> None:
    text = span_record("It grew on analyzer demand")
    path = tmp_path / "r.jsonl"

    def answer(rec: QARecord) -> ModeAnswer:
        return ModeAnswer(answer="Analyzer demand drove growth" if rec.id == "t1" else rec.answer)

    first = run_mode(
        [RECORDS[0], text], answer, judge=StrictJudge(), rows_path=path, progress=False
    )
    assert [(r.score, r.judge_stage) for r in first] == [(1.0, "numeric"), (0.0, "exact")]
    calls: list[str] = []

    def not_again(rec: QARecord) -> ModeAnswer:
        calls.append(rec.id)
        return ModeAnswer(answer="")

    judge = StrictJudge(lm=DummyLM([{"reason": "same cause", "score": "1"}]))
    rows = run_mode([RECORDS[0], text], not_again, judge=judge, rows_path=path, progress=False)
    assert calls == []  # nothing answered again
    assert [(r.score, r.judge_stage) for r in rows] == [(1.0, "numeric"), (1.0, "llm")]
    assert rows[1].answer == "Analyzer demand drove growth"
    assert [r.judge_stage for r in read_rows(path)] == ["numeric", "llm"]
    assert len(judge.lm.history) == 1  # only the exact-match row was graded again


def test_regrade_grades_every_written_row_again_with_the_current_judge(tmp_path: Path) -> None:
    text = span_record("The consumer segment shrunk")
    path = tmp_path / "r.jsonl"
    lenient = StrictJudge(lm=DummyLM([{"reason": "fine", "score": "1"}]))
    lenient.judge = lambda *args, **kwargs: Verdict(score=1, reason="lenient", stage="llm")
    refusal = ModeAnswer(answer="not stated in the evidence")
    run_mode([text], lambda rec: refusal, judge=lenient, rows_path=path, progress=False)
    assert [r.score for r in read_rows(path)] == [1.0]

    def not_again(rec: QARecord) -> ModeAnswer:
        raise AssertionError("a written row is not answered again")

    strict = StrictJudge(lm=DummyLM([]))
    rows = run_mode([text], not_again, judge=strict, rows_path=path, regrade=True, progress=False)
    assert [(r.score, r.judge_stage, r.answer) for r in rows] == [
        (0.0, "precheck", "not stated in the evidence")
    ]
    assert [r.judge_stage for r in read_rows(path)] == ["precheck"]


def test_a_judge_that_fails_scores_zero_and_the_next_run_grades_the_row_again(
    tmp_path: Path,
) -> None:
    text = span_record("It grew on analyzer demand")
    path = tmp_path / "r.jsonl"
    looping = StrictJudge(lm=DummyLM([{"reason": "the same support, the same support"}]))
    answer = ModeAnswer(answer="Analyzer demand drove growth")
    rows = run_mode([RECORDS[0], text], lambda rec: answer, judge=looping, rows_path=path)
    assert [r.judge_stage for r in rows] == ["numeric", "failed"]  # the run went on
    assert rows[1].score == 0 and rows[1].judge_reason.startswith("judge failed")

    working = StrictJudge(lm=DummyLM([{"reason": "same cause", "score": "1"}]))
    rows = run_mode([RECORDS[0], text], lambda rec: answer, judge=working, rows_path=path)
    assert [(r.score, r.judge_stage) for r in rows] == [(0.0, "numeric"), (1.0, "llm")]


def test_rows_get_official_metrics_and_question_types_also_when_written_before_them(
    tmp_path: Path,
) -> None:
    tatqa = RECORDS[0].model_copy(
        update={
            "dataset": "tatqa",
            "scale": "percent",
            "meta": {"tatqa_answer_type": "arithmetic", "answer_from": "table"},
        }
    )
    path = tmp_path / "r.jsonl"
    answer = ModeAnswer(answer="1.0%")
    rows = run_mode(
        [tatqa], lambda rec: answer, judge=StrictJudge(), rows_path=path, progress=False
    )
    assert rows[0].official == {"tatqa_em": 1.0, "tatqa_f1": 1.0}
    assert rows[0].question_type == "table"
    # a row written by an older version has neither field: a resume fills them in, no LM
    old = json.loads(path.read_text())
    del old["official"], old["question_type"]
    path.write_text(json.dumps(old) + "\n")

    def not_again(rec: QARecord) -> ModeAnswer:
        raise AssertionError("a written row is not answered again")

    run_mode([tatqa], not_again, judge=StrictJudge(), rows_path=path, progress=False)
    (filled,) = read_rows(path)
    assert filled.official == {"tatqa_em": 1.0, "tatqa_f1": 1.0}
    assert filled.question_type == "table"


def test_the_progress_bar_names_the_setting(tmp_path: Path, capsys) -> None:
    path = tmp_path / "naive-rag@retrieved.jsonl"
    run_mode(RECORDS[:1], echo_mode([]), judge=StrictJudge(), rows_path=path, progress=True)
    assert "naive-rag@retrieved: 100%" in capsys.readouterr().err
