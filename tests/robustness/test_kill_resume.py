"""``benchmarks/kill_resume.py`` with the scripted backbone: eval SIGKILLed twice resumes
to the uninterrupted run's results (the script's full run uses 30 questions)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "kill_resume.py"


@pytest.fixture(scope="module")
def kill_resume() -> ModuleType:
    spec = importlib.util.spec_from_file_location("kill_resume", SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_eval_killed_twice_finishes_with_the_uninterrupted_results(kill_resume, tmp_path) -> None:
    out = tmp_path / "kill_resume.json"
    code = kill_resume.main(["--lm", "scripted", "--questions", "6", "--json", str(out)])
    report = json.loads(out.read_text())
    assert code == 0, report["differences"]
    assert report["identical"]
    assert [kill["killed"] for kill in report["kills"]] == [True, True]


def test_compare_finds_duplicates_and_changed_answers(kill_resume) -> None:
    row = {"id": "a", "answer": "1", "outcome": "answered", "score": 1.0}
    summary = {"summaries": {"pot": {"questions": 1, "accuracy": 1.0}}}
    reference = {"rows": {"pot": [row]}, "results": summary}
    duplicated = {"rows": {"pot": [row, row]}, "results": summary}
    changed = {"rows": {"pot": [{**row, "answer": "2"}]}, "results": summary}
    assert kill_resume.compare(reference, reference) == []
    assert kill_resume.compare(reference, duplicated) == ["pot: duplicate rows"]
    assert kill_resume.compare(reference, changed) == ["pot a: answer differs"]
