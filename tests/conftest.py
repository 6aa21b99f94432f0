"""Shared fixtures: the evaluation data dir, an isolated filingqa home, a scripted LM, a
small compiled artifact."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import dspy
import pytest

from .kit.lm import fake_lm, in_order

REPO_ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def shared_data_dir() -> Path:
    """The shared evaluation data (``$FILINGQA_DATA_DIR``, else ``../shared/datasets``).

    Skips when absent, except under CI (``CI=true``), where missing data is a failure.
    """
    chosen = os.environ.get("FILINGQA_DATA_DIR") or REPO_ROOT.parent / "shared" / "datasets"
    path = Path(chosen)
    if not path.is_dir():
        if os.environ.get("CI") == "true":
            pytest.fail(f"evaluation data dir {path} is missing under CI")
        pytest.skip(f"evaluation data dir {path} not present")
    return path


@pytest.fixture
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A throwaway ``FILINGQA_HOME`` so a test never touches the user's model cache."""
    home = tmp_path / "filingqa-home"
    monkeypatch.setenv("FILINGQA_HOME", str(home))
    return home


@pytest.fixture
def scripted_lm() -> Callable[[list[str]], dspy.LM]:
    """Factory: ``scripted_lm([...raw completions...])`` → a ``dspy.LM`` replaying them in
    order (cache off); its engine is a :class:`~tests.kit.lm.FakeEngine`."""
    return lambda replies: fake_lm(in_order(replies))


@pytest.fixture(scope="session")
def mini_artifact(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """An artifact compiled (by the rule-following LM of ``compile_fakes``) on the mini
    TAT-QA split, compiled for the backbone ``rules/test``; and its data dir."""
    from .optimizers.compile_fakes import compile_small, write_data_dir

    data = write_data_dir(tmp_path_factory.mktemp("data"))
    out = tmp_path_factory.mktemp("artifacts") / "mini"
    compile_small(data, out)
    return out, data
