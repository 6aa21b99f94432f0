"""FinancialQA's deterministic aids, each switched by a constructor option: the sign check,
the cell check and the formula note; on by default, and kept by a compiled artifact."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import dspy
import pytest

from filingqa.artifacts.compiled import read_program
from filingqa.program.financial_qa import FinancialQA
from filingqa.program.pot import ProgramOfThought
from filingqa.records import Passage

from ..kit.lm import FakeEngine, Rule, marker_lm
from ..kit.passages import CASH_FLOW, MDNA, PENSIONS
from ..kit.replies import AMBIGUITY, NO_AMBIGUITY, REVISE, WRITE, fenced

ARTIFACT = Path(__file__).resolve().parents[2] / "artifacts" / "qwen-local"
NEIGHBOURING_ROW: list[Rule] = [
    (AMBIGUITY, NO_AMBIGUITY),
    (REVISE, fenced("result = (57 + 44) / 2")),
    (WRITE, fenced("result = (166 + 178) / 2")),
]
SUBTRACTED_OUTFLOW: list[Rule] = [(WRITE, fenced("result = 812.4 - -412.6"))]


def run(rules: list[Rule], question: str, passages: list[Passage], **options: bool):
    lm = marker_lm(rules)
    with dspy.context(lm=lm, adapter=dspy.JSONAdapter()):
        prediction = FinancialQA(**options)(question=question, passages=passages)
    engine: FakeEngine = lm.engine
    assert not prediction.final.trace.faults, "every request had a scripted reply"
    return prediction.final, engine


@pytest.mark.parametrize(("cell_check", "revisions", "value"), [(True, 1, 50.5), (False, 0, 172)])
def test_the_cell_check_sends_a_neighbouring_row_back_only_when_on(
    cell_check: bool, revisions: int, value: float
) -> None:
    final, engine = run(
        NEIGHBOURING_ROW,
        "What is the 2019 average defined benefit schemes?",
        [PENSIONS],
        cell_check=cell_check,
    )
    assert engine.count(REVISE) == revisions
    assert final.value == value


@pytest.mark.parametrize(
    ("sign_check", "working", "value"),
    [(True, "result = 812.4 - abs(-412.6)", 399.8), (False, "result = 812.4 - -412.6", 1225)],
)
def test_the_sign_check_mends_a_subtracted_outflow_in_code_only_when_on(
    sign_check: bool, working: str, value: float
) -> None:
    final, engine = run(
        SUBTRACTED_OUTFLOW,
        "What was net cash after purchases of property and equipment in 2024?",
        [CASH_FLOW, MDNA],
        sign_check=sign_check,
    )
    assert engine.count(REVISE) == 0
    assert final.working == working
    assert final.value == pytest.approx(value)


@pytest.mark.parametrize("formula_notes", [True, False])
def test_the_writer_is_told_the_formula_only_with_formula_notes(formula_notes: bool) -> None:
    _, engine = run(
        [(AMBIGUITY, NO_AMBIGUITY), (WRITE, fenced("result = (812.4 + 701.9) / 2"))],
        "What is the 2024 average operating cash flow?",
        [CASH_FLOW],
        formula_notes=formula_notes,
    )
    (request,) = [p for p in engine.prompts if WRITE in p]
    note = "Formula: The 2024 average of a figure is the mean of its 2024 and 2023 values"
    assert (note in request) is formula_notes


def test_bare_pot_runs_the_sign_check_unless_switched_off(scripted_lm) -> None:
    slip = fenced("result = 812.4 - -412.6")
    on = scripted_lm([slip])
    with dspy.context(lm=on):
        checked = ProgramOfThought()(question="Free cash flow in 2024?", evidence=CASH_FLOW.text)
    off = scripted_lm([slip])
    with dspy.context(lm=off):
        unchecked = ProgramOfThought(check_signs=False)(
            question="Free cash flow in 2024?", evidence=CASH_FLOW.text
        )
    assert checked.value == pytest.approx(399.8) and on.engine.calls == 1
    assert unchecked.value == pytest.approx(1225.0) and off.engine.calls == 1


def test_the_switches_round_trip_through_a_compiled_artifact(tmp_path: Path) -> None:
    artifact = shutil.copytree(ARTIFACT, tmp_path / "artifact")
    manifest = json.loads((artifact / "manifest.json").read_text())
    switches = {"sign_check": False, "cell_check": False, "formula_notes": False}
    manifest["program_options"] |= switches
    (artifact / "manifest.json").write_text(json.dumps(manifest))
    qa = read_program(artifact)
    assert not qa.pot.check_signs and not qa.pot.check_cells
    assert not qa.reason.formula_notes
    default = read_program(ARTIFACT)
    assert qa.pot.samples == default.pot.samples == manifest["program_options"]["samples"]
    assert qa.dump_state() == default.dump_state(), "the compiled state still loads"
    assert default.pot.check_signs and default.pot.check_cells and default.reason.formula_notes
