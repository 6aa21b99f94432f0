import hashlib
import json
import os
import re
import shutil
import signal
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from filingqa.artifacts.manifest import read_manifest
from filingqa.cli import main
from filingqa.cli.compile import sigterm_interrupts
from filingqa.evaluation.runner import read_rows
from filingqa.lm.backbone import Backbone
from filingqa.metrics.dspy_metric import JudgeMetric
from filingqa.models.registry import DEFAULT_LLM
from filingqa.optimizers.compile import measure_speed, run_compile
from filingqa.optimizers.compile_clock import CLOCK_FILE, START, CompileClock
from filingqa.optimizers.compile_plan import plan_compile
from filingqa.optimizers.optimizer_registry import optimize
from filingqa.optimizers.presets import preset
from filingqa.program.pot import ProgramOfThought

from ..kit.data import write_financebench
from .compile_fakes import SPLIT, compile_small, rule_lm, small_request, write_data_dir


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory) -> Path:
    return write_data_dir(tmp_path_factory.mktemp("data"))


@pytest.fixture(scope="module")
def compiled(data_dir: Path, tmp_path_factory) -> tuple[Path, int]:
    """One compiled artifact and how many LM calls compiling it took."""
    out = tmp_path_factory.mktemp("artifacts") / "mini"
    lm = rule_lm()
    compile_small(data_dir, out, lm)
    return out, lm.engine.calls


def test_compile_writes_program_router_and_manifest(compiled: tuple[Path, int]) -> None:
    out, _ = compiled
    manifest = read_manifest(out)
    assert manifest.format_version == 1
    assert (manifest.backbone, manifest.lm_model) == ("rules/test", "rules/test")
    assert manifest.model_file is None  # not a local GGUF
    assert manifest.versions["dspy"].startswith("3.4")
    assert manifest.optimizer["optimizer"] == "bootstrap-rs"
    assert manifest.optimizer["target"] == "pot"
    # the rule LM divides only once it has seen a demo: compiling doubles accuracy
    assert (manifest.before.accuracy, manifest.after.accuracy) == (0.5, 1.0)
    assert max(manifest.candidates) == 1.0
    assert manifest.selection is not None and manifest.selection.kept == "compiled"
    assert (manifest.selection.wins, manifest.selection.losses) == (4, 0)
    assert manifest.data["train"].questions == 6
    assert manifest.data["dev"].questions == 8
    files = manifest.data["dev"].files[f"tatqa:{SPLIT}"]
    assert list(files) == [f"tatqa/tatqa_dataset_{SPLIT}.json"]
    assert len(files[f"tatqa/tatqa_dataset_{SPLIT}.json"]) == 64
    assert manifest.lm_calls["dev before"] == 8 and manifest.lm_calls["optimizer"] > 0
    assert manifest.router is not None and manifest.router["questions"] == 8
    assert manifest.reranker is None  # skipped
    state = json.loads((out / "program.json").read_text())
    assert state["pot.write"]["demos"], "the compiled PoT module keeps its bootstrapped demos"
    assert (out / "router" / "model.txt").exists()
    assert (out / "router" / "training.json").exists()


def test_a_compile_that_gains_nothing_keeps_the_uncompiled_program(
    data_dir: Path, tmp_path: Path
) -> None:
    out = tmp_path / "flat"
    said: list[str] = []
    manifest = compile_small(data_dir, out, rule_lm(demos_help=False), said)
    assert any("s per LM call here" in line and "at this speed" in line for line in said)
    assert any("kept the uncompiled program: compiled wins 0, loses 0" in line for line in said)
    assert (manifest.before.accuracy, manifest.after.accuracy) == (0.5, 0.5)
    assert manifest.selection is not None
    assert manifest.selection.kept == "uncompiled"
    assert (manifest.selection.wins, manifest.selection.losses) == (0, 0)
    assert json.loads((out / "program.json").read_text())["pot.write"]["demos"] == []


def test_a_win_short_of_the_threshold_keeps_the_uncompiled_program(
    data_dir: Path, tmp_path: Path
) -> None:
    out = tmp_path / "strict"
    settings = small_request(out).settings.model_copy(update={"max_p_value": 0.05})
    manifest = compile_small(data_dir, out, settings=settings)
    assert manifest.after.accuracy == 1.0  # 4 wins, no loss: p = 1/16
    assert manifest.selection is not None and manifest.selection.kept == "uncompiled"
    assert json.loads((out / "optimized.json").read_text())["pot.write"]["demos"]
    kept = json.loads((out / "program.json").read_text())
    assert kept["pot.write"]["demos"] == [], "the demos are not kept"
    full = read_rows(out / "router" / "full.jsonl")
    assert sum(r.score for r in full) / len(full) == 1.0  # the uncompiled loop: verifier fixes


