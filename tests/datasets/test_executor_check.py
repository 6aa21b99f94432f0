"""The executor check's cause assignment (the script lives in ``benchmarks/``)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "executor_check.py"


@pytest.fixture(scope="module")
def executor_check() -> ModuleType:
    spec = importlib.util.spec_from_file_location("executor_check", SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    ("gold", "got", "score", "official", "cause"),
    [
        ("127.4", 127.4, 1.0, True, None),
        ("16", 15.67, 1.0, False, "rounding"),
        ("-43", 43.0, 0.0, False, "gold annotation inconsistency: sign"),
        ("0.08", 8.3275, 1.0, False, "percent-vs-fraction"),
        ("92437", 92.437, 0.0, False, "scale"),
        ("12", 20.0, 0.0, False, "gold annotation inconsistency: the program"),
        ("yes", False, 0.0, False, "gold annotation inconsistency: yes/no"),
    ],
)
def test_assign_cause(
    executor_check: ModuleType,
    gold: str,
    got: float | bool,
    score: float,
    official: bool,
    cause: str | None,
) -> None:
    check = executor_check.Check("tatqa", "x", "q", "p", gold, got=got, score=score)
    check.official = official
    assigned = executor_check.assign_cause(check)
    assert assigned == cause if cause is None else assigned.startswith(cause)


def test_translation_failure_keeps_its_cause(executor_check: ModuleType) -> None:
    check = executor_check.Check("finqa", "x", "q", "modulo(1, 2)", "1")
    assert not executor_check.execute(
        check, lambda: executor_check.finqa_program_to_python(check.program, [])
    )
    assert executor_check.assign_cause(check).startswith("translation error: unknown FinQA op")
    assert executor_check.missed_by(check) == "both"
