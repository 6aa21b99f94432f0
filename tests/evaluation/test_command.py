import json
from pathlib import Path

import pytest
from dspy.utils import DummyLM

from filingqa.datasets.gold_context import gold_passages
from filingqa.evaluation.command import (
    EvalSettings,
    check_index,
    check_slice,
    evaluation_records,
    first_of_each_type,
    plan_settings,
    run_evaluation,
    select_records,
)
from filingqa.evaluation.open_corpus import IndexMissingError, OpenCorpus
from filingqa.evaluation.runner import Row, read_rows
from filingqa.evaluation.summary import format_by_answer_type, format_table, summarize
from filingqa.records.qa_record import QARecord

from ..kit.data import judged_row, write_financebench
from ..kit.passages import ListSearch
from ..kit.replies import chat, fenced, program_replies
from ..optimizers.compile_fakes import SPLIT, write_data_dir
from .slice_fakes import synthetic_slice, use_slices


def test_select_records_by_field_or_meta() -> None:
    base = dict(dataset="d", split="s", question="Q?", answer="1", answer_value=1.0)
    records = [
        QARecord(id="a", answer_type="number", meta={"kind": "arithmetic"}, **base),
        QARecord(id="b", answer_type="number", meta={"kind": "span"}, **base),
    ]
    assert [r.id for r in select_records(records, {"kind": "arithmetic"})] == ["a"]
    assert [r.id for r in select_records(records, {"answer_type": "number"})] == ["a", "b"]
    assert select_records(records, {"kind": "count"}) == []


def test_the_first_of_each_answer_type_keep_dataset_order() -> None:
    base = dict(dataset="d", split="s", question="Q?", answer="1")
    kinds = ["number", "span", "number", "count", "number", "span", "span"]
    records = [
        QARecord(id=str(i), answer_type=kind, answer_value=[] if "span" in kind else 1.0, **base)
        for i, kind in enumerate(kinds)
    ]
    assert [r.id for r in first_of_each_type(records, 2)] == ["0", "1", "2", "3", "5"]
    assert [r.id for r in first_of_each_type(records, 9)] == [str(i) for i in range(7)]