def confirmed_request(out: Path):
    """:func:`small_request` with 8 confirmation questions."""
    settings = small_request(out).settings.model_copy(update={"confirm": [f"tatqa:{SPLIT}:8"]})
    return small_request(out, settings=settings)


def companies(records) -> set[str]:
    """The ``company N`` each question names."""
    return {re.search(r"company \d+", r.question).group(0) for r in records}


@pytest.fixture(scope="module")
def wide_data_dir(tmp_path_factory) -> Path:
    """Contexts enough for train, dev and confirmation draws sharing none."""
    return write_data_dir(tmp_path_factory.mktemp("wide"), contexts=24)


def test_the_confirmation_shares_no_context_with_train_or_dev(
    wide_data_dir: Path, tmp_path: Path
) -> None:
    plan = plan_compile(confirmed_request(tmp_path / "x"), wide_data_dir)
    confirm_docs = {d for r in plan.confirm for d in r.documents}
    assert len(plan.confirm) == 8
    assert not confirm_docs & {d for r in [*plan.train, *plan.dev] for d in r.documents}
    assert "confirmation" in plan.estimate.if_compiled


def test_a_program_that_wins_dev_and_holds_on_the_confirmation_is_kept(
    wide_data_dir: Path, tmp_path: Path
) -> None:
    out, said = tmp_path / "held", []
    plan = plan_compile(confirmed_request(out), wide_data_dir)
    manifest = run_compile(
        plan, lm=rule_lm(), data_dir=wide_data_dir, progress=False, say=said.append
    )
    selection = manifest.selection
    assert selection is not None and selection.won_dev and selection.kept == "compiled"
    assert selection.confirmation is not None and selection.confirmation.kept == "compiled"
    assert selection.confirmation.wins >= 4 and selection.confirmation.losses == 0
    assert manifest.data["confirmation"].questions == 8
    assert manifest.lm_calls["confirmation"] >= 16  # both programs, every question
    assert (out / "eval" / "confirm-before.jsonl").exists()
    assert any("confirmation (8 other questions)" in line for line in said)
    # the compiled program went on: the clock is set against the estimate with it
    going_on = manifest.estimate["minutes_if_compiled"]
    assert going_on > manifest.estimate["minutes"]
    assert said[-1].endswith(f"estimated {going_on:.0f} min")


def compile_misled_on_the_confirmation(
    out: Path, data_dir: Path, misled: Callable[[str], bool], seconds_with_demos: float = 0.0
):
    """A compile with a confirmation draw whose rule LM's demos mislead it on the
    confirmation questions ``misled`` accepts; returns the manifest."""
    plan = plan_compile(confirmed_request(out), data_dir)
    other = companies(plan.confirm)
    lm = rule_lm(
        misled=lambda q: misled(q) and any(f"{c} " in q for c in other),
        seconds_with_demos=seconds_with_demos,
    )
    return run_compile(plan, lm=lm, data_dir=data_dir, progress=False, say=print)


def test_a_program_that_wins_dev_and_loses_the_confirmation_is_not_kept(
    wide_data_dir: Path, tmp_path: Path
) -> None:
    out = tmp_path / "lost"
    manifest = compile_misled_on_the_confirmation(out, wide_data_dir, lambda question: True)
    selection = manifest.selection
    assert selection is not None and selection.won_dev and selection.losses == 0
    assert selection.confirmation is not None and selection.confirmation.losses >= 4
    assert selection.kept == "uncompiled"
    assert json.loads((out / "program.json").read_text())["pot.write"]["demos"] == []


def test_a_costlier_program_tied_on_the_confirmation_gives_way_to_the_cheaper(
    wide_data_dir: Path, tmp_path: Path
) -> None:
    out = tmp_path / "tied"
    manifest = compile_misled_on_the_confirmation(  # demos slow every reply and fix no change
        out, wide_data_dir, lambda question: "percentage change" in question, 0.05
    )
    selection = manifest.selection
    assert selection is not None and selection.won_dev and selection.losses == 0
    confirmation = selection.confirmation
    assert confirmation is not None and (confirmation.wins, confirmation.losses) == (0, 0)
    assert confirmation.seconds["compiled"] > confirmation.seconds["uncompiled"]
    assert confirmation.kept == selection.kept == "uncompiled"
    assert json.loads((out / "program.json").read_text())["pot.write"]["demos"] == []


