"""The fuzz run of ``benchmarks/fuzz_numbers.py``, with fewer examples (the script runs
10,000 per property: ``python benchmarks/fuzz_numbers.py``)."""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "fuzz_numbers.py"
EXAMPLES = int(os.environ.get("FILINGQA_FUZZ_EXAMPLES", "300"))


@pytest.fixture(scope="module")
def fuzz_numbers() -> ModuleType:
    spec = importlib.util.spec_from_file_location("fuzz_numbers", SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_no_input_makes_the_parser_or_the_numeric_stage_raise(fuzz_numbers, tmp_path) -> None:
    out = tmp_path / "fuzz.json"
    assert fuzz_numbers.main(["--examples", str(EXAMPLES), "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    for name in ("parser", "judge"):
        assert report[name]["failure"] is None
        assert report[name]["inputs"] >= EXAMPLES


@pytest.mark.parametrize(
    "text", ["$(1,234.5) million", "(1.2)bn", "12,5 %", "—", "e-400", "9" * 400 + ".5e10"]
)
def test_edge_shapes_hold_the_properties(fuzz_numbers, text: str) -> None:
    fuzz_numbers.parser_property(text)
    fuzz_numbers.judge_property(text, text, None, None)
