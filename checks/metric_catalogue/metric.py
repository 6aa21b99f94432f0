"""A metric's description: its inputs as concepts at period roles, unit, definition and
formula, and evaluating the formula from concept values."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Literal

from pydantic import BaseModel, ConfigDict, model_validator

from filingqa.checks.metric_catalogue.expression import formula_expression
from filingqa.records.concepts import CONCEPTS

PeriodRole = Literal["current", "prior", "average"]
Unit = Literal["ratio", "percent", "days", "amount"]
Values = Mapping[tuple[str, PeriodRole], float]
"""Concept values keyed by ``(concept, period role)``."""

_PREFIXES: dict[PeriodRole, str] = {"prior": "prior_", "average": "average_"}


class MissingInputError(ValueError):
    """A metric's formula needs a concept value that was not given."""


class MetricInput(BaseModel):
    """One input of a formula: a concept taken at a period role."""

    model_config = ConfigDict(frozen=True)

    concept: str
    period: PeriodRole = "current"

    @property
    def argument(self) -> str:
        """The formula's parameter name for this input (``average_total_assets``)."""
        return _PREFIXES.get(self.period, "") + self.concept

    @classmethod
    def from_argument(cls, argument: str) -> MetricInput:
        """The input a formula parameter names; a ValueError names an unknown concept."""
        period: PeriodRole = "current"
        for role, prefix in _PREFIXES.items():
            if argument.startswith(prefix):
                period, argument = role, argument.removeprefix(prefix)
        if argument not in CONCEPTS:
            raise ValueError(f"formula parameter names no concept: {argument!r}")
        return cls(concept=argument, period=period)


class Metric(BaseModel):
    """One financial metric: names, unit, a one-line definition and its formula.

    ``noted``: whether the program writer is given the definition as a note (growth rates
    are not: the model computes a percentage change unaided, and a note shifts its output).
    ``healthy_from``: the level at or above which the metric is conventionally read as
    healthy (a quick ratio of 1: quick assets cover current liabilities), if there is one.
    """

    model_config = ConfigDict(frozen=True)

    name: str
    aliases: tuple[str, ...] = ()
    unit: Unit
    definition: str
    formula: Callable[..., float]
    noted: bool = True
    healthy_from: float | None = None

    @property
    def names(self) -> tuple[str, ...]:
        """The name and every alias."""
        return (self.name, *self.aliases)

    @property
    def inputs(self) -> tuple[MetricInput, ...]:
        """The formula's inputs, in parameter order."""
        parameters = inspect.signature(self.formula).parameters
        return tuple(MetricInput.from_argument(name) for name in parameters)

    @property
    def expression(self) -> str:
        """The formula as a Python expression over its parameters' names."""
        return formula_expression(self.formula)

    @model_validator(mode="after")
    def _formula_takes_concepts(self) -> Metric:
        """The formula takes at least one input, each parameter naming a concept at a period
        role, and only adds, subtracts, multiplies and divides them (so it can be written
        out as :attr:`expression`)."""
        if not self.inputs:
            raise ValueError(f"the formula of {self.name} takes no input")
        try:
            formula_expression(self.formula)
        except (TypeError, ZeroDivisionError) as error:
            raise ValueError(f"the formula of {self.name} is not arithmetic: {error}") from None
        return self


def compute(metric: Metric, values: Values) -> float:
    """``metric`` evaluated from ``values``; an average not given is the mean of the current
    and prior values. A :class:`MissingInputError` names the first input missing."""
    arguments = {needed.argument: _value(metric, needed, values) for needed in metric.inputs}
    return metric.formula(**arguments)


def _value(metric: Metric, needed: MetricInput, values: Values) -> float:
    if (needed.concept, needed.period) in values:
        return values[needed.concept, needed.period]
    current: tuple[str, PeriodRole] = (needed.concept, "current")
    prior: tuple[str, PeriodRole] = (needed.concept, "prior")
    if needed.period == "average" and current in values and prior in values:
        return (values[current] + values[prior]) / 2
    raise MissingInputError(
        f"{metric.name} needs {needed.concept} ({needed.period} period), which was not given"
    )
