"""``filingqa compile --optimizer structure`` end to end, with the rule LM of compile_fakes."""

from __future__ import annotations

import json
from pathlib import Path

import dspy
import pytest

from filingqa.artifacts.compiled import WorkedExamplesUnavailable, read_program
from filingqa.artifacts.manifest import ROUTER_DIR, read_manifest
from filingqa.artifacts.worked_examples import POOL_FILE, PoolFile
from filingqa.cli import main
from filingqa.evaluation.runner import read_rows
from filingqa.lm.backbone import Backbone
from filingqa.optimizers import cost_selection
from filingqa.optimizers.compile import run_compile
from filingqa.optimizers.compile_plan import CompileRequest, plan_compile
from filingqa.optimizers.optimization_stage import OPTIMIZER_FILE, SEARCH_DIR
from filingqa.optimizers.presets import default_optimizer, preset
from filingqa.router.rule import route_by_rule

from ..retrieval.filings import fake_embedder
from .compile_fakes import SPLIT, rule_lm, write_data_dir


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory) -> Path:
    return write_data_dir(tmp_path_factory.mktemp("data"), contexts=24)


def compile_structure(
    data_dir: Path,
    out: Path,
    lm: dspy.LM,
    said: list[str] | None = None,
    dev: int = 12,
    confirm: int = 6,
):
    """A structure compile over ``dev`` questions of the mini split, confirmed on
    ``confirm`` others, worked examples from the contexts of neither."""
    settings = preset("structure", "light", local=True).model_copy(
        update={
            "dev": [f"tatqa:{SPLIT}:{dev}"],
            "confirm": [f"tatqa:{SPLIT}:{confirm}"],
            "pool": [f"tatqa:{SPLIT}"],
            "first_rung": 4,
        }
    )
    request = CompileRequest(
        name=out.name,
        out_dir=out,
        backbone=Backbone.parse("rules/test"),
        settings=settings,
        skip_retriever=True,
    )
    lines = said if said is not None else []
    return run_compile(
        plan_compile(request, data_dir),
        lm=lm,
        data_dir=data_dir,
        embedder=fake_embedder(),
        progress=False,
        say=lines.append,
    )


@pytest.fixture(scope="module")
def examples_help(data_dir: Path, tmp_path_factory) -> tuple[Path, list[str]]:
    """A compile for a backbone the loop does not help and worked examples do."""
    out = tmp_path_factory.mktemp("artifacts") / "examples"
    said: list[str] = []
    compile_structure(data_dir, out, rule_lm(loop_helps=False), said)
    return out, said


def test_the_search_picks_worked_examples_and_keeps_them(
    examples_help: tuple[Path, list[str]],
) -> None:
    out, said = examples_help
    manifest = read_manifest(out)
    assert manifest.optimizer["optimizer"] == "structure"
    assert manifest.before.accuracy < 1.0 and manifest.after.accuracy == 1.0
    assert manifest.selection is not None and manifest.selection.kept == "compiled"
    assert manifest.program_options["examples_per_question"] >= 1
    assert manifest.worked_examples == POOL_FILE
    assert len(manifest.structures) >= 8
    assert all({"key", "accuracy", "lm_calls", "questions"} <= set(s) for s in manifest.structures)
    assert manifest.structures[0]["accuracy"] == 1.0
    assert any(line.strip().startswith("picked ") for line in said)
    kept_by_cost = [c for c in manifest.costs if c["verdict"] == "kept"]
    assert len(kept_by_cost) == 1 and kept_by_cost[0]["key"] == manifest.structures[0]["key"]
    assert {"accuracy", "seconds", "wins", "losses"} <= set(kept_by_cost[0])
    assert any(c["key"] == "start" for c in manifest.costs)  # the start is weighed too
    assert manifest.open_corpus is not None and manifest.open_corpus["skipped"]
    kept = manifest.program_options["examples_per_question"]
    assert said[-1].startswith("kept the compiled program (structure ")
    assert f"examples_per_question={kept}" in said[-1]
    assert "dev accuracy 100.0% (uncompiled " in said[-1] and "estimated" in said[-1]


