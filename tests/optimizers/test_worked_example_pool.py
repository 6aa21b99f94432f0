"""The worked-example pool: gold programs that reproduce their gold, stored without text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from filingqa.artifacts.worked_examples import PoolFile, read_pool
from filingqa.datasets.base import DatasetError
from filingqa.optimizers.worked_example_pool import derive_pool, stored_pool

from ..retrieval.filings import fake_embedder
from .compile_fakes import SPLIT, write_data_dir

SPEC = f"tatqa:{SPLIT}"


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    """Three contexts; context 1's percentage-change derivation forgets to divide."""
    root = write_data_dir(tmp_path / "data", contexts=3)
    path = root / "tatqa" / f"tatqa_dataset_{SPLIT}.json"
    items = json.loads(path.read_text())
    items[1]["questions"][1]["derivation"] = "105-85"
    path.write_text(json.dumps(items))
    return root


def test_only_programs_that_reproduce_their_gold_enter(data_dir: Path) -> None:
    pool = derive_pool([SPEC], data_dir=data_dir, progress=False)
    ids = [p.id for p in pool.programs]
    assert ids == ["ctx0-lookup", "ctx0-change", "ctx1-lookup", "ctx2-lookup", "ctx2-change"]
    assert all(p.source == SPEC for p in pool.programs)
    assert list(pool.sources) == [SPEC]


def test_figures_are_named_after_their_cells(data_dir: Path) -> None:
    pool = derive_pool([SPEC], data_dir=data_dir, progress=False)
    change = next(p for p in pool.programs if p.id == "ctx2-change")
    assert change.program.splitlines() == [
        "revenue_2019 = 120",
        "revenue_2018 = 90",
        "result = (revenue_2019 - revenue_2018) / revenue_2018",
        "result = result * 100",
    ]


def test_excluded_contexts_never_enter(data_dir: Path) -> None:
    pool = derive_pool([SPEC], exclude_documents={"ctx0"}, data_dir=data_dir, progress=False)
    assert not any(p.id.startswith("ctx0") for p in pool.programs)


def test_a_stored_pool_is_derived_once_and_then_read(data_dir: Path, tmp_path: Path) -> None:
    path = tmp_path / "pool.json"
    first = stored_pool(path, [SPEC], exclude_documents={"ctx0"}, data_dir=data_dir, progress=False)
    assert first == derive_pool(
        [SPEC], exclude_documents={"ctx0"}, data_dir=data_dir, progress=False
    )
    again = stored_pool(path, [SPEC], data_dir=data_dir, progress=False)  # not derived again
    assert again == first


def test_a_source_without_gold_programs_is_refused(data_dir: Path) -> None:
    with pytest.raises(ValueError, match="no gold programs"):
        derive_pool(["financebench:dev"], data_dir=data_dir, progress=False)


def test_the_stored_pool_holds_no_question_text_and_reads_it_back(
    data_dir: Path, tmp_path: Path
) -> None:
    path = tmp_path / "pool.json"
    derive_pool([SPEC], data_dir=data_dir, progress=False).write(path)
    assert "revenue of company" not in path.read_text()
    examples = read_pool(PoolFile.read(path), data_dir, embedder=fake_embedder())
    assert len(examples) == 5
    assert examples.examples[0].question == "What was the revenue of company 0 in 2019?"
    nearest = examples.nearest("What was the percentage change in the revenue of company 7?", 1)
    assert nearest[0].id in {"ctx0-change", "ctx2-change"}


def test_a_changed_source_file_is_refused(data_dir: Path) -> None:
    pool = derive_pool([SPEC], data_dir=data_dir, progress=False)
    path = data_dir / "tatqa" / f"tatqa_dataset_{SPLIT}.json"
    path.write_text(path.read_text().replace("Company 0 grew.", "Company 0 shrank."))
    with pytest.raises(DatasetError, match="recompile"):
        read_pool(pool, data_dir, embedder=fake_embedder())