def test_a_program_that_loses_dev_is_not_confirmed(wide_data_dir: Path, tmp_path: Path) -> None:
    out, said = tmp_path / "flat", []
    plan = plan_compile(confirmed_request(out), wide_data_dir)
    manifest = run_compile(
        plan, lm=rule_lm(demos_help=False), data_dir=wide_data_dir, progress=False, say=said.append
    )
    assert manifest.selection is not None and manifest.selection.confirmation is None
    assert manifest.lm_calls["confirmation"] == 0
    assert said[-1].endswith(f"estimated {manifest.estimate['minutes']:.0f} min")
    assert not (out / "eval" / "confirm-before.jsonl").exists()


def test_dev_and_train_share_no_context(data_dir: Path, tmp_path: Path) -> None:
    plan = plan_compile(small_request(tmp_path / "x"), data_dir)
    train_docs = {d for r in plan.train for d in r.documents}
    assert not train_docs & {d for r in plan.dev for d in r.documents}
    assert plan.calibration == plan.dev


def test_router_labels_say_where_the_full_loop_helps(compiled: tuple[Path, int]) -> None:
    out, _ = compiled
    single = {r.id: r for r in read_rows(out / "router" / "single.jsonl")}
    full = {r.id: r for r in read_rows(out / "router" / "full.jsonl")}
    assert single.keys() == full.keys()
    for rid, row in full.items():
        assert row.score == 1.0
        assert row.lm_calls >= single[rid].lm_calls


def test_rerun_of_a_finished_compile_makes_no_lm_call(
    compiled: tuple[Path, int], data_dir: Path
) -> None:
    out, _ = compiled
    lm = rule_lm()
    manifest = compile_small(data_dir, out, lm)
    assert lm.engine.calls == 0
    assert manifest.after.accuracy == 1.0


def test_the_manifest_times_every_stage_by_the_clock(data_dir: Path, tmp_path: Path) -> None:
    started, lm = time.monotonic(), rule_lm()
    time.sleep(0.5)  # loading models, before the first stage
    plan = plan_compile(small_request(tmp_path / "timed"), data_dir)
    clock = CompileClock(tmp_path / "timed", started)
    manifest = run_compile(plan, lm=lm, data_dir=data_dir, progress=False, say=print, clock=clock)
    elapsed = time.monotonic() - started
    assert manifest.wall_seconds == pytest.approx(elapsed, abs=0.2)
    assert manifest.stages[START]["seconds"] >= 0.5
    assert {"dev score before", "optimization", "router labels"} <= set(manifest.stages)
    assert sum(int(t["lm_calls"]) for t in manifest.stages.values()) == lm.engine.calls


def test_interrupted_compile_resumes_where_it_stopped(
    compiled: tuple[Path, int], data_dir: Path, tmp_path: Path
) -> None:
    baseline, total = compiled
    out = tmp_path / "mini"
    first = rule_lm(interrupt_at=total - 4)  # ctrl-C while labelling the router
    with pytest.raises(KeyboardInterrupt):
        compile_small(data_dir, out, first)
    assert not (out / "manifest.json").exists()
    assert (out / "program.json").exists() and read_rows(out / "eval" / "after.jsonl")
    second = rule_lm()
    manifest = compile_small(data_dir, out, second)
    assert 0 < second.engine.calls < 10
    clocked = sum(int(t["lm_calls"]) for t in manifest.stages.values())
    assert clocked == first.engine.calls + second.engine.calls  # both runs, by the clock
    runs = json.loads((out / CLOCK_FILE).read_text())["runs"]
    assert len(runs) == 2 and manifest.wall_seconds == pytest.approx(sum(runs), abs=0.1)
    expected = read_manifest(baseline)
    for stage in ("before", "after"):
        assert getattr(manifest, stage).accuracy == getattr(expected, stage).accuracy
    assert manifest.lm_calls == expected.lm_calls
    assert manifest.router["routed"] == expected.router["routed"]


def test_other_settings_in_the_same_out_dir_are_refused(
    compiled: tuple[Path, int], data_dir: Path
) -> None:
    out, _ = compiled
    with pytest.raises(ValueError, match=r"other settings \(teacher_lm differ\)"):
        compile_small(data_dir, out, teacher_lm="other/model")


