"""The worked examples an artifact carries: pooled ids and programs, without dataset text.

A compile derives the pool (:mod:`~filingqa.optimizers.worked_example_pool`) and stores
it as :class:`PoolFile`: each question's id, its source split and its program, with the
sha256 of every source file. :func:`read_pool` reads the questions back from the data dir
so that no dataset text is committed with an artifact.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict

from filingqa.datasets import load_dataset
from filingqa.datasets.base import DatasetError
from filingqa.datasets.registry import split_hashes
from filingqa.program.worked_examples import WorkedExample, WorkedExamples
from filingqa.retrieval.index.embedder import Embedder

POOL_FILE = "worked_examples.json"


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


def read_pool(
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
