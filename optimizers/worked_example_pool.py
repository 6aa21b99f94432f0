"""The pool of worked examples a compile retrieves from: gold programs that reproduce their
gold answer.

Each source's gold programs (TAT-QA arithmetic derivations, FinQA DSL programs, the
first turns of ConvFinQA conversations that compute something: later turns lean on the
conversation) are translated to Python, run in the sandbox and judged against the gold
as the executor check does (:mod:`~filingqa.evaluation.robustness.executor_check`): a program enters
the pool only when the strict judge and the official metric both accept its value. Its
figures are then named after the table cells they were read from
(:mod:`~filingqa.optimizers.cell_names`) when the named program gives the same value.

Contexts held out from every draw (report slices, the benchmark) and those passed in (a
compile's dev questions) never enter. The default source is TAT-QA dev: FinQA and
ConvFinQA state a percentage as a fraction, TAT-QA and FinanceBench as points.

The pool is stored as ids and programs with the hashes of its source files
(:class:`~filingqa.artifacts.worked_examples.PoolFile`), so no dataset text is committed.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from tqdm import tqdm

from filingqa.artifacts.worked_examples import PooledProgram, PoolFile
from filingqa.datasets import load_dataset
from filingqa.datasets.gold_context import gold_passages
from filingqa.datasets.registry import split_hashes
from filingqa.evaluation.robustness.executor_check import (
    Check,
    check_convfinqa,
    check_finqa,
    check_tatqa,
)
from filingqa.evidence.render import render
from filingqa.metrics.judge import StrictJudge
from filingqa.optimizers.cell_names import named_program
from filingqa.optimizers.compile_data import held_out_contexts
from filingqa.records import QARecord
from filingqa.sandbox import run_python

DEFAULT_SOURCES = ("tatqa:dev",)

_CHECKS: dict[str, Callable[[QARecord, StrictJudge], Check]] = {
    "tatqa": check_tatqa,
    "finqa": check_finqa,
    "convfinqa": check_convfinqa,
}


def stored_pool(
    path: Path,
    sources: Sequence[str],
    *,
    exclude_documents: Iterable[str] = (),
    data_dir: Path | None = None,
    progress: bool = True,
) -> PoolFile:
    """The pool kept at ``path``, derived there first (:func:`derive_pool`) when absent."""
    if not path.exists():
        derive_pool(
            sources, exclude_documents=exclude_documents, data_dir=data_dir, progress=progress
        ).write(path)
    return PoolFile.read(path)


def derive_pool(
    sources: Sequence[str] = DEFAULT_SOURCES,
    *,
    exclude_documents: Iterable[str] = (),
    data_dir: Path | None = None,
    progress: bool = True,
) -> PoolFile:
    """The gold programs of ``sources`` (``name:split``) that reproduce their gold.

    Raises:
        ValueError: a source's dataset has no gold programs to pool.
        filingqa.datasets.base.DatasetError: a source cannot be read.
    """
    judge = StrictJudge(lm=None)
    excluded = frozenset(exclude_documents)
    programs: list[PooledProgram] = []
    for spec in sources:
        name = spec.partition(":")[0]
        if name not in _CHECKS:
            raise ValueError(f"{spec}: no gold programs to pool (pooled: {', '.join(_CHECKS)})")
        records = pool_candidates(spec, excluded, data_dir)
        for record in tqdm(records, desc=f"pool {spec}", unit="program", disable=not progress):
            check = _CHECKS[name](record, judge)
            if check.code is not None and check.score == 1.0 and check.official:
                program = readable_program(check.code, check.got, record)
                programs.append(PooledProgram(id=record.id, source=spec, program=program))
    return PoolFile(sources=split_hashes(sources, data_dir), programs=programs)


def pool_candidates(
    spec: str, exclude_documents: frozenset[str], data_dir: Path | None = None
) -> list[QARecord]:
    """The records of ``spec`` whose gold program computes a standalone answer, outside the
    held-out and excluded contexts."""
    banned = exclude_documents | held_out_contexts(spec, data_dir)
    return [
        r
        for r in load_dataset(spec, data_dir=data_dir)
        if r.gold_program and r.context and _computes(r) and not banned & set(r.documents)
    ]


def _computes(record: QARecord) -> bool:
    """TAT-QA arithmetic questions, FinQA records with an executed answer, and ConvFinQA
    first turns whose program does arithmetic."""
    meta = record.meta
    if record.dataset == "tatqa":
        return meta.get("tatqa_answer_type") == "arithmetic"
    if record.dataset == "convfinqa":
        program = (record.gold_program or "").partition("=")[2]
        return meta.get("turn") == 0 and any(op in program for op in "+-*/")
    return "exe_ans" in meta


def readable_program(code: str, value: object, record: QARecord) -> str:
    """``code`` with its figures named after their cells, when that program runs to the
    same ``value``; else ``code``."""
    named = named_program(code, render(gold_passages(record)))
    if named == code:
        return code
    outcome = run_python(named)
    return named if outcome.ok and _same(outcome.value, value) else code


def _same(a: object, b: object) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
    return a == b
