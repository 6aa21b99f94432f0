from pathlib import Path

import pytest

from filingqa.evaluation.slices.committed import report_contexts
from filingqa.evaluation.slices.recipes import benchmark_contexts
from filingqa.optimizers.compile_data import (
    SplitSpec,
    draw,
    ids_sha256,
    to_example,
)

from ..evaluation.slice_fakes import synthetic_slice, use_slices
from .compile_fakes import SPLIT, write_data_dir


@pytest.mark.parametrize(
    ("text", "dataset", "n"),
    [("tatqa:dev", "tatqa:dev", None), ("finqa:train_sample100:8", "finqa:train_sample100", 8)],
)
def test_split_specs(text: str, dataset: str, n: int | None) -> None:
    spec = SplitSpec.parse(text)
    assert (spec.dataset, spec.n, str(spec)) == (dataset, n, text)


@pytest.mark.parametrize("text", ["tatqa", "tatqa:dev:0", "tatqa:dev:x", "a:b:1:2", ":dev"])
def test_bad_split_specs(text: str) -> None:
    with pytest.raises(ValueError, match="bad split"):
        SplitSpec.parse(text)


def test_draw_is_seeded_spread_and_excludes_contexts(tmp_path: Path) -> None:
    data = write_data_dir(tmp_path)
    spec = [SplitSpec.parse(f"tatqa:{SPLIT}:6")]
    first = draw(spec, target="pot", data_dir=data)
    assert [r.id for r in first] == [r.id for r in draw(spec, target="pot", data_dir=data)]
    assert ids_sha256(first) != ids_sha256(draw(spec, target="pot", seed=1, data_dir=data))
    assert len({d for r in first for d in r.documents}) > 3  # not the first contexts only
    kept = draw(spec, target="pot", exclude_documents={"ctx0", "ctx1"}, data_dir=data)
    assert not {"ctx0", "ctx1"} & {d for r in kept for d in r.documents}
    with pytest.raises(ValueError, match="no usable question"):
        draw(spec, target="pot", exclude_documents={f"ctx{i}" for i in range(12)}, data_dir=data)


def test_examples_carry_inputs_and_judge_hints(tmp_path: Path) -> None:
    record = draw(
        [SplitSpec.parse(f"tatqa:{SPLIT}:1")], target="pot", data_dir=write_data_dir(tmp_path)
    )[0]
    pot = to_example(record, "pot")
    assert set(pot.inputs().keys()) == {"question", "evidence"}
    assert "| Revenue |" in pot.evidence and pot.answer == record.answer
    program = to_example(record, "program")
    assert set(program.inputs().keys()) == {"question", "passages"}
    assert program.passages and program.answer_type == "number"


@pytest.mark.data
def test_tatqa_benchmark_contexts_never_train(shared_data_dir: Path) -> None:
    banned = benchmark_contexts(shared_data_dir)
    assert 20 < len(banned) <= 100
    drawn = draw([SplitSpec.parse("tatqa:dev:40")], target="pot", data_dir=shared_data_dir)
    assert len(drawn) == 40
    assert not banned & {d for r in drawn for d in r.documents}
    assert {r.answer_type for r in drawn} <= {"number", "count"}


def test_draws_never_use_the_contexts_of_a_report_slice_of_any_split(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = write_data_dir(tmp_path / "data")
    use_slices(
        monkeypatch,
        tmp_path / "slices",
        synthetic_slice("tatqa:other", "report", ["x-1"], ["ctx0", "ctx1"]),
        synthetic_slice(f"tatqa:{SPLIT}", "report", ["ctx2-lookup"], ["ctx2"]),
        synthetic_slice(f"tatqa:{SPLIT}", "tuning", ["ctx3-lookup"], ["ctx3"]),
    )
    drawn = {
        d
        for r in draw([SplitSpec.parse(f"tatqa:{SPLIT}")], target="pot", data_dir=data)
        for d in r.documents
    }
    assert drawn == {f"ctx{i}" for i in range(3, 12)}


@pytest.mark.data
def test_draws_never_use_a_committed_report_slice_context(shared_data_dir: Path) -> None:
    for spec, target in (
        ("tatqa:dev", "pot"),
        ("finqa:dev_sample200", "pot"),
        ("financebench:dev", "program"),
    ):
        drawn = draw([SplitSpec.parse(spec)], target=target, data_dir=shared_data_dir)
        held_out = report_contexts(spec.partition(":")[0])
        assert drawn and held_out, spec
        assert not held_out & {d for r in drawn for d in r.documents}, spec
