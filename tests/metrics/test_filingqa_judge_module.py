"""The judge as an ``evaluate`` metric module, loaded offline by path."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

MODULE_PATH = Path(__file__).resolve().parents[2] / "metrics" / "filingqa_judge.py"

_SCRIPT = """
import json, sys
import evaluate
judge = evaluate.load(sys.argv[1])
print(json.dumps(judge.compute(
    predictions=["302.6M", "No", "24 billion", "3,030"],
    references=["$303.00", "Yes", "24", "303"],
    questions=["q1", "q2", "q3", "q4"],
    scales=[None, None, "billion", None],
)))
"""


def test_evaluate_load_by_path_works_offline(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
        "HF_EVALUATE_OFFLINE": "1",
        "HF_HOME": str(tmp_path / "hf-home"),
    }
    # A fresh interpreter so the offline switches are read at import; run outside the repo
    # root so its ``datasets/`` folder cannot shadow the ``datasets`` library.
    done = subprocess.run(
        [sys.executable, "-c", _SCRIPT, str(MODULE_PATH)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result == {"score": 0.5, "scores": [1.0, 0.0, 1.0, 0.0]}