def test_summary_and_table() -> None:
    def row(score: float, kind: str, error: str | None = None) -> Row:
        return judged_row(
            id=str(score),
            score=score,
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
    assert table.endswith("answered 3")
    assert "official" not in table  # the dataset has no official metric


def test_official_metrics_and_question_types_are_summarized_over_the_rows_that_have_them() -> None:
    def row(score: float, official: dict[str, float], kind: str) -> Row:
        return judged_row(id=str(score), score=score, official=official, question_type=kind)

    summary = summarize(
        [
            row(1, {"tatqa_em": 1.0, "tatqa_f1": 1.0}, "table"),
            row(1, {"tatqa_em": 0.0, "tatqa_f1": 0.5}, "text"),
            row(0, {}, ""),
        ]
    )
    assert summary.official == {"tatqa_em": 0.5, "tatqa_f1": 0.75}
    assert summary.official_by_answer_type == {"number": {"tatqa_em": 0.5, "tatqa_f1": 0.75}}
    assert summary.by_question_type == {"table": 1.0, "text": 1.0}
    header, line = format_table({"program": summary}).splitlines()
    assert "official" in header and "EM 50.0% F1 75.0%" in line


def test_cost_figures_are_averaged_per_question_over_the_rows_that_record_them() -> None:
    def row(n: int, prefill: float | None, tokens: int | None = 300) -> Row:
        return judged_row(
            id=str(n),
            prompt_tokens=tokens,
            prompt_tokens_evaluated=None if tokens is None else tokens - 100,
            generated_tokens=None if tokens is None else 20,
            prefill_seconds=prefill,
        )

    summary = summarize([row(1, 2.0), row(2, None, tokens=150), row(3, 4.0), row(4, None, None)])
    assert (summary.prompt_tokens, summary.prompt_tokens_evaluated) == (250, 150)
    assert summary.generated_tokens == 20
    assert (summary.prefill_seconds, summary.generation_seconds) == (3.0, None)
    header, line = format_table({"program": summary}).splitlines()
    for label in ("prompt/q", "evaluated/q", "gen/q", "prefill s/q", "gen s/q"):
        assert label in header
    assert line.split()[6:11] == ["250", "150", "20", "3.0", "-"]


@pytest.mark.data
def test_a_setting_answered_partly_from_the_cache_is_flagged_below_the_table() -> None:
    def row(n: int, cached: int) -> Row:
        return judged_row(id=str(n), lm_calls=2, tokens=100, seconds=1.5, cached_calls=cached)

    cold, warm = summarize([row(1, 0), row(2, 0)]), summarize([row(1, 2), row(2, 1)])
    assert (cold.cached_calls, warm.cached_calls) == (0, 3)
    lines = format_table({"pot": cold, "program": warm}).splitlines()
    assert len(lines) == 4 and lines[1].startswith("pot") and lines[2].startswith("program")
    assert lines[3].startswith("note: program: 3 of its LM calls came from the response cache")
    assert "--fresh-cache" in lines[3]


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
    report = (tmp_path / "out" / "report.html").read_text()
    assert "Failure classes" in report and "What is the change in Other" in report


@pytest.mark.parametrize("fresh", [False, True])
def test_fresh_cache_gives_every_setting_an_empty_cache(
    fresh: bool, shared_data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import dspy

    monkeypatch.setattr(dspy, "cache", dspy.cache)  # restored after the test
    before = dspy.cache
    before.put({"prompt": "from an earlier run"}, "cached reply")
    seen: list = []

    def run_mode(records, mode, **_) -> list[Row]:
        seen.append(dspy.cache)
        dspy.cache.put({"prompt": f"setting {len(seen)}"}, "reply")
        return []

    monkeypatch.setattr("filingqa.evaluation.command.run_mode", run_mode)
    settings = EvalSettings(
        dataset="tatqa:dev",
        modes=["direct", "pot"],
        lm="scripted",
        limit=1,
        out_dir=tmp_path,
        fresh_cache=fresh,
    )
    run_evaluation(settings, lm=DummyLM([]), data_dir=str(shared_data_dir), progress=False)
    direct, pot = seen
    if fresh:
        assert len({id(before), id(direct), id(pot)}) == 3
        assert not direct.enable_disk_cache and direct.enable_memory_cache
        assert pot.get({"prompt": "from an earlier run"}) is None
        assert pot.get({"prompt": "setting 1"}) is None  # nor the setting before
    else:
        assert direct is before and pot is before


def test_unknown_mode_is_a_clear_error(tmp_path: Path, scripted_lm) -> None:
    settings = EvalSettings(dataset="tatqa:dev", modes=["magic"], lm="x", out_dir=tmp_path)
    with pytest.raises(ValueError, match="unknown eval mode"):
        run_evaluation(settings, lm=scripted_lm([]))


def test_open_corpus_eval_writes_pages_hit_rate_and_json(tmp_path: Path, scripted_lm) -> None:
    data_dir = write_financebench(tmp_path / "data")
    settings = EvalSettings(
        dataset="financebench:dev",
        modes=["naive-rag", "program"],
        lm="scripted",
        out_dir=tmp_path / "out",
        json_out=tmp_path / "copy" / "results.json",
    )
    full, plain = ListSearch(), ListSearch()
    lm = scripted_lm(
        [
            chat(reasoning="cash flow table", answer="399.8 million"),
            chat(reasoning="Beta's table", answer="95.0 million"),
            *program_replies("Acme", "result = 812.4 - 412.6", ambiguity_cue=True),
            *program_replies("Beta", "result = 95.0", ambiguity_cue=False),
        ]
    )
    summaries = run_evaluation(
        settings,
        lm=lm,
        corpus=OpenCorpus(search=full, plain=plain, k=2),
        data_dir=str(data_dir),
        progress=False,
    )
    assert list(summaries) == ["naive-rag", "program@retrieved"]
    naive, program = summaries["naive-rag"], summaries["program@retrieved"]
    assert (naive.accuracy, naive.lm_calls, naive.retrieval_hit_rate) == (1.0, 1.0, 0.5)
    assert (program.accuracy, program.lm_calls) == (1.0, 4.5)  # "free cash flow" is a cue
    assert len(plain.calls) == 2 and {c["company"] for c in full.calls} == {"Acme", "Beta"}
    rows = read_rows(tmp_path / "out" / "program@retrieved.jsonl")
    assert rows[0].cited == [("ACME_2024_10K", 4)]
    assert ("ACME_2024_10K", 4) in rows[0].retrieved and rows[0].gold_retrieved
    assert rows[1].gold_retrieved is False  # Beta's gold page 1 is not in the corpus
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    assert results["contexts"] == {"naive-rag": "retrieved", "program@retrieved": "retrieved"}
    assert results["summaries"]["naive-rag"]["retrieval_hit_rate"] == 0.5
    (paired,) = results["paired"]  # both right on both questions
    assert (paired["candidate"], paired["baseline"]) == ("program@retrieved", "naive-rag")
    assert (paired["questions"], paired["wins"], paired["losses"]) == (2, 0, 0)
    assert json.loads(settings.json_out.read_text()) == results
    again = run_evaluation(  # every row is done: nothing runs, the LM has no replies left
        settings,
        lm=scripted_lm([]),
        corpus=OpenCorpus(search=full, plain=plain),
        data_dir=str(data_dir),
        progress=False,
    )
    assert again == summaries


def test_financebench_gold_context_reads_the_evidence_pages(tmp_path: Path, scripted_lm) -> None:
    data_dir = write_financebench(tmp_path / "data")
    settings = EvalSettings(
        dataset="financebench:dev",
        modes=["pot"],
        lm="scripted",
        limit=1,
        context="gold",
        out_dir=tmp_path / "out",
    )
    lm = scripted_lm([fenced("result = 812.4 - 412.6")])
    summaries = run_evaluation(settings, lm=lm, data_dir=str(data_dir), progress=False)
    assert summaries["pot"].accuracy == 1.0
    assert summaries["pot"].retrieval_hit_rate is None
    assert "Purchases of property and equipment" in lm.engine.prompts[0]
    assert read_rows(tmp_path / "out" / "pot.jsonl")[0].cited == [("ACME_2024_10K", 4)]


@pytest.mark.parametrize(
    ("dataset", "modes", "context", "expected"),
    [
        ("financebench:dev", ["pot", "naive-rag"], None, ["pot@retrieved", "naive-rag"]),
        ("financebench:dev", ["program"], "gold", ["program"]),
        ("tatqa:dev", ["direct", "program"], None, ["direct", "program"]),
        ("tatqa:dev", ["naive-rag", "pot"], None, ["naive-rag", "pot"]),
        ("tatqa:dev", ["program"], "retrieved", ["program@retrieved"]),
    ],
)
def test_settings_pair_each_mode_with_a_context(
    tmp_path: Path, dataset: str, modes: list[str], context: str | None, expected: list[str]
) -> None:
    settings = EvalSettings(dataset=dataset, modes=modes, lm="x", context=context, out_dir=tmp_path)
    assert [s.label for s in plan_settings(settings)] == expected


def test_naive_rag_with_gold_context_is_a_clear_error(tmp_path: Path) -> None:
    settings = EvalSettings(
        dataset="financebench:dev", modes=["naive-rag"], lm="x", context="gold", out_dir=tmp_path
    )
    with pytest.raises(ValueError, match="naive-rag retrieves its evidence: drop --context gold"):
        plan_settings(settings)


def test_compiled_settings_and_program_folder_go_together(tmp_path: Path) -> None:
    base = EvalSettings(dataset="tatqa:dev", modes=["compiled"], lm="x", out_dir=tmp_path)
    with pytest.raises(ValueError, match="compiled runs a compiled artifact: add --program DIR"):
        plan_settings(base)
    uncompiled = base.model_copy(update={"modes": ["program"], "program": tmp_path})
    with pytest.raises(ValueError, match="add --mode compiled and/or compiled\\+router"):
        plan_settings(uncompiled)
    both = base.model_copy(update={"modes": ["program", "compiled", "compiled+router"]})
    labels = [s.label for s in plan_settings(both.model_copy(update={"program": tmp_path}))]
    assert labels == ["program", "compiled", "compiled+router"]


def test_the_index_is_checked_only_when_a_setting_retrieves(isolated_home: Path) -> None:
    gold = EvalSettings(dataset="tatqa:dev", modes=["pot"], lm="x", out_dir=isolated_home)
    check_index(gold)
    retrieved = gold.model_copy(update={"dataset": "financebench:dev"})
    with pytest.raises(IndexMissingError, match="filingqa index --dataset financebench"):
        check_index(retrieved)
    (isolated_home / "indexes" / "financebench").mkdir(parents=True)
    (isolated_home / "indexes" / "financebench" / "index.json").write_text("{}")
    check_index(retrieved)


def test_summary_hit_rates_count_only_rows_where_they_are_known() -> None:
    def row(n: int, hit: bool | None, given: bool | None = None) -> Row:
        searched = [] if hit is not None else None
        return judged_row(id=str(n), retrieved=searched, gold_retrieved=hit, gold_given=given)

    rows = [row(1, True, True), row(2, False, False), row(3, None), row(4, True, False)]
    summary = summarize(rows)
    assert summary.retrieval_hit_rate == pytest.approx(2 / 3)
    assert summary.given_hit_rate == pytest.approx(1 / 3)
    gold = summarize([row(1, None)])
    assert gold.retrieval_hit_rate is None and gold.given_hit_rate is None
    table = format_table({"naive-rag": summary, "pot": gold}).splitlines()
    assert table[0].split()[-5:] == ["gold", "given", "gold", "searched", "outcomes"]
    assert table[1].startswith("naive-rag") and table[1].split()[-4:-2] == ["33.3%", "66.7%"]
    assert table[1].endswith("answered 4")
    assert table[2].startswith("pot") and table[2].split()[-4:] == ["-", "-", "answered", "1"]


def test_a_slice_selects_its_questions_in_dataset_order_before_where_skip_and_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data_dir = write_data_dir(tmp_path / "data")
    ids = ["ctx5-change", "ctx2-lookup", "ctx2-change", "ctx0-lookup"]
    use_slices(
        monkeypatch, tmp_path / "slices", synthetic_slice(f"tatqa:{SPLIT}", "report", ids, [])
    )
    settings = EvalSettings(
        dataset=f"tatqa:{SPLIT}",
        modes=["pot"],
        lm="x",
        slice=f"tatqa-{SPLIT}-report",
        out_dir=tmp_path,
    )
    chosen = evaluation_records(settings, str(data_dir))
    assert [r.id for r in chosen] == ["ctx0-lookup", "ctx2-lookup", "ctx2-change", "ctx5-change"]
    where = settings.model_copy(update={"where": {"scale": "percent"}, "limit": 1})
    assert [r.id for r in evaluation_records(where, str(data_dir))] == ["ctx2-change"]
    later = settings.model_copy(update={"skip": 1, "limit": 2})
    assert [r.id for r in evaluation_records(later, str(data_dir))] == [
        "ctx2-lookup",
        "ctx2-change",
    ]
    past_the_end = settings.model_copy(update={"skip": 4})
    with pytest.raises(ValueError, match=r"after skipping 4$"):
        evaluation_records(past_the_end, str(data_dir))
    nothing = settings.model_copy(update={"where": {"scale": "million"}})
    with pytest.raises(ValueError, match=f"no records in tatqa:{SPLIT} \\(slice tatqa-{SPLIT}-"):
        evaluation_records(nothing, str(data_dir))


def test_a_slice_of_another_dataset_fails_the_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    use_slices(monkeypatch, tmp_path, synthetic_slice("finqa:dev", "report", ["f1"], []))
    check_slice(EvalSettings(dataset="tatqa:dev", modes=["pot"], lm="x", out_dir=tmp_path))
    other = EvalSettings(
        dataset="tatqa:dev", modes=["pot"], lm="x", slice="finqa-dev-report", out_dir=tmp_path
    )
    with pytest.raises(ValueError, match="slice finqa-dev-report is of finqa:dev, not tatqa:dev"):
        check_slice(other)


def test_by_answer_type_lines_give_the_official_metrics_beside_the_strict_accuracy() -> None:
    def row(n: int, score: float, kind: str, f1: float) -> Row:
        official = {"tatqa_em": score, "tatqa_f1": f1}
        return judged_row(id=str(n), score=score, answer_type=kind, official=official)

    summaries = {
        "direct": summarize([row(1, 0, "span", 0.5), row(2, 1, "number", 1.0)]),
        "program": summarize([row(1, 1, "span", 1.0), row(2, 0, "number", 0.0)]),
    }
    lines = format_by_answer_type(summaries).splitlines()
    assert lines[1:] == [
        "  number      direct   100.0%  EM 100.0% F1 100.0%",
        "  number      program    0.0%  EM 0.0% F1 0.0%",
        "  span        direct     0.0%  EM 0.0% F1 50.0%",
        "  span        program  100.0%  EM 100.0% F1 100.0%",
    ]
    assert format_by_answer_type({"direct": summarize([row(1, 0, "span", 0.5)])}) == ""
