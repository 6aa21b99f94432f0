"""The pool of worked examples a compile retrieves from: gold programs that reproduce their
gold answer.

Each source's gold programs (TAT-QA arithmetic derivations, FinQA DSL programs, the
first turns of ConvFinQA conversations that compute something: later turns lean on the
conversation) are translated to Python, run in the sandbox and judged against the gold
as the executor check does (:mod:`~filingqa.evaluation.executor_check`): a program enters
the pool only when the strict judge and the official metric both accept its value. Its
figures are then named after the table cells they were read from
(:mod:`~filingqa.optimizers.cell_names`) when the named program gives the same value.

Contexts held out from every draw (report slices, the benchmark) and those passed in (a
compile's dev questions) never enter. The default source is TAT-QA dev: FinQA and
ConvFinQA state a percentage as a fraction, TAT-QA and FinanceBench as points.

An artifact stores the pool as ids and programs with the hashes of its source files
(:class:`PoolFile`); the questions are read back from the data dir
(:func:`worked_examples`), so no dataset text is committed.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict
from tqdm import tqdm

from filingqa.datasets import QARecord, load_dataset
from filingqa.datasets.base import DatasetError
from filingqa.evaluation.executor_check import Check, check_convfinqa, check_finqa, check_tatqa
from filingqa.evaluation.gold_context import gold_passages
from filingqa.metrics.judge import StrictJudge
from filingqa.optimizers.cell_names import named_program
from filingqa.optimizers.compile_data import held_out_contexts
from filingqa.optimizers.data_files import split_hashes
from filingqa.program.worked_examples import WorkedExample, WorkedExamples
from filingqa.retrieval.embedder import Embedder
from filingqa.retrieval.evidence import render
from filingqa.sandbox import run_python

POOL_FILE = "worked_examples.json"
DEFAULT_SOURCES = ("tatqa:dev",)

_CHECKS: dict[str, Callable[[QARecord, StrictJudge], Check]] = {
    "tatqa": check_tatqa,
    "finqa": check_finqa,
    "convfinqa": check_convfinqa,
}


class PooledProgram(BaseModel):
    """One pooled example as stored: the question's id, its source split, the program."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    source: str
    program: str


class PoolFile(BaseModel):
    """A stored pool: the sha256 of every source file, and the pooled programs."""

    model_config = ConfigDict(extra="forbid")

    sources: dict[str, dict[str, str]]
    programs: list[PooledProgram]

    def write(self, path: Path) -> None:
        path.write_text(self.model_dump_json(indent=1) + "\n", encoding="utf-8")

    @classmethod
    def read(cls, path: Path) -> PoolFile:
        return cls.model_validate_json(path.read_text(encoding="utf-8"))


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


def worked_examples(
    pool: PoolFile, data_dir: Path | None = None, embedder: Embedder | None = None
) -> WorkedExamples:
    """The stored pool with its questions read back from the data dir.

    Raises:
        filingqa.datasets.base.DatasetError: a source file is missing or differs from the
            one the pool was derived from (rederive it), or a pooled id is gone.
        filingqa.core.config.ConfigError: no data dir is configured.
    """
    found = split_hashes(pool.sources, data_dir)
    changed = sorted(spec for spec, files in pool.sources.items() if found.get(spec) != files)
    if changed:
        raise DatasetError(
            f"the worked examples were derived from other files of {', '.join(changed)} "
            "than the data dir holds; recompile to derive them again"
        )
    questions = {
        r.id: r.question for spec in pool.sources for r in load_dataset(spec, data_dir=data_dir)
    }
    missing = [p.id for p in pool.programs if p.id not in questions]
    if missing:
        raise DatasetError(
            f"{len(missing)} pooled questions are not in the data dir: {missing[:3]}"
        )
    examples = [
        WorkedExample(id=p.id, question=questions[p.id], program=p.program) for p in pool.programs
    ]
    return WorkedExamples(examples, embedder=embedder)