def older_compile(baseline: Path, folder: Path, skip_encoder: bool) -> tuple[Path, dict]:
    """A copy of ``baseline`` in ``folder`` whose ``compile.json`` predates the opt-in
    encoder (``skip_encoder`` instead of ``encoder``), and that file's settings."""
    out = folder / baseline.name
    shutil.copytree(baseline, out)
    written = json.loads((out / "compile.json").read_text()) | {"out_dir": str(out)}
    del written["encoder"]
    return out, written | {"skip_encoder": skip_encoder}


def test_a_compile_started_with_since_retired_settings_resumes(
    compiled: tuple[Path, int], data_dir: Path, tmp_path: Path
) -> None:
    out, written = older_compile(compiled[0], tmp_path / "older", skip_encoder=True)
    written["settings"] |= {"trials": 0, "minibatch_size": 10}  # mipro's, before it left
    del written["settings"]["confirm"]  # before the confirmation: none
    (out / "compile.json").write_text(json.dumps(written))
    lm = rule_lm()
    assert compile_small(data_dir, out, lm).after.accuracy == 1.0
    assert lm.engine.calls == 0


def test_a_compile_that_fine_tuned_the_encoder_by_default_resumes_only_with_it(
    compiled: tuple[Path, int], data_dir: Path, tmp_path: Path
) -> None:
    out, written = older_compile(compiled[0], tmp_path / "encoded", skip_encoder=False)
    (out / "compile.json").write_text(json.dumps(written))
    with pytest.raises(ValueError, match=r"other settings \(encoder differ\)"):
        compile_small(data_dir, out)


