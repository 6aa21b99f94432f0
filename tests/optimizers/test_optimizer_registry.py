"""The optimizer registry, and each DSPy prompt optimizer run for real through ``run_compile``
with the rule LM of compile_fakes (``bootstrap-rs``: test_compile.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import get_args

import pytest

from filingqa.optimizers.budget import estimate
from filingqa.optimizers.optimization_stage import OPTIMIZED_FILE, OPTIMIZER_FILE
from filingqa.optimizers.optimizer_registry import (
    OPTIMIZERS,
    PROMPT_OPTIMIZERS,
    STRUCTURE,
    prompt_optimizer,
)
from filingqa.optimizers.presets import BUDGETS, OptimizerName, preset

from .compile_fakes import compile_small, rule_lm, small_request, write_data_dir


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory) -> Path:
    return write_data_dir(tmp_path_factory.mktemp("data"))


def test_every_optimizer_name_is_registered_with_a_preset_and_an_estimate() -> None:
    assert set(OPTIMIZERS) == set(get_args(OptimizerName))
    assert OPTIMIZERS[0] == STRUCTURE and STRUCTURE not in PROMPT_OPTIMIZERS
    for name in OPTIMIZERS:
        for budget in BUDGETS:
            for local in (True, False):
                settings = preset(name, budget, local=local)
                cost = estimate(settings, train=20, dev=20, calibration=10, local=local)
                assert cost.total_calls > 0 and settings.optimizer == name
    with pytest.raises(ValueError, match="not a DSPy prompt optimizer"):
        prompt_optimizer(STRUCTURE)


def test_candidate_scores_read_percentages_only_where_the_optimizer_writes_them() -> None:
    class Compiled:
        candidate_programs = [{"score": 75.0}, {"score": 50.0}]  # noqa: RUF012

    assert PROMPT_OPTIMIZERS["bootstrap-rs"].candidate_scores(Compiled()) == [0.75, 0.5]
    Compiled.candidate_programs = [{"score": 0.75}]
    assert PROMPT_OPTIMIZERS["simba"].candidate_scores(Compiled()) == [0.75]
    assert PROMPT_OPTIMIZERS["gepa"].candidate_scores(object()) == []


def test_simba_compiles_the_pot_module_with_its_smallest_budget(
    data_dir: Path, tmp_path: Path
) -> None:
    """DSPy's SIMBA, one step with one sampled model: on its batch the lookups score and
    the percentage changes do not, so it appends a lookup's trace as a demo, after which
    the rule LM divides; the compiled program wins on dev and is kept."""
    out = tmp_path / "simba"
    settings = small_request(out).settings.model_copy(
        update={"optimizer": "simba", "candidates": 1, "simba_steps": 1, "simba_batch": 6}
    )
    lm = rule_lm()
    manifest = compile_small(data_dir, out, lm, settings=settings)
    assert manifest.optimizer["optimizer"] == "simba"
    log = json.loads((out / OPTIMIZER_FILE).read_text())
    assert log["candidates"] == [1.0, 0.5]  # SIMBA's train scores are shares already
    assert manifest.candidates == log["candidates"]
    assert 0 < log["lm_calls"] == manifest.lm_calls["optimizer"] < lm.engine.calls
    optimized = json.loads((out / OPTIMIZED_FILE).read_text())
    assert len(optimized["pot.write"]["demos"]) == 1
    assert (manifest.before.accuracy, manifest.after.accuracy) == (0.5, 1.0)
    assert manifest.selection is not None and manifest.selection.kept == "compiled"
    assert (manifest.selection.wins, manifest.selection.losses) == (4, 0)
    kept = json.loads((out / "program.json").read_text())
    assert kept["pot.write"]["demos"] == optimized["pot.write"]["demos"]
    again = rule_lm()
    assert compile_small(data_dir, out, again, settings=settings).candidates == [1.0, 0.5]
    assert again.engine.calls == 0  # the optimizer's program and log are read back
