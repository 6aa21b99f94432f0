"""The loaders on the shared evaluation data: counts from its README and known records."""

from __future__ import annotations

import functools
from collections import Counter
from pathlib import Path

import pytest

from filingqa.datasets import available_datasets, format_table, load_dataset
from filingqa.datasets.convfinqa import execute_turn_program
from filingqa.records import QARecord

pytestmark = pytest.mark.data


@functools.cache
def load(spec: str, data_dir: Path) -> dict[str, QARecord]:
    records = load_dataset(spec, data_dir)
    by_id = {record.id: record for record in records}
    assert len(by_id) == len(records), f"{spec} has duplicate ids"
    return by_id


@pytest.mark.parametrize(
    ("spec", "count"),
    [
        ("financebench:dev", 100),
        ("tatqa:dev", 1668),
        ("finqa:dev_sample200", 200),
        ("finqa:train_sample100", 100),
        ("finqa:dev848", 848),
        ("lofin:textual_test", 146),
        ("lofin:numeric_table_test", 80),
        ("lofin:numeric_text_test", 1),
        ("lofin:test", 227),
    ],
)
def test_counts(spec: str, count: int, shared_data_dir: Path) -> None:
    records = load(spec, shared_data_dir)
    assert len(records) == count
    assert {record.spec for record in records.values()} == {spec}


def test_financebench_known_record(shared_data_dir: Path) -> None:
    record = load("financebench:dev", shared_data_dir)["financebench_id_00499"]
    assert record.question == "Is 3M a capital-intensive business based on FY2022 data?"
    assert (record.answer_type, record.answer_value) == ("yes_no", False)
    assert [(e.doc_name, e.page) for e in record.evidence] == [
        ("3M_2022_10K", 47),
        ("3M_2022_10K", 49),
        ("3M_2022_10K", 51),
    ]
    page = record.context.pages[0]
    # Zero-indexed: PDF page index 47 carries the printed page number 48 at its foot.
    assert page.page == 47
    assert "Consolidated Statement of Income" in page.text
    assert page.text.rstrip().endswith("48")
    assert record.meta["doc_type"] == "10k"
    assert record.meta["doc_period"] == 2022
    assert record.meta["gics_sector"] == "Industrials"
    assert Path(record.meta["pdf_paths"]["3M_2022_10K"]).is_file()


def test_financebench_numbers_and_missing_pdfs(shared_data_dir: Path) -> None:
    records = load("financebench:dev", shared_data_dir)
    types = Counter(record.answer_type for record in records.values())
    assert types["number"] + types["yes_no"] + types["explanation"] == 100
    missing = {doc for record in records.values() for doc in record.meta["missing_pdfs"]}
    assert missing == {
        "3M_2023Q2_10Q",
        "AES_2022_10K",
        "AMD_2022_10K",
        "COCACOLA_2022_10K",
        "PAYPAL_2022_10K",
    }
    assert sum(bool(record.meta["missing_pdfs"]) for record in records.values()) == 12
    percent = [r for r in records.values() if r.answer == "65.4%"]
    assert [(r.answer_value, r.scale, r.unit) for r in percent] == [(65.4, "percent", "%")]


def test_tatqa_types_and_scales(shared_data_dir: Path) -> None:
    records = load("tatqa:dev", shared_data_dir).values()
    assert Counter(r.answer_type for r in records) == {
        "number": 718,
        "span": 701,
        "multi_span": 217,
        "count": 32,
    }
    assert Counter(r.scale for r in records)["percent"] == 268
    assert len({r.meta["table_uid"] for r in records}) == 278


def test_tatqa_known_records(shared_data_dir: Path) -> None:
    records = load("tatqa:dev", shared_data_dir)
    change = records["eb787966-fa02-401f-bfaf-ccabf3828b23"]
    assert (change.answer, change.answer_value, change.scale) == ("-12.6", -12.6, "million")
    assert change.gold_program == "44.1-56.7"
    assert change.evidence[0].text_ids == ["2"]
    assert change.context.tables[0].rows[3] == ["Other", "44.1", "56.7", "70.8"]
    percent = records["05b670d3-5b19-438c-873f-9bf6de29c69e"]
    assert percent.answer_value == -22.22
    assert (percent.scale, percent.unit) == ("percent", "%")
    spans = records["593c4388-5209-4462-8b83-b429c8612c25"]
    assert spans.answer_type == "multi_span"
    assert spans.answer_value == ["fixed-price type", "cost-plus type", "time-and-material type"]


