import json
from pathlib import Path

from filingqa.evaluation.command import EvalSettings, run_evaluation, shared_path
from filingqa.evaluation.open_corpus import OpenCorpus
from filingqa.evaluation.published import (
    RESTORED_REASON,
    read_run_rows,
    restore,
    restore_missing,
    write_published,
)
from filingqa.evaluation.runner import Row, read_rows
from filingqa.records.qa_record import QARecord

from ..kit.data import judged_row, write_financebench
from ..kit.passages import QUESTION, ListSearch
from ..kit.replies import chat

ANSWERS = [
    chat(reasoning="cash flow table", answer="399.8 million"),
    chat(reasoning="Beta's table", answer="95.0 million"),
]


def naive_rag_run(data_dir: Path, out: Path, publish: Path, lm, limit: int | None = None):
    settings = EvalSettings(
        dataset="financebench:dev",
        modes=["naive-rag"],
        lm="scripted",
        out_dir=out,
        publish=publish,
        limit=limit,
    )
    corpus = OpenCorpus(search=ListSearch(), plain=ListSearch(), k=2)
    return run_evaluation(settings, lm=lm, corpus=corpus, data_dir=str(data_dir), progress=False)


def test_published_rows_keep_the_run_and_leave_out_the_dataset_text(
    tmp_path: Path, scripted_lm
) -> None:
    data_dir = write_financebench(tmp_path / "data")
    publish = tmp_path / "published"
    naive_rag_run(data_dir, tmp_path / "out", publish, scripted_lm(ANSWERS))
    text = (publish / "naive-rag.jsonl").read_text()
    assert QUESTION not in text and "$399.8 million" not in text  # question, gold
    lines = [json.loads(line) for line in text.splitlines()]
    assert [line["id"] for line in lines] == ["fb_1", "fb_2"]
    assert lines[0]["answer"] == "399.8 million" and lines[0]["score"] == 1.0
    assert not {"question", "gold", "judge_reason"} & lines[0].keys()
    assert (lines[0]["prompt_tokens"], lines[0]["generated_tokens"]) == (10, 5)
    results = json.loads((publish / "results.json").read_text())
    assert results["summaries"]["naive-rag"]["questions"] == 2
    assert "out_dir" not in results["settings"]  # no machine paths


def test_a_published_artifact_path_keeps_its_folder_and_name_only() -> None:
    assert shared_path(Path("/home/me/filingqa/artifacts/qwen-local")) == "artifacts/qwen-local"
    assert shared_path(Path("artifacts/qwen-local")) == "artifacts/qwen-local"
    assert shared_path(None) is None


def test_a_run_on_another_machine_restores_the_published_rows_and_goes_on(
    tmp_path: Path, scripted_lm
) -> None:
    data_dir = write_financebench(tmp_path / "data")
    publish = tmp_path / "published"
    first = naive_rag_run(data_dir, tmp_path / "a", publish, scripted_lm(ANSWERS[:1]), limit=1)
    assert first["naive-rag"].questions == 1
    # another out dir (a new machine): the first row comes back, only the second is answered
    lm = scripted_lm(ANSWERS[1:])
    second = naive_rag_run(data_dir, tmp_path / "b", publish, lm)
    assert second["naive-rag"].questions == 2 and second["naive-rag"].accuracy == 1.0
    rows = read_rows(tmp_path / "b" / "naive-rag.jsonl")
    assert [r.id for r in rows] == ["fb_1", "fb_2"]
    assert rows[0].question == QUESTION and rows[0].gold == "$399.8 million"
    assert rows[0].judge_reason == RESTORED_REASON and rows[0].answer == "399.8 million"
    assert len((publish / "naive-rag.jsonl").read_text().splitlines()) == 2


def record(id_: str) -> QARecord:
    return QARecord(
        id=id_,
        dataset="d",
        split="s",
        question=f"Q {id_}?",
        answer="1",
        answer_type="number",
        answer_value=1.0,
    )


def row(id_: str, answer: str = "1") -> Row:
    return judged_row(
        id=id_, question=f"Q {id_}?", answer=answer, judge_reason="matches the gold 1"
    )


def test_restore_takes_only_the_run_s_records_and_skips_a_torn_line(tmp_path: Path) -> None:
    published = tmp_path / "pot.jsonl"
    write_published(published, [row("a"), row("b")])
    with published.open("a") as out:
        out.write('{"id": "c", "answ')  # a killed run's last line
    restored = restore(published, [record("b"), record("c")])
    assert [(r.id, r.question) for r in restored] == [("b", "Q b?")]


def test_write_published_replaces_rows_by_id_and_keeps_the_others(tmp_path: Path) -> None:
    published = tmp_path / "pot.jsonl"
    write_published(published, [row("a"), row("b")])
    write_published(published, [row("b", answer="2")])
    assert [(r.id, r.answer) for r in restore(published, [record("a"), record("b")])] == [
        ("a", "1"),
        ("b", "2"),
    ]


def test_restore_missing_adds_only_the_rows_the_local_file_lacks(tmp_path: Path) -> None:
    published, local = tmp_path / "published.jsonl", tmp_path / "local.jsonl"
    write_published(published, [row("a", answer="published"), row("b")])
    local.write_text(row("a", answer="local").model_dump_json() + "\n")
    assert restore_missing(published, local, [record("a"), record("b")]) == 1
    assert [(r.id, r.answer) for r in read_rows(local)] == [("a", "local"), ("b", "1")]
    assert restore_missing(published, local, [record("a"), record("b")]) == 0


def test_a_runs_rows_are_read_as_written_or_as_published(tmp_path: Path) -> None:
    written, published = tmp_path / "written.jsonl", tmp_path / "published.jsonl"
    written.write_text(row("a", answer="local").model_dump_json() + "\n")
    write_published(published, [row("a", answer="published")])
    records = [record("a")]
    assert [(r.answer, r.question) for r in read_run_rows(written, records)] == [("local", "Q a?")]
    assert [(r.answer, r.question) for r in read_run_rows(published, records)] == [
        ("published", "Q a?")
    ]
