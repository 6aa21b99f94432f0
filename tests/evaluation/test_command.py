import json
from pathlib import Path

import pytest

from filingqa.datasets.records import QARecord
from filingqa.evaluation.command import EvalSettings, run_evaluation, select_records
from filingqa.evaluation.gold_context import gold_passages
from filingqa.evaluation.runner import Row
from filingqa.evaluation.summary import format_table, summarize


def test_select_records_by_field_or_meta() -> None:
    base = dict(dataset="d", split="s", question="Q?", answer="1", answer_value=1.0)
    records = [
        QARecord(id="a", answer_type="number", meta={"kind": "arithmetic"}, **base),
        QARecord(id="b", answer_type="number", meta={"kind": "span"}, **base),
    ]
    assert [r.id for r in select_records(records, {"kind": "arithmetic"})] == ["a"]
    assert [r.id for r in select_records(records, {"answer_type": "number"})] == ["a", "b"]
    assert select_records(records, {"kind": "count"}) == []


def test_summary_and_table() -> None:
    def row(score: float, kind: str, error: str | None = None) -> Row:
        return Row(
            id=str(score),
            question="Q",
            gold="1",
            answer="1",
            outcome="answered",
            score=score,
            judge_reason="",
            judge_stage="numeric",
            answer_type=kind,
            lm_calls=2,
            tokens=100,
            seconds=1.5,
            error=error,
        )

    summary = summarize([row(1, "number"), row(0.5, "span"), row(0, "number", "boom")])
    assert summary.accuracy == pytest.approx(0.5)
    assert summary.by_answer_type == {"number": 0.5, "span": 0.5}
    assert summary.errors == 1
    table = format_table({"pot": summary})
    assert "pot" in table and "50.0%" in table and "2.00" in table


@pytest.mark.data
def test_tatqa_gold_context_becomes_table_and_paragraph_passages(shared_data_dir: Path) -> None:
    from filingqa.datasets import load_dataset

    record = load_dataset("tatqa:dev", data_dir=shared_data_dir, limit=1)[0]
    passages = gold_passages(record)
    assert passages[0].kind == "table"
    assert "|" in passages[0].text
    assert all(p.kind == "text" for p in passages[1:])
    assert len({p.id for p in passages}) == len(passages)


@pytest.mark.data
def test_run_evaluation_writes_rows_and_results(
    shared_data_dir: Path, tmp_path: Path, scripted_lm
) -> None:
    settings = EvalSettings(
        dataset="tatqa:dev",
        modes=["pot"],
        lm="scripted",
        limit=2,
        where={"tatqa_answer_type": "arithmetic"},
        out_dir=tmp_path / "out",
    )
    lm = scripted_lm(["```python\nresult = -12.6\n```", "```python\nresult = 0\n```"])
    summaries = run_evaluation(settings, lm=lm, data_dir=str(shared_data_dir), progress=False)
    assert summaries["pot"].questions == 2
    assert summaries["pot"].accuracy == 0.5  # the first gold is -12.6
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    assert results["settings"]["where"] == {"tatqa_answer_type": "arithmetic"}
    assert len((tmp_path / "out" / "pot.jsonl").read_text().splitlines()) == 2


def test_unknown_mode_is_a_clear_error(tmp_path: Path, scripted_lm) -> None:
    settings = EvalSettings(dataset="tatqa:dev", modes=["magic"], lm="x", out_dir=tmp_path)
    with pytest.raises(ValueError, match="unknown eval mode"):
        run_evaluation(settings, lm=scripted_lm([]))