def test_finqa_known_record_in_both_formats(shared_data_dir: Path) -> None:
    original = load("finqa:dev_sample200", shared_data_dir)["V/2008/page_17.pdf-1"]
    assert (original.answer, original.answer_value) == ("127.40", 127.4)
    assert original.gold_program == "divide(637, const_5)"
    assert original.evidence[0].table_rows == [3]
    prompt = load("finqa:dev848", shared_data_dir)["V/2008/page_17.pdf-1"]
    assert prompt.question == original.question
    assert prompt.answer_value == 127.4
    assert prompt.context.tables[0].rows[3][:2] == ["american express", "637"]


def test_finqa_formats_agree_and_splits_are_disjoint(shared_data_dir: Path) -> None:
    dev = load("finqa:dev_sample200", shared_data_dir)
    train = load("finqa:train_sample100", shared_data_dir)
    prompts = load("finqa:dev848", shared_data_dir)
    assert not set(dev) & set(train)
    common = set(dev) & set(prompts)
    assert len(common) == 186
    for rid in common:
        assert prompts[rid].answer_value == pytest.approx(dev[rid].answer_value, abs=1e-4)


def test_lofin_fields(shared_data_dir: Path) -> None:
    records = load("lofin:test", shared_data_dir)
    assert sum(r.meta["source"] == "financebench" for r in records.values()) == 100
    record = records["financebench_00499"]
    assert record.context is None
    assert record.evidence[0].doc_name == "MMM_2022_10K"
    assert record.evidence[0].page == 47
    assert record.meta["subset"] == "textual_test"


def test_convfinqa_turns(shared_data_dir: Path) -> None:
    records = load("convfinqa:dev", shared_data_dir)
    assert len(records) == 1490
    assert len({r.meta["conversation_id"] for r in records.values()}) == 421
    first = records["Single_MRO/2007/page_134.pdf-1/turn2"]
    assert (first.question, first.answer_value) == (
        "what was, then, the change over the years?",
        35.8,
    )
    assert first.gold_program == "ans = 60.94 - 25.14"
    assert [t.answer for t in first.history] == ["60.94", "25.14"]
    assert first.meta["answer_executed"]
    last = records["Single_MRO/2007/page_134.pdf-1/turn4"]
    assert (last.answer, last.answer_value, len(last.history)) == ("1.42403", 1.42403, 4)
    assert not last.meta["answer_executed"]
    assert last.evidence[0].table_rows == [0, 1]
    assert records["Single_AON/2014/page_47.pdf-2/turn0"].answer_value == 0.114  # "ans = 11.4%"
    comparison = records["Double_PNC/2013/page_207.pdf/turn1"]
    assert (comparison.answer_type, comparison.answer_value) == ("yes_no", False)


def test_convfinqa_last_turn_programs_give_the_stored_answer(shared_data_dir: Path) -> None:
    records = load("convfinqa:dev", shared_data_dir).values()
    last_turns = [r for r in records if not r.meta["answer_executed"]]
    assert len(last_turns) == 421
    for record in last_turns[:40]:
        executed = execute_turn_program(record.gold_program)
        assert executed == pytest.approx(record.answer_value, abs=1e-5), record.id


def test_available_datasets(shared_data_dir: Path) -> None:
    infos = {info.spec: info for info in available_datasets(shared_data_dir)}
    assert {spec: info.records for spec, info in infos.items()} == {
        "financebench:dev": 100,
        "tatqa:dev": 1668,
        "finqa:dev848": 848,
        "finqa:dev_sample200": 200,
        "finqa:train_sample100": 100,
        "convfinqa:dev": 1490,
        "lofin:numeric_table_test": 80,
        "lofin:numeric_text_test": 1,
        "lofin:test": 227,
        "lofin:textual_test": 146,
    }
    assert infos["financebench:dev"].notes == ["5 of 63 PDFs missing (12 questions affected)"]
    assert "financebench:dev" in format_table(list(infos.values()))
