"""Optimizer settings per backbone kind and budget.

The default for a local backbone is the structure search
(:mod:`~filingqa.optimizers.structure_search`): it chooses the program's options and
worked examples on dev, which is what a small model gains from; a hosted model's default
stays ``bootstrap-rs``, prompt optimization of the whole program.

For the prompt optimizers, a small local model gets few bootstrapped demos (each demo
repeats a whole evidence block in the prompt, so every demo slows each call), no raw
labelled demos, few candidates, small train/dev draws and one thread; its dev draw mixes
TAT-QA with FinQA's 10-K questions, so the demos chosen are not ones that only suit TAT-QA's
question style. A hosted model gets more demos, candidates, questions and threads, and
compiles the whole program. What a compile costs: :mod:`~filingqa.optimizers.budget`.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

Target = Literal["pot", "program"]
OptimizerName = Literal["structure", "bootstrap-rs", "gepa", "simba"]
"""The structure search and the DSPy prompt optimizers of
:mod:`~filingqa.optimizers.optimizer_registry`."""
Budget = Literal["light", "medium", "heavy"]
BUDGETS: tuple[Budget, ...] = ("light", "medium", "heavy")

_SCALE: dict[Budget, int] = {"light": 1, "medium": 2, "heavy": 4}


class OptimizerSettings(BaseModel):
    """Everything that sizes one compile (the optimizer reads the fields it has)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    optimizer: OptimizerName
    budget: Budget
    target: Target
    train: list[str]
    dev: list[str]
    max_demos: int
    max_labeled_demos: int = 0
    candidates: int
    max_metric_calls: int = 0
    simba_steps: int = 0
    simba_batch: int = 0
    threads: int = 1
    first_rung: int = 0
    eta: int = 3
    confirm: list[str] = []
    """The confirmation draw (``name:split[:n]``), sharing no context with train or dev: a
    compiled program that beats the uncompiled one on dev (or costs less there, not told
    worse) is kept only if it holds there
    (none: dev alone decides; :mod:`~filingqa.optimizers.selection`)."""
    calibration_questions: int = 0
    """The router's calibration questions when none are given: the dev draw's first this
    many (0: all of it)."""
    pool: list[str] = []
    """The structure search's worked-example sources (``name:split``; none: no examples)."""
    open_dev: list[str] = []
    """The open-corpus stage's questions (``name:split[:n]``), answered searching
    ``open_index`` (none: no such stage; :mod:`~filingqa.optimizers.open_corpus_stage`)."""
    open_pages: list[str] = []
    """The questions (``name:split[:n]``) on which the stage checks each structure's first
    search alone for gold pages (none: on the answered questions' own searches); never the
    open confirmation's filings."""
    open_confirm: list[str] = []
    """The open-corpus stage's confirmation draw (``name:split[:n]``), no filing shared with
    ``open_dev``: a retrieval structure chosen over the start is kept only if it holds there
    (none: the stage's questions alone decide)."""
    open_index: str = "financebench"
    """The index they search: a name under ``FILINGQA_HOME/indexes``, or a directory."""
    seed: int = 0
    max_p_value: float = Field(default=0.1, gt=0.0, le=1.0)
    """The compiled program replaces the uncompiled one only when it wins more dev questions
    than it loses with a one-sided sign-test p-value at most this (or costs less there and
    is not told worse at it), and on the confirmation draw the costlier of the two must be
    better at this p-value
    (:mod:`~filingqa.optimizers.selection`)."""

    @model_validator(mode="after")
    def _structure_searches_the_program(self) -> OptimizerSettings:
        if self.optimizer == "structure" and self.target != "program":
            raise ValueError(
                "the structure search chooses the whole program's options: --target program"
            )
        return self


def default_optimizer(local: bool) -> OptimizerName:
    """The optimizer a compile uses unless told otherwise (see the module docstring)."""
    return "structure" if local else "bootstrap-rs"


def preset(optimizer: OptimizerName, budget: Budget, *, local: bool) -> OptimizerSettings:
    """The default settings for ``optimizer`` at ``budget`` on a local or hosted model."""
    scale = _SCALE[budget]
    if optimizer == "structure":
        return OptimizerSettings(
            optimizer=optimizer,
            budget=budget,
            target="program",
            train=[],
            dev=[f"tatqa:dev:{32 * scale}", f"finqa:dev_sample200:{8 * scale}"],
            confirm=[f"tatqa:dev:{32 * scale}", f"finqa:dev_sample200:{8 * scale}"],
            max_demos=0,
            candidates=0,
            first_rung=5 * scale,
            eta=4,
            calibration_questions=12 * scale,
            pool=["tatqa:dev"],
            open_dev=[f"financebench:dev:{12 * scale}"],
            open_pages=["financebench:dev"],
            open_confirm=[f"financebench:dev:{12 * scale}"],
            threads=1 if local else 8,
        )
    if local:
        train = [f"tatqa:dev:{16 * scale}", f"finqa:train_sample100:{8 * scale}"]
        dev = [f"tatqa:dev:{20 * scale}", f"finqa:dev_sample200:{20 * scale}"]
        sizes = {"target": "pot", "max_demos": 2, "threads": 1}
    else:
        train = [f"tatqa:dev:{40 * scale}", f"finqa:train_sample100:{min(20 * scale, 100)}"]
        dev = [f"tatqa:dev:{50 * scale}"]
        sizes = {"target": "program", "max_demos": 4, "threads": 8}
    per_optimizer = {
        "bootstrap-rs": {"candidates": 2 * scale if local else 8 * scale},
        "gepa": {"candidates": 0, "max_metric_calls": (150 if local else 400) * scale},
        "simba": {
            "candidates": 3 if local else 6,
            "simba_steps": 3 * scale,
            "simba_batch": 8 if local else 16,
        },
    }[optimizer]
    common = {"optimizer": optimizer, "budget": budget, "train": train, "dev": dev}
    common["confirm"] = dev  # as many questions again, from other contexts
    return OptimizerSettings.model_validate(common | sizes | per_optimizer)
