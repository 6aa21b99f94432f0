"""``filingqa eval --slice NAME``: only the slice's questions, in dataset order, with --where,
--skip and --limit; a bad name is one error line before any LM loads (synthetic data and slices)."""

from __future__ import annotations

from pathlib import Path

import pytest

from filingqa.cli import main
from filingqa.evaluation.runner import read_rows

from .evaluation.slice_fakes import synthetic_slice, use_slices
from .kit.replies import fenced
from .optimizers.compile_fakes import SPLIT, write_data_dir

DATASET = f"tatqa:{SPLIT}"
REPORT = f"tatqa-{SPLIT}-report"


@pytest.fixture
def sliced_data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The synthetic data dir, with a report slice of four questions listed out of order and
    a FinQA slice; returns the data dir."""
    use_slices(
        monkeypatch,
        tmp_path / "slices",
        synthetic_slice(
            DATASET, "report", ["ctx7-lookup", "ctx4-change", "ctx1-lookup", "ctx4-lookup"], []
        ),
        synthetic_slice("finqa:dev_sample200", "report", ["F/2019/page_1.pdf-1"], []),
    )
    return write_data_dir(tmp_path / "data")


@pytest.fixture
def no_lm(monkeypatch: pytest.MonkeyPatch) -> None:
    """Loading an LM fails the test (errors must come before it)."""

    def get_lm(*_, **__):
        raise AssertionError("the LM was loaded")

    monkeypatch.setattr("filingqa.lm.backbone.get_lm", get_lm)


def eval_args(data_dir: Path, *extra: str) -> list[str]:
    return ["eval", "--dataset", DATASET, "--mode", "pot", "--data-dir", str(data_dir), *extra]


def one_line_error(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err.strip()
    assert err.startswith("filingqa: error: ") and "\n" not in err
    return err


def test_eval_slice_answers_only_the_slice_questions_in_dataset_order(
    sliced_data: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    scripted_lm,
    capsys: pytest.CaptureFixture[str],
) -> None:
    lm = scripted_lm([fenced("result = 110"), fenced("result = 140"), fenced("result = 0")])
    monkeypatch.setattr("filingqa.lm.backbone.get_lm", lambda *_, **__: lm)
    out = tmp_path / "out"
    args = eval_args(sliced_data, "--slice", REPORT, "--where", "scale=", "--limit", "3")
    assert main([*args, "--out", str(out)]) == 0
    rows = read_rows(out / "pot.jsonl")
    assert [r.id for r in rows] == ["ctx1-lookup", "ctx4-lookup", "ctx7-lookup"]
    assert [r.score for r in rows] == [1.0, 1.0, 0.0]
    assert f"{DATASET}, lm=local, slice={REPORT}, where={{'scale': ''}}" in capsys.readouterr().out


def test_eval_skip_answers_a_later_block_of_the_same_questions(
    sliced_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, scripted_lm
) -> None:
    lm = scripted_lm([fenced("result = 140"), fenced("result = 0")])
    monkeypatch.setattr("filingqa.lm.backbone.get_lm", lambda *_, **__: lm)
    out = tmp_path / "out"
    args = eval_args(sliced_data, "--slice", REPORT, "--where", "scale=", "--skip", "1")
    assert main([*args, "--limit", "2", "--out", str(out)]) == 0
    assert [r.id for r in read_rows(out / "pot.jsonl")] == ["ctx4-lookup", "ctx7-lookup"]


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("tatqa-dev-report", f"unknown slice 'tatqa-dev-report'; slices of {DATASET}: {REPORT}"),
        ("finqa-dev_sample200-report", f"is of finqa:dev_sample200, not {DATASET}; slices of "),
    ],
)
def test_eval_slice_that_is_not_the_dataset_s_is_one_error_line_naming_its_slices(
    sliced_data: Path, no_lm, capsys: pytest.CaptureFixture[str], name: str, message: str
) -> None:
    assert main(eval_args(sliced_data, "--slice", name)) == 2
    assert message in one_line_error(capsys)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--slice", REPORT], "--slice chooses the questions to answer: not with --mode retrieval"),
        (
            ["--where", "scale=", "--skip", "2"],
            "--where, --skip choose the questions to answer: not with --mode retrieval",
        ),
        (["--per-type", "3"], "--per-type chooses the questions to answer"),
    ],
)
def test_eval_options_choosing_questions_are_refused_with_retrieval_mode(
    sliced_data: Path,
    no_lm,
    capsys: pytest.CaptureFixture[str],
    options: list[str],
    message: str,
) -> None:
    assert main(["eval", "--dataset", DATASET, "--mode", "retrieval", *options]) == 2
    assert message in one_line_error(capsys)
