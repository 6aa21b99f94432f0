"""Committed evaluation slices: a *tuning* and a *report* list of question ids per dataset
split, shipped as package data (``slices/<name>.json``).

Work is tuned on tuning slices and reported on report slices only. The two never share a
context (a TAT-QA table with its paragraphs, a FinQA filing page, a FinanceBench company's
filings), so no context a report question is answered from was ever looked at while tuning;
compile draws never use a report slice's contexts either. Each file says how it was made
(:mod:`~filingqa.evaluation.slices.making`, ``benchmarks/make_slices.py``).
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from filingqa.records import QARecord

SliceRole = Literal["tuning", "report"]


def slice_dir() -> Path:
    """The folder holding the committed slice files."""
    return Path(str(resources.files("filingqa.evaluation.slices")))


def slice_name(dataset: str, role: SliceRole) -> str:
    """The name (and file stem) of a slice: ``tatqa:dev`` report → ``tatqa-dev-report``."""
    return f"{dataset.replace(':', '-')}-{role}"


class EvalSlice(BaseModel):
    """A slice: the ids of its questions (dataset order), the contexts (documents) they are
    answered from, its question count per stratum, and how it was made (seed, quotas)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    dataset: str
    slice: SliceRole
    made_by: str
    seed: int
    quotas: dict[str, int]
    counts: dict[str, int]
    contexts: list[str]
    ids: list[str]

    @property
    def name(self) -> str:
        return slice_name(self.dataset, self.slice)


def available_slices() -> dict[str, EvalSlice]:
    """Every committed slice by name, sorted by name."""
    files = sorted(slice_dir().glob("*.json"))
    slices = [EvalSlice.model_validate_json(path.read_text(encoding="utf-8")) for path in files]
    return {s.name: s for s in slices}


def load_slice(name: str, *, dataset: str) -> EvalSlice:
    """The slice called ``name``, which must be one of ``dataset``'s.

    Raises:
        ValueError: no such slice, or a slice of another dataset (the message lists the
            slices there are).
    """
    slices = available_slices()
    found = slices.get(name)
    if found is not None and found.dataset == dataset:
        return found
    if found is None:
        problem = f"unknown slice {name!r}"
    else:
        problem = f"slice {name} is of {found.dataset}, not {dataset}"
    own = [n for n, s in slices.items() if s.dataset == dataset]
    if own:
        listed = f"slices of {dataset}: {', '.join(own)}"
    else:
        listed = f"no slice of {dataset}; slices: {', '.join(slices) or 'none'}"
    raise ValueError(f"{problem}; {listed}")


def select_slice(records: list[QARecord], eval_slice: EvalSlice) -> list[QARecord]:
    """The records of ``eval_slice``, in dataset order.

    Raises:
        ValueError: some of the slice's ids are not among ``records`` (another data file).
    """
    wanted = set(eval_slice.ids)
    chosen = [r for r in records if r.id in wanted]
    missing = len(wanted) - len({r.id for r in chosen})
    if missing:
        raise ValueError(
            f"{missing} of the {len(wanted)} questions of slice {eval_slice.name} are not in "
            f"{eval_slice.dataset} as loaded: is the data dir the shared one?"
        )
    return chosen


def report_contexts(dataset_name: str) -> frozenset[str]:
    """The contexts (documents) of every report slice of ``dataset_name``, all splits."""
    return frozenset(
        context
        for s in available_slices().values()
        if s.slice == "report" and s.dataset.partition(":")[0] == dataset_name
        for context in s.contexts
    )