def test_manifest_never_holds_secrets(
    data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env-secret-123456")
    out = tmp_path / "secret"
    api_base = "https://user:sk-pass-987654@llm.example:8443/v1?api_key=sk-query-424242"
    manifest = compile_small(data_dir, out, api_base=api_base)
    assert manifest.api_base == "https://llm.example:8443/v1"
    written = "".join(p.read_text() for p in out.rglob("*.json"))
    for secret in ("sk-env-secret-123456", "sk-pass-987654", "sk-query-424242"):
        assert secret not in written


def test_gepa_reflects_on_every_traced_predictor_each_iteration(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: dict[str, object] = {}

    class RecordingGEPA:
        def __init__(self, **kwargs: object) -> None:
            seen.update(kwargs)

        def compile(self, student, trainset, valset):
            return student

    monkeypatch.setattr("dspy.GEPA", RecordingGEPA)
    student = ProgramOfThought()
    settings = preset("gepa", "light", local=True)
    metric = JudgeMetric()
    lm = rule_lm()
    assert optimize(settings, student, [], [], metric=metric, lm=lm) is student
    assert seen["component_selector"] == "all"
    assert seen["max_metric_calls"] == 150 and seen["reflection_lm"] is lm
    assert seen["metric"] == metric.feedback


def test_local_backbones_record_the_model_file(tmp_path: Path) -> None:
    pinned = Backbone.parse("local").model_file()
    assert pinned is not None and pinned.sha256 == DEFAULT_LLM.file.sha256
    gguf = tmp_path / "tiny.gguf"
    gguf.write_bytes(b"GGUF")
    hashed = Backbone.parse(f"local:{gguf}").model_file()
    assert hashed is not None and hashed.name == "tiny.gguf"
    assert hashed.sha256 == hashlib.sha256(b"GGUF").hexdigest()
    assert Backbone.parse("openai/gpt-4o-mini").model_file() is None


def test_cli_dry_run_prints_the_plan_and_estimate(
    wide_data_dir: Path, tmp_path: Path, capsys
) -> None:
    code = main(
        [
            "compile",
            "--out",
            str(tmp_path / "dry"),
            "--lm",
            "openai/gpt-4o-mini",
            "--train",
            f"tatqa:{SPLIT}:6",
            "--dev",
            f"tatqa:{SPLIT}:8",
            "--data-dir",
            str(wide_data_dir),
            "--max-p-value",
            "0.05",
            "--dry-run",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "bootstrap-rs (light) on the program module" in out
    assert "beats the uncompiled one on dev (paired sign test p ≤ 0.05) or costs less" in out
    assert "told worse and, on the confirmation questions" in out
    assert "train 6" in out and "dev 8" in out
    assert f"confirmation 8 (tatqa:{SPLIT}:8)" in out  # the dev splits, other contexts
    assert "confirmation" in out.split("budget estimate")[1]
    assert "budget estimate" in out and "LM calls" in out
    assert not (tmp_path / "dry").exists()


def test_cli_open_corpus_draws_take_their_sizes(
    tmp_path: Path, isolated_home: Path, capsys
) -> None:
    data = write_financebench(write_data_dir(tmp_path / "data"))
    index = isolated_home / "indexes" / "financebench"
    index.mkdir(parents=True)
    (index / "index.json").write_text("{}")
    argv = ["compile", "--out", str(tmp_path / "dry"), "--dev", f"tatqa:{SPLIT}:6"]
    argv += ["--open-dev", "financebench:dev:1", "--open-pages", "financebench:dev:2"]
    assert main([*argv, "--data-dir", str(data), "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "open corpus: 1 questions (financebench:dev:1)" in out
    # the page check leaves out the confirmation's filing
    assert "first search alone on 1 questions (financebench:dev:2)" in out
    assert "on 1 questions of other filings (financebench:dev:1)" in out  # --open-dev's splits


def test_cli_without_confirmation_draws_none(data_dir: Path, tmp_path: Path, capsys) -> None:
    split = ["--train", f"tatqa:{SPLIT}:6", "--dev", f"tatqa:{SPLIT}:8"]
    out_dir = ["--out", str(tmp_path / "dry"), "--data-dir", str(data_dir)]
    code = main(["compile", *out_dir, *split, "--no-confirmation", "--dry-run"])
    out = capsys.readouterr().out
    assert code == 0
    assert "confirmation 0 (none)" in out and "on the confirmation questions" not in out


def test_cli_bad_split_is_a_one_line_error(data_dir: Path, tmp_path: Path, capsys) -> None:
    args = ["compile", "--out", str(tmp_path / "x"), "--train", "tatqa", "--dry-run"]
    assert main([*args, "--data-dir", str(data_dir)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("filingqa: error: bad split 'tatqa'") and "\n" not in err


def test_cli_p_value_outside_0_1_is_refused(tmp_path: Path, capsys) -> None:
    args = ["compile", "--out", str(tmp_path / "x"), "--dry-run", "--max-p-value"]
    for bad in ("0", "1.5"):
        with pytest.raises(SystemExit):
            main([*args, bad])
        assert "must be above 0 and at most 1" in capsys.readouterr().err


def test_the_estimate_is_timed_on_stage_ones_first_answer(data_dir: Path, tmp_path: Path) -> None:
    plan = plan_compile(small_request(tmp_path / "timed"), data_dir)
    lm = rule_lm()
    timed = measure_speed(plan, lm=lm, progress=False)
    rows_file = tmp_path / "timed" / "eval" / "before.jsonl"
    (first,) = read_rows(rows_file)
    assert first.id == plan.dev[0].id and lm.engine.calls == first.lm_calls
    assert timed.estimate.seconds_per_call == round(first.seconds / first.lm_calls, 2)
    assert timed.estimate.speed_basis == "measured on the first dev question"
    assert timed.estimate.calls == plan.estimate.calls
    said: list[str] = []
    run_compile(timed, lm=lm, data_dir=data_dir, progress=False, say=said.append)
    assert read_rows(rows_file)[0] == first  # stage 1 resumed after it
    assert len(read_rows(rows_file)) == len(plan.dev)
    assert read_manifest(tmp_path / "timed").estimate["seconds_per_call"] == (
        timed.estimate.seconds_per_call
    )


def test_cli_prints_the_estimate_at_the_speed_it_timed(
    data_dir: Path, tmp_path: Path, capsys, monkeypatch
) -> None:
    monkeypatch.setattr("filingqa.lm.backbone.get_lm", lambda *args, **kwargs: rule_lm())
    split = ["--train", f"tatqa:{SPLIT}:6", "--dev", f"tatqa:{SPLIT}:8"]
    args = ["compile", "--out", str(tmp_path / "cli"), "--optimizer", "bootstrap-rs", *split]
    code = main([*args, "--data-dir", str(data_dir), "--skip-retriever", "--quiet"])
    out = capsys.readouterr().out
    assert code == 0
    plan, timing, estimate_line = (
        out.index("compile cli:"),
        out.index("timing"),
        out.index("budget estimate:"),
    )
    assert plan < timing < estimate_line < out.index("1/7 dev score before compiling")
    assert "measured on the first dev question, 1 thread(s)" in out
    assert "assumed; a run times its backbone first" not in out


def test_sigterm_stops_a_compile_as_ctrl_c_does() -> None:
    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(KeyboardInterrupt), sigterm_interrupts():
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(1.0)  # the handler runs between bytecodes
    assert signal.getsignal(signal.SIGTERM) == before
