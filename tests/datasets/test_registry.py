"""Spec parsing, split discovery, errors and the ``data list`` table, on synthetic data."""

from __future__ import annotations

from pathlib import Path

import pytest

from filingqa.core.config import ConfigError
from filingqa.datasets import (
    AmbiguousSplitError,
    DatasetFormatError,
    DatasetSpecError,
    SplitNotFoundError,
    UnknownDatasetError,
    available_datasets,
    format_table,
    load_dataset,
)

from .conftest import financebench_row, tatqa_context, tatqa_question, write_json, write_jsonl


def test_new_split_file_is_picked_up_without_code_change(synthetic_data_dir: Path) -> None:
    write_jsonl(
        synthetic_data_dir / "financebench/financebench_holdout7.jsonl",
        [financebench_row("fb7", "Yes, it did."), financebench_row("fb8", "0.5")],
    )
    write_json(
        synthetic_data_dir / "tatqa/tatqa_dataset_mini.json",
        [tatqa_context([tatqa_question("a"), tatqa_question("b")])],
    )
    records = load_dataset("financebench:holdout7", synthetic_data_dir)
    assert [r.id for r in records] == ["fb7", "fb8"]
    assert {r.split for r in records} == {"holdout7"}
    assert len(load_dataset("tatqa:mini", synthetic_data_dir)) == 2


def test_limit(synthetic_data_dir: Path) -> None:
    write_json(
        synthetic_data_dir / "tatqa/tatqa_dataset_dev.json",
        [tatqa_context([tatqa_question(str(i)) for i in range(5)])],
    )
    assert len(load_dataset("tatqa:dev", synthetic_data_dir, limit=2)) == 2


def test_data_dir_from_environment(
    synthetic_data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FILINGQA_DATA_DIR", str(synthetic_data_dir))
    assert load_dataset("finqa:dev")[0].id == "ACME/2019/page_5.pdf-1"


def test_missing_split_names_path_and_present_splits(synthetic_data_dir: Path) -> None:
    with pytest.raises(SplitNotFoundError) as caught:
        load_dataset("tatqa:train", synthetic_data_dir)
    message = str(caught.value)
    assert str(synthetic_data_dir / "tatqa/tatqa_dataset_train.json") in message
    assert "splits present: dev" in message
    assert isinstance(caught.value, ConfigError)


def test_missing_split_lists_every_finqa_file_looked_for(synthetic_data_dir: Path) -> None:
    with pytest.raises(SplitNotFoundError) as caught:
        load_dataset("finqa:test", synthetic_data_dir)
    message = str(caught.value)
    for name in ("test.original_format.json", "test.tatllm_instruction_format.json", "test.json"):
        assert str(synthetic_data_dir / "finqa" / name) in message
    assert "dev, dev9" in message


def test_ambiguous_finqa_split(synthetic_data_dir: Path) -> None:
    write_json(synthetic_data_dir / "finqa/dev.json", [])
    with pytest.raises(AmbiguousSplitError, match=r"dev\.original_format\.json"):
        load_dataset("finqa:dev", synthetic_data_dir)


def test_metadata_file_is_not_a_split(synthetic_data_dir: Path) -> None:
    with pytest.raises(SplitNotFoundError):
        load_dataset("financebench:document_information", synthetic_data_dir)


@pytest.mark.parametrize("spec", ["tatqa", "tatqa:", ":dev", "tatqa:dev:x", "tat qa:dev"])
def test_malformed_spec(spec: str, synthetic_data_dir: Path) -> None:
    with pytest.raises(DatasetSpecError, match="name:split"):
        load_dataset(spec, synthetic_data_dir)


def test_unknown_dataset_lists_known_names(synthetic_data_dir: Path) -> None:
    with pytest.raises(UnknownDatasetError, match="financebench, tatqa, finqa, convfinqa, lofin"):
        load_dataset("squad:dev", synthetic_data_dir)


def test_no_data_dir(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FILINGQA_DATA_DIR", raising=False)
    with pytest.raises(ConfigError, match="FILINGQA_DATA_DIR"):
        load_dataset("tatqa:dev")


def test_lofin_group_split_is_union_of_parts(synthetic_data_dir: Path) -> None:
    records = load_dataset("lofin:test", synthetic_data_dir)
    assert [r.id for r in records] == ["openqa_2", "openqa_1"]
    assert [r.meta["subset"] for r in records] == ["numeric_table_test", "textual_test"]
    assert {r.split for r in records} == {"test"}
    assert len(load_dataset("lofin:textual_test", synthetic_data_dir)) == 1


def test_available_datasets_and_table(synthetic_data_dir: Path) -> None:
    infos = {info.spec: info for info in available_datasets(synthetic_data_dir)}
    assert set(infos) == {
        "financebench:dev",
        "tatqa:dev",
        "finqa:dev",
        "finqa:dev9",
        "lofin:numeric_table_test",
        "lofin:test",
        "lofin:textual_test",
    }
    assert infos["lofin:test"].records == 2
    assert infos["financebench:dev"].notes == ["1 of 1 PDFs missing (1 questions affected)"]
    table = format_table(list(infos.values()))
    assert table.splitlines()[0].split() == ["dataset", "records", "files", "notes"]
    assert "lofin/numeric_table_test.jsonl, lofin/textual_test.jsonl" in table


def test_available_datasets_reports_ambiguity(synthetic_data_dir: Path) -> None:
    write_json(synthetic_data_dir / "finqa/dev.json", [])
    info = next(i for i in available_datasets(synthetic_data_dir) if i.spec == "finqa:dev")
    assert info.records is None
    assert "ambiguous" in info.notes[0]


def test_malformed_file_names_the_file(synthetic_data_dir: Path) -> None:
    bad = write_jsonl(synthetic_data_dir / "lofin/broken_test.jsonl", [{"qid": "x"}])
    with pytest.raises(DatasetFormatError, match=r"broken_test\.jsonl is not in the lofin format"):
        load_dataset("lofin:broken_test", synthetic_data_dir)
    info = next(i for i in available_datasets(synthetic_data_dir) if i.spec == "lofin:test")
    assert info.records is None
    assert str(bad) in info.notes[0]
