"""FinancialQA's predictors: each reachable once, saved and loaded under the names compiled
artifacts use, whichever module composes them now."""

from __future__ import annotations

import json
from pathlib import Path

import dspy
import pytest

from filingqa.program.financial_qa import STATE_NAMES, FinancialQA

ARTIFACT = Path(__file__).resolve().parents[2] / "artifacts" / "qwen-local"
PROGRAM_STATE = ARTIFACT / "program.json"
MANIFEST = ARTIFACT / "manifest.json"


def committed_state() -> dict:
    return json.loads(PROGRAM_STATE.read_text())


def test_named_predictors_lists_each_predictor_once() -> None:
    qa = FinancialQA()
    named = qa.named_predictors()
    names = [name for name, _ in named]
    assert len(names) == len(set(names)) == 18
    assert len({id(predictor) for _, predictor in named}) == 18
    assert dict(named)["reason.pot.write"] is qa.pot.write  # ``qa.pot`` is no second path


def test_saved_state_keeps_the_artifact_names() -> None:
    options = json.loads(MANIFEST.read_text())["program_options"]
    saved = FinancialQA(**options).dump_state()  # quoted explanations add a predictor
    assert sorted(saved) == sorted(name for name in committed_state() if name != "metadata")
    assert set(STATE_NAMES) <= set(FinancialQA().dump_state())


def test_the_committed_artifact_loads_its_writer_state_onto_the_writer() -> None:
    state = committed_state()
    qa = FinancialQA()
    qa.load_state(state)
    assert qa.pot.write.dump_state() == state["pot.write"]
    assert qa.pot.write is qa.reason.pot.write
    assert qa.gather.retriever.hyde.demos == []


def test_state_round_trips_into_a_fresh_program() -> None:
    compiled = FinancialQA()
    compiled.load_state(committed_state())
    compiled.reason.verifier.verify.demos = [dspy.Example(question="q", verdict="ACCEPT")]
    fresh = FinancialQA()
    fresh.load_state(compiled.dump_state())
    assert fresh.pot.write.demos == compiled.pot.write.demos
    assert fresh.reason.verifier.verify.demos == [{"question": "q", "verdict": "ACCEPT"}]


def test_a_state_without_a_predictor_names_it_as_the_artifact_does() -> None:
    state = committed_state()
    del state["pot.write"]
    with pytest.raises(KeyError, match=r"'pot\.write'"):
        FinancialQA().load_state(state)


def test_a_deep_copy_keeps_the_writer_demos_on_its_own_writer() -> None:
    qa = FinancialQA()
    qa.load_state(committed_state())
    copy = qa.deepcopy()
    assert copy.pot.write.demos == qa.pot.write.demos
    assert copy.pot is copy.reason.pot and copy.pot is not qa.pot
