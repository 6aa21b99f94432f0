"""Dealing a dataset split's questions into a tuning and a report slice.

Questions are grouped (by context, or by company) and a group is never split between slices.
The groups, in dataset order, are shuffled with ``random.Random(seed)``, except those that
must be tuned on (``tuning_first``), which are set aside. The report slice is the shortest
prefix of that order holding at least its quota of questions in every stratum named (e.g.
TAT-QA answer type; ``questions``: in all); the tuning slice is the set-aside groups, then
the next groups of the order until its own quotas are met (without quotas: every group
left). Groups after those are in neither slice. ``benchmarks/make_slices.py`` holds the
recipes of the committed slices.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from filingqa.evaluation.slices.committed import EvalSlice, SliceRole
from filingqa.records import QARecord

ALL_QUESTIONS = "questions"
"""A quota key counting the questions of every stratum."""


@dataclass(frozen=True)
class SliceRecipe:
    """How one dataset split is dealt: what a group and a stratum are, the seed, the quotas
    (questions per stratum), the groups the tuning slice must hold (and why), and what
    holds the recipe (``made_with``, the start of each slice's ``made_by``)."""

    dataset: str
    made_with: str
    group_by: str
    group_of: Callable[[QARecord], str]
    stratum_by: str
    stratum_of: Callable[[QARecord], str]
    seed: int
    report_quotas: Mapping[str, int]
    tuning_quotas: Mapping[str, int] | None = None
    tuning_first: frozenset[str] = frozenset()
    tuning_first_why: str = ""


@dataclass(frozen=True)
class Deal:
    """The groups of each slice, in dealing order, and how many groups are in neither."""

    report: list[str]
    tuning: list[str]
    left: int


def group_strata(records: Sequence[QARecord], recipe: SliceRecipe) -> dict[str, Counter[str]]:
    """Each group's question count per stratum, groups in dataset order."""
    strata: dict[str, Counter[str]] = {}
    for record in records:
        strata.setdefault(recipe.group_of(record), Counter())[recipe.stratum_of(record)] += 1
    return strata


def deal_groups(strata: Mapping[str, Counter[str]], recipe: SliceRecipe) -> Deal:
    """The report and tuning groups of ``recipe`` (see the module docstring).

    Raises:
        ValueError: the groups cannot meet a slice's quotas.
    """
    order = [g for g in strata if g not in recipe.tuning_first]
    random.Random(recipe.seed).shuffle(order)
    report = _prefix_meeting(order, strata, recipe.report_quotas, Counter())
    rest = order[len(report) :]
    first = [g for g in strata if g in recipe.tuning_first]
    if recipe.tuning_quotas is None:
        tuning = first + rest
    else:
        held = sum((strata[g] for g in first), Counter())
        tuning = first + _prefix_meeting(rest, strata, recipe.tuning_quotas, held)
    return Deal(report=report, tuning=tuning, left=len(strata) - len(report) - len(tuning))


def _prefix_meeting(
    order: Sequence[str],
    strata: Mapping[str, Counter[str]],
    quotas: Mapping[str, int],
    held: Counter[str],
) -> list[str]:
    """The shortest prefix of ``order`` that, added to ``held``, meets every quota."""
    held = Counter(held)
    for taken, group in enumerate(order):
        if _meets(held, quotas):
            return list(order[:taken])
        held.update(strata[group])
    if not _meets(held, quotas):
        raise ValueError(f"the groups cannot meet the quotas {dict(quotas)}: {dict(held)} in all")
    return list(order)


def _meets(held: Counter[str], quotas: Mapping[str, int]) -> bool:
    def count(key: str) -> int:
        return held.total() if key == ALL_QUESTIONS else held[key]

    return all(count(key) >= n for key, n in quotas.items())


def make_slices(records: Sequence[QARecord], recipe: SliceRecipe) -> tuple[EvalSlice, EvalSlice]:
    """The tuning and report slices of ``records`` (one dataset split, dataset order)."""
    deal = deal_groups(group_strata(records, recipe), recipe)
    made_by = describe(recipe, deal)
    tuning_quotas = dict(recipe.tuning_quotas or {})
    return (
        _slice(records, recipe, "tuning", deal.tuning, tuning_quotas, made_by),
        _slice(records, recipe, "report", deal.report, dict(recipe.report_quotas), made_by),
    )


def _slice(
    records: Sequence[QARecord],
    recipe: SliceRecipe,
    role: SliceRole,
    groups: list[str],
    quotas: dict[str, int],
    made_by: str,
) -> EvalSlice:
    members = set(groups)
    chosen = [r for r in records if recipe.group_of(r) in members]
    return EvalSlice(
        dataset=recipe.dataset,
        slice=role,
        made_by=made_by,
        seed=recipe.seed,
        quotas=quotas,
        counts=dict(sorted(Counter(recipe.stratum_of(r) for r in chosen).items())),
        contexts=list(dict.fromkeys(d for r in chosen for d in r.documents)),
        ids=[r.id for r in chosen],
    )


def describe(recipe: SliceRecipe, deal: Deal) -> str:
    """How the slices were made, in words: the ``made_by`` of both slice files."""
    first = len(recipe.tuning_first)
    aside = (
        f", except the {first} {recipe.tuning_first_why}, set aside for tuning," if first else ""
    )
    then = f"the {first} set-aside groups, then " if first else ""
    tuning = (
        f"{then}the next groups of that order until it holds at least the tuning quotas"
        if recipe.tuning_quotas is not None
        else f"{then}every group after the report's"
    )
    return (
        f"{recipe.made_with}: questions grouped by {recipe.group_by} (a group is never "
        f"split); the groups in dataset order{aside} shuffled with random.Random({recipe.seed}); "
        f"report: the shortest prefix of that order meeting the report quotas (questions per "
        f"{recipe.stratum_by}, or in all) ({len(deal.report)} groups); tuning: {tuning} "
        f"({len(deal.tuning)} groups); {deal.left} groups in neither slice"
    )


def write_slice(eval_slice: EvalSlice, directory: Path) -> Path:
    """Write ``eval_slice`` to ``directory/<name>.json``; returns the path."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{eval_slice.name}.json"
    path.write_text(eval_slice.model_dump_json(indent=2) + "\n", encoding="utf-8")
    return path
