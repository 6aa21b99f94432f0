"""Training, dev and calibration material for ``filingqa compile``.

A split is ``name:split[:n]``: ``n`` questions drawn by a seeded shuffle (spread over
contexts, not the first ``n`` of a few). Selection is hygienic: the contexts of the TAT-QA
benchmark (the first 100 arithmetic questions of ``tatqa:dev``, what ``make bench-tatqa``
and the figures in docs/benchmarks.md use) and of every report slice of the dataset
(:mod:`~filingqa.evaluation.slices`) never train or select a program, and dev questions
never share a context with training ones. The PoT target keeps numeric answers only.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Collection, Iterable, Sequence
from pathlib import Path

import dspy
from pydantic import BaseModel, ConfigDict

from filingqa.datasets import load_dataset
from filingqa.datasets.gold_context import gold_passages
from filingqa.evaluation.slices.committed import report_contexts
from filingqa.evaluation.slices.recipes import BENCHMARK_SPEC, benchmark_contexts
from filingqa.evidence.render import render
from filingqa.optimizers.presets import Target
from filingqa.records import QARecord

NUMERIC_TYPES = frozenset({"number", "count"})


class SplitSpec(BaseModel):
    """``name:split`` and how many questions to draw from it (None: all)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    dataset: str
    n: int | None = None

    @classmethod
    def parse(cls, text: str) -> SplitSpec:
        """``tatqa:dev:24`` → dataset ``tatqa:dev``, n 24.

        Raises:
            ValueError: not ``name:split[:n]`` with a positive ``n``.
        """
        parts = text.strip().split(":")
        if len(parts) not in (2, 3) or not all(parts):
            raise ValueError(f"bad split {text!r}: use name:split[:n], e.g. tatqa:dev:24")
        n = None
        if len(parts) == 3:
            if not parts[2].isdigit() or int(parts[2]) < 1:
                raise ValueError(f"bad split {text!r}: n must be a positive integer")
            n = int(parts[2])
        return cls(dataset=f"{parts[0]}:{parts[1]}", n=n)

    def __str__(self) -> str:
        return self.dataset if self.n is None else f"{self.dataset}:{self.n}"


def held_out_contexts(dataset: str, data_dir: Path | None = None) -> frozenset[str]:
    """The contexts no draw from ``dataset`` (``name:split``) may use: those of every report
    slice of the dataset's name (any split), and for ``tatqa:dev`` the benchmark's."""
    held_out = report_contexts(dataset.partition(":")[0])
    if dataset == BENCHMARK_SPEC:
        return held_out | benchmark_contexts(data_dir)
    return held_out


def draw(
    specs: Sequence[SplitSpec],
    *,
    target: Target,
    exclude_documents: Iterable[str] = (),
    within_documents: Collection[str] | None = None,
    seed: int = 0,
    data_dir: Path | None = None,
) -> list[QARecord]:
    """The questions of ``specs`` (each its own seeded draw), without excluded contexts,
    held-out contexts (report slices, the benchmark), questions about a context outside
    ``within_documents`` (when given) or, for the PoT target, non-numeric answers.

    Raises:
        ValueError: a spec leaves no question to draw.
    """
    excluded = set(exclude_documents)
    chosen: list[QARecord] = []
    for spec in specs:
        banned = excluded | held_out_contexts(spec.dataset, data_dir)
        pool = [
            r
            for r in load_dataset(spec.dataset, data_dir=data_dir)
            if r.context is not None
            and not banned & set(r.documents)
            and (within_documents is None or set(r.documents) <= set(within_documents))
            and (target == "program" or r.answer_type in NUMERIC_TYPES)
        ]
        if not pool:
            outside = ", and those about filings the index lacks" if within_documents else ""
            raise ValueError(
                f"{spec}: no usable question left (the benchmark's, the report slices' and "
                f"the contexts of the questions drawn before it excluded{outside})"
            )
        random.Random(f"{seed}:{spec.dataset}").shuffle(pool)
        chosen += pool[: spec.n] if spec.n else pool
    return chosen


def ids_sha256(records: Sequence[QARecord]) -> str:
    """A hash of the drawn question ids, in order (identifies a draw)."""
    return hashlib.sha256("\n".join(r.id for r in records).encode()).hexdigest()


def to_example(record: QARecord, target: Target) -> dspy.Example:
    """A DSPy example: inputs ``question`` and ``evidence`` (PoT, rendered gold context) or
    ``passages`` (the program); the gold answer with the judge's hints."""
    passages = gold_passages(record)
    evidence = {"evidence": render(passages)} if target == "pot" else {"passages": passages}
    return dspy.Example(
        id=record.id,
        question=record.question,
        answer=record.answer,
        answer_type=record.answer_type,
        scale=record.scale or None,
        unit=record.unit,
        **evidence,
    ).with_inputs("question", *evidence)
