"""The optimizers ``filingqa compile`` runs, by name.

``structure`` is the structure search (:mod:`~filingqa.optimizers.structure_search`), the
compile's own optimization stage. Every other name is a DSPy prompt optimizer in
:data:`PROMPT_OPTIMIZERS`: how to build and run it from the settings, the LM calls its
stages cost (for :mod:`~filingqa.optimizers.budget`), and how its candidates' scores read.
Adding one is an entry here and its sizes in :mod:`~filingqa.optimizers.presets`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal, Protocol

import dspy

from filingqa.metrics.dspy_metric import JudgeMetric
from filingqa.optimizers.presets import OptimizerName, OptimizerSettings

STRUCTURE: Literal["structure"] = "structure"
PromptOptimizerName = Literal["bootstrap-rs", "gepa", "simba"]


@dataclass(frozen=True)
class OptimizerInputs:
    """What a prompt optimizer compiles with: its examples, the metric, the backbone
    (``lm``) and the model that bootstraps traces, proposes and reflects (``teacher_lm``,
    else ``lm``)."""

    trainset: list[dspy.Example]
    devset: list[dspy.Example]
    metric: JudgeMetric
    lm: dspy.BaseLM
    teacher_lm: dspy.BaseLM | None = None

    @property
    def proposer(self) -> dspy.BaseLM:
        """The model that proposes instructions or reflects: the teacher, else ``lm``."""
        return self.teacher_lm or self.lm

    @property
    def max_errors(self) -> int:
        """Failed examples tolerated: all of them (a failure scores 0, it does not stop)."""
        return len(self.trainset) + len(self.devset)


class Compile(Protocol):
    """Build a DSPy optimizer from ``settings`` and compile ``student`` with it."""

    def __call__(
        self, settings: OptimizerSettings, student: dspy.Module, inputs: OptimizerInputs
    ) -> dspy.Module: ...


StageCalls = Callable[[OptimizerSettings, int, int, float], dict[str, float]]
"""LM calls per stage of an optimizer, from the settings, the train and dev sizes and the
LM calls one question takes."""


@dataclass(frozen=True)
class PromptOptimizer:
    """One DSPy prompt optimizer the compile can run."""

    compile: Compile
    stage_calls: StageCalls
    demo_stages: frozenset[str] = frozenset()
    """The estimate's stages whose prompts carry the bootstrapped demos."""
    percent_scores: bool = False
    """Whether its ``candidate_programs`` scores are percentages (DSPy's Evaluate)."""

    def candidate_scores(self, compiled: dspy.Module) -> list[float]:
        """The dev (or train) scores of the candidates it tried, as shares, rounded."""
        scale = 100 if self.percent_scores else 1
        found = getattr(compiled, "candidate_programs", None) or []
        return [round(float(c["score"]) / scale, 4) for c in found]


def _bootstrap_rs(
    settings: OptimizerSettings, student: dspy.Module, inputs: OptimizerInputs
) -> dspy.Module:
    teacher = {"lm": inputs.teacher_lm} if inputs.teacher_lm is not None else {}
    return dspy.BootstrapFewShotWithRandomSearch(
        metric=inputs.metric,
        teacher_settings=teacher,
        max_bootstrapped_demos=settings.max_demos,
        max_labeled_demos=settings.max_labeled_demos,
        num_candidate_programs=settings.candidates,
        num_threads=settings.threads,
        max_errors=inputs.max_errors,
    ).compile(student, trainset=inputs.trainset, valset=inputs.devset)


def _bootstrap_rs_calls(
    s: OptimizerSettings, train: int, dev: int, per_question: float
) -> dict[str, float]:
    # zero-shot and labels-only (no raw demos) repeat the before-score calls: cached
    return {
        "bootstrap traces": train * per_question,
        "candidate evaluation": (s.candidates + 1) * dev * per_question,
    }


def _gepa(
    settings: OptimizerSettings, student: dspy.Module, inputs: OptimizerInputs
) -> dspy.Module:
    # every traced predictor each iteration: round-robin picks the repair and revision
    # predictors, which rarely run, and proposes nothing for them (docs/experiments.md)
    return dspy.GEPA(
        metric=inputs.metric.feedback,
        max_metric_calls=settings.max_metric_calls,
        reflection_lm=inputs.proposer,
        component_selector="all",
        num_threads=settings.threads,
        seed=settings.seed,
    ).compile(student, trainset=inputs.trainset, valset=inputs.devset)


def _gepa_calls(
    s: OptimizerSettings, train: int, dev: int, per_question: float
) -> dict[str, float]:
    return {
        "rollouts": s.max_metric_calls * per_question,
        "reflection": s.max_metric_calls / 3,
    }


def _simba(
    settings: OptimizerSettings, student: dspy.Module, inputs: OptimizerInputs
) -> dspy.Module:
    return dspy.SIMBA(
        metric=inputs.metric,
        bsize=min(settings.simba_batch, len(inputs.trainset)),
        num_candidates=settings.candidates,
        max_steps=settings.simba_steps,
        max_demos=settings.max_demos,
        prompt_model=inputs.proposer,
        num_threads=settings.threads,
    ).compile(student, trainset=inputs.trainset, seed=settings.seed)


def _simba_calls(
    s: OptimizerSettings, train: int, dev: int, per_question: float
) -> dict[str, float]:
    return {
        "rollouts + candidates": 2 * s.simba_steps * s.simba_batch * s.candidates * per_question,
        "rules": s.simba_steps * s.candidates,
    }


PROMPT_OPTIMIZERS: Mapping[PromptOptimizerName, PromptOptimizer] = MappingProxyType(
    {
        "bootstrap-rs": PromptOptimizer(
            compile=_bootstrap_rs,
            stage_calls=_bootstrap_rs_calls,
            demo_stages=frozenset({"candidate evaluation"}),
            percent_scores=True,
        ),
        "gepa": PromptOptimizer(compile=_gepa, stage_calls=_gepa_calls),
        "simba": PromptOptimizer(
            compile=_simba,
            stage_calls=_simba_calls,
            demo_stages=frozenset({"rollouts + candidates"}),
        ),
    }
)
"""DSPy prompt optimizers by name: BootstrapFewShotWithRandomSearch, GEPA (the judge's
reason as its feedback), SIMBA."""

OPTIMIZERS: tuple[OptimizerName, ...] = (STRUCTURE, *PROMPT_OPTIMIZERS)
"""Every ``--optimizer`` name, the structure search first."""


def prompt_optimizer(name: OptimizerName) -> PromptOptimizer:
    """The registry's entry for ``name``.

    Raises:
        ValueError: ``name`` is the structure search, not a prompt optimizer.
    """
    for known, entry in PROMPT_OPTIMIZERS.items():
        if known == name:
            return entry
    raise ValueError(
        f"{name} is not a DSPy prompt optimizer: one of {', '.join(PROMPT_OPTIMIZERS)}"
    )


def optimize(
    settings: OptimizerSettings,
    student: dspy.Module,
    trainset: list[dspy.Example],
    devset: list[dspy.Example],
    *,
    metric: JudgeMetric,
    lm: dspy.BaseLM,
    teacher_lm: dspy.BaseLM | None = None,
) -> dspy.Module:
    """``student`` compiled by ``settings.optimizer``; the teacher (else ``lm``) bootstraps
    traces and proposes instructions."""
    inputs = OptimizerInputs(trainset, devset, metric, lm, teacher_lm)
    return prompt_optimizer(settings.optimizer).compile(settings, student, inputs)
