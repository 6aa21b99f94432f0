"""Synthetic slice files in a throwaway slice dir, in place of the committed ones."""

from __future__ import annotations

from pathlib import Path

import pytest

from filingqa.evaluation.slices.committed import EvalSlice, SliceRole
from filingqa.evaluation.slices.making import write_slice


def synthetic_slice(
    dataset: str, role: SliceRole, ids: list[str], contexts: list[str]
) -> EvalSlice:
    """A slice of ``dataset`` holding ``ids``, answered from ``contexts``."""
    return EvalSlice(
        dataset=dataset,
        slice=role,
        made_by="by hand, for a test",
        seed=0,
        quotas={},
        counts={"arithmetic": len(ids)},
        contexts=contexts,
        ids=ids,
    )


def use_slices(monkeypatch: pytest.MonkeyPatch, directory: Path, *slices: EvalSlice) -> None:
    """Make ``slices``, written to ``directory``, the only slices there are."""
    directory.mkdir(parents=True, exist_ok=True)
    for eval_slice in slices:
        write_slice(eval_slice, directory)
    monkeypatch.setattr("filingqa.evaluation.slices.committed.slice_dir", lambda: directory)