def test_a_cheaper_program_no_less_accurate_is_kept_through_selection_and_confirmation(
    data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The verifier's checks cost a third of a second each and change no answer: the
    search keeps a structure without them, the selection takes it on for its cost, the
    confirmation keeps it (costs told apart to the scripted LM's scale)."""
    monkeypatch.setattr(cost_selection, "SAME_COST_SECONDS", 0.05)
    lm = rule_lm(demos_help=False, loop_helps=False, seconds_per_check=0.3)
    compile_structure(data_dir, tmp_path / "cheaper", lm, dev=8, confirm=4)
    manifest = read_manifest(tmp_path / "cheaper")
    selection = manifest.selection
    assert manifest.before.accuracy == manifest.after.accuracy
    assert selection is not None and selection.kept == "compiled" and not selection.won_dev
    assert selection.seconds["compiled"] < selection.seconds["uncompiled"] - 0.1
    confirmation = selection.confirmation
    assert confirmation is not None and confirmation.held
    assert (confirmation.wins, confirmation.losses) == (0, 0)
    assert confirmation.seconds["compiled"] < confirmation.seconds["uncompiled"]


def test_the_search_log_counts_the_candidates_and_not_the_start(
    examples_help: tuple[Path, list[str]],
) -> None:
    out, _ = examples_help
    log = json.loads((out / OPTIMIZER_FILE).read_text())
    search = [p for p in (out / SEARCH_DIR).glob("*.jsonl") if p.stem != "start"]
    rows = [row for path in search for row in read_rows(path)]
    assert len(search) == len(read_manifest(out).structures) - 1
    assert log["lm_calls"] == sum(r.lm_calls - r.cached_calls for r in rows) > 0
    assert log["seconds"] == round(sum(r.seconds for r in rows), 1)
    manifest = read_manifest(out)
    assert manifest.lm_calls["dev after"] == 0  # the pick's search rows, copied
    before = read_rows(out / "eval" / "before.jsonl")
    confirmed = [row for path in (out / "eval").glob("confirm-*.jsonl") for row in read_rows(path)]
    labels = [row for path in (out / ROUTER_DIR).glob("*.jsonl") for row in read_rows(path)]
    assert manifest.lm_calls["confirmation"] == sum(r.lm_calls for r in confirmed) > 0
    counted = sum(r.seconds for r in [*before, *confirmed, *labels]) + log["seconds"]
    assert manifest.wall_seconds >= counted  # the clock: writing files and judging too
    assert sum(t["seconds"] for t in manifest.stages.values()) <= manifest.wall_seconds + 0.1


def test_the_pool_holds_no_dev_context(examples_help: tuple[Path, list[str]]) -> None:
    out, _ = examples_help
    pool = PoolFile.read(out / POOL_FILE)
    dev = {r["id"] for r in map(json.loads, (out / "eval" / "before.jsonl").open())}
    contexts = {i.rsplit("-", 1)[0] for i in dev}
    assert pool.programs
    assert not {p.id.rsplit("-", 1)[0] for p in pool.programs} & contexts


def test_the_artifact_round_trip_restores_structure_and_examples(
    examples_help: tuple[Path, list[str]], data_dir: Path, monkeypatch
) -> None:
    out, _ = examples_help
    manifest = read_manifest(out)
    monkeypatch.setenv("FILINGQA_DATA_DIR", str(data_dir))
    qa = read_program(out)
    assert qa.pot.examples_per_question == manifest.program_options["examples_per_question"]
    assert len(qa.pot.worked_examples) == len(PoolFile.read(out / POOL_FILE).programs)
    assert qa.pot.samples == manifest.program_options["samples"]
    assert qa.reason.max_rounds == manifest.program_options["max_rounds"]


def test_without_the_data_dir_the_artifact_runs_without_examples(
    examples_help: tuple[Path, list[str]], tmp_path: Path, monkeypatch
) -> None:
    out, _ = examples_help
    monkeypatch.setenv("FILINGQA_DATA_DIR", str(tmp_path / "elsewhere"))
    with pytest.warns(WorkedExamplesUnavailable, match="without its worked examples"):
        qa = read_program(out)
    assert qa.pot.worked_examples is None


def test_a_compile_whose_best_structure_does_not_win_keeps_the_uncompiled_program(
    data_dir: Path, tmp_path: Path
) -> None:
    out = tmp_path / "flat"
    manifest = compile_structure(data_dir, out, rule_lm(demos_help=False, loop_helps=False))
    assert manifest.selection is not None and manifest.selection.kept == "uncompiled"
    assert manifest.worked_examples is None
    assert manifest.program_options["examples_per_question"] == 0
    assert manifest.loop == "rule"
    qa = read_program(out)
    assert qa.pot.worked_examples is None
    if not manifest.use_router:
        assert qa.router is route_by_rule


def test_local_backbones_default_to_the_structure_search() -> None:
    assert default_optimizer(local=True) == "structure"
    assert default_optimizer(local=False) == "bootstrap-rs"
    settings = preset("structure", "light", local=True)
    assert settings.target == "program" and settings.pool == ["tatqa:dev"]
    with pytest.raises(ValueError, match="--target program"):
        settings.model_validate(settings.model_dump() | {"target": "pot"})


def test_cli_dry_run_describes_the_search(data_dir: Path, tmp_path: Path, capsys) -> None:
    code = main(
        [
            "compile",
            "--out",
            str(tmp_path / "qwen"),
            "--lm",
            "local",
            "--dev",
            f"tatqa:{SPLIT}:12",
            "--data-dir",
            str(data_dir),
            "--skip-retriever",
            "--dry-run",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "compile qwen: structure (light) on the program module, backbone local" in out
    assert "13 structures (+ the best changes combined), successive halving over 5 → 12" in out
    assert "structure search" in out and "router labels" in out


def test_the_router_calibrates_on_the_first_dev_questions(data_dir: Path, tmp_path: Path) -> None:
    settings = preset("structure", "light", local=True).model_copy(
        update={"dev": [f"tatqa:{SPLIT}:12"], "confirm": [], "calibration_questions": 6}
    )
    request = CompileRequest(
        name="x", out_dir=tmp_path / "x", backbone=Backbone.parse("rules/test"), settings=settings
    )
    plan = plan_compile(request, data_dir)
    assert plan.calibration == plan.dev[:6]


def test_cli_refuses_a_structure_search_of_the_pot_module(tmp_path: Path, capsys) -> None:
    code = main(["compile", "--out", str(tmp_path / "x"), "--target", "pot", "--dry-run"])
    assert code == 2
    assert capsys.readouterr().err == (
        "filingqa: error: the structure search chooses the whole program's options: "
        "--target program\n"
    )
