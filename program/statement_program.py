"""A program written from the statement records, without the LM.

A question about one figure of one company — a metric of the catalogue (named, or defined
by the question the catalogue's way), or one statement line item — whose inputs the
statement records hold for the period it asks about, needs no model to pick numbers out of
pages: the program assigns each input the value its statement row prints (an expense or
outflow as a positive amount) and applies the catalogue's formula
(:attr:`~filingqa.checks.metric_catalogue.Metric.expression`). Its ``result`` is the figure,
converted to the scale the question asks for; for a yes/no question, the comparison code
can decide (:mod:`~filingqa.checks.trend`): the later period's figure against the earlier
one's, the figure against zero, or against the level the catalogue reads as healthy.

The figure may also be an amount as a share of revenue ("the D&A % margin", "cost of goods
sold as a % of revenue") or an average over a span of fiscal years ("the FY2015 - FY2017
3 year average net profit margin", :mod:`~filingqa.checks.asked_figure`): each year's
figure, then their mean.

Anything else — a formula of the question's own that is not the catalogue's, several
figures, a name asked for ("which segment"), another computation from a line item, a sum or
a change asked as a figure, periods whose rows are missing or printed at different scales,
a yes/no question asking neither a direction nor a sign — gets no program here, and the LM
writes one as usual.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from filingqa.checks.asked_figure import asks_share_of_revenue, averaged_years
from filingqa.checks.metric_catalogue import (
    Metric,
    MetricInput,
    first_mentions,
    question_defines,
)
from filingqa.checks.sign_check import asks_for_change
from filingqa.checks.trend import asked_direction, asked_sign, asks_health
from filingqa.core.numbers import SCALE_WORDS, asked_scale
from filingqa.records.statements import SCALE_MULTIPLIERS, StatementRecord
from filingqa.retrieval.vocabulary.fiscal import find_periods
from filingqa.retrieval.vocabulary.line_items import question_concepts

POSITIVE_AMOUNTS = frozenset(
    {  # expenses and outflows: a metric takes them as positive amounts, whatever the print
        "cost_of_revenue",
        "sga",
        "research_development",
        "operating_expenses",
        "interest_expense",
        "income_tax_expense",
        "restructuring",
        "depreciation_amortization",
        "capital_expenditure",
        "dividends_paid",
        "share_repurchases",
    }
)
ABSENT_AS_ZERO = frozenset({"short_term_investments"})
"""Line items many balance sheets do not print at all: a metric takes one a period's
statement lacks as zero, when its other inputs for that period were found."""
_Ask = Literal["value", "direction", "sign", "health"]
"""What the result is: the figure, whether it moved in the direction asked, its sign,
whether it reaches the level the metric is healthy from."""
_COMPUTING = re.compile(  # a line item named in a question computing something from it
    r"\b(ratio|percent(age)?s?|proportion|share of|margin|per|rate|turnover|return)\b|%",
    re.IGNORECASE,
)
_AGGREGATE = re.compile(r"\b(mean|sum|total of|combined|cumulative|cagr)\b", re.IGNORECASE)
_AVERAGE = re.compile(r"\baverage\b", re.IGNORECASE)
_CHOICE = re.compile(r"\b(which|who|whom)\b", re.IGNORECASE)  # a name is asked, not a figure
_PERCENT = re.compile(r"\b(percent(age)?s?|margin|ratio)\b|%", re.IGNORECASE)


@dataclass(frozen=True)
class _Target:
    """The one figure a question asks about: its variable name, the expression computing
    it from its inputs' names, its inputs, and whether it is an amount (a scale applies)."""

    name: str
    expression: str
    inputs: tuple[MetricInput, ...]
    amount: bool
    healthy_from: float | None = None


@dataclass(frozen=True)
class _Periods:
    """The period the figure is asked for and the one before it (a year earlier, or the
    earlier of two periods the question names), as record period labels."""

    current: str
    earlier: str | None


def statement_program(
    question: str, records: Sequence[StatementRecord], *, decides: bool
) -> str | None:
    """A program computing what ``question`` asks from ``records`` (the statement records
    looked up for it), or None when code cannot settle it. With ``decides`` the question
    asks yes or no, and the program's result is the deciding comparison."""
    target = _target(question) if not _CHOICE.search(question) else None
    if target is None:
        return None
    years = averaged_years(question)
    if years is not None:
        return None if decides else _years_average(question, records, target, len(years))
    ask = _ask(question, target, decides)
    if ask is None:
        return None
    periods = _periods(records, target, ask)
    lines = _inputs(records, target, periods, ask) if periods is not None else None
    if lines is None:
        return None
    return "\n".join([*lines, *_result(question, records, target, ask)]) + "\n"


def _ask(question: str, target: _Target, decides: bool) -> _Ask | None:
    """What the program's result must be, or None when code cannot settle the question:
    an aggregate (a sum, or an average other than the formula's average balances), a
    figure of more periods than its formula takes, a change asked as a figure, a yes/no
    asking neither a direction, a sign nor health (of a metric with a healthy level), or a
    direction of a figure whose formula takes a prior period's balance (that period's own
    prior is not looked up)."""
    named = {period.text.lower() for period in find_periods(question)}
    prior_inputs = _takes_prior(target)
    if _AGGREGATE.search(question) or (_AVERAGE.search(question) and not prior_inputs):
        return None
    if not decides:
        periods = 2 if prior_inputs else 1
        return "value" if len(named) <= periods and not asks_for_change(question) else None
    if asked_direction(question) is not None:
        return "direction" if len(named) <= 2 and not prior_inputs else None
    if len(named) > 1:
        return None
    if asked_sign(question) is not None:
        return "sign"
    return "health" if asks_health(question) and target.healthy_from is not None else None


def _takes_prior(target: _Target) -> bool:
    """Whether the target's formula takes a balance of the prior period (or an average)."""
    return any(needed.period != "current" for needed in target.inputs)


def _result(
    question: str, records: Sequence[StatementRecord], target: _Target, ask: _Ask
) -> list[str]:
    """The lines computing the target from its inputs and setting ``result``: the figure
    (at the scale the question asks for), the later figure against the earlier one, the
    figure against zero, or against the level it is healthy from."""
    computes = target.expression != target.name
    lines = [f"{target.name} = {target.expression}"] if computes else []
    if ask == "direction":
        lines += (
            [f"earlier_{target.name} = {_renamed(target, prefix='earlier_')}"] if computes else []
        )
        operator = ">" if asked_direction(question) == "up" else "<"
        return [*lines, f"result = {target.name} {operator} earlier_{target.name}"]
    if ask == "sign":
        operator = ">" if asked_sign(question) == "positive" else "<"
        return [*lines, f"result = {target.name} {operator} 0"]
    if ask == "health":
        return [*lines, f"result = {target.name} >= {target.healthy_from:g}"]
    return [*lines, f"result = {target.name}{_conversion(question, records, target)}"]


def _target(question: str) -> _Target | None:
    """The one catalogue metric ``question`` names (every line item it names being among
    the metric's inputs; a formula the question states taking the same inputs, averaged the
    same way), else the one line item it names."""
    metrics = [mention.metric for mention in first_mentions(question)]
    share = asks_share_of_revenue(question)
    named = [c for c in question_concepts(question) if not (share and c == "revenue")]
    if len(metrics) > 1:
        return None
    if metrics:
        target = _metric_target(question, metrics[0], named, share)
    elif len(named) != 1 or (not share and _COMPUTING.search(question)):
        return None
    else:
        (concept,) = named
        target = _Target(concept, concept, (MetricInput(concept=concept),), amount=True)
    return _share_of_revenue(target) if share and target is not None else target


def _metric_target(question: str, metric: Metric, named: list[str], share: bool) -> _Target | None:
    """``metric`` as the target, when every line item ``question`` names is among its
    inputs, a formula the question states for it is the catalogue's, and it is an amount
    where the question asks a share of revenue (or asks no other margin or ratio of it)."""
    if not set(named) <= {needed.concept for needed in metric.inputs}:
        return None
    if question_defines(question, metric) and not _same_formula(question, metric):
        return None
    amount = metric.unit == "amount"
    if (share and not amount) or (amount and not share and _PERCENT.search(question)):
        return None
    name = re.sub(r"[^a-z0-9]+", "_", metric.name.lower()).strip("_")
    return _Target(name, metric.expression, metric.inputs, amount, metric.healthy_from)


def _share_of_revenue(target: _Target) -> _Target | None:
    """The target amount as a percentage of revenue (its "% margin")."""
    if not target.amount:
        return None
    amount = target.expression if target.expression.isidentifier() else f"({target.expression})"
    revenue = MetricInput(concept="revenue")
    inputs = target.inputs if revenue in target.inputs else (*target.inputs, revenue)
    return _Target(f"{target.name}_margin", f"100 * {amount} / revenue", inputs, amount=False)


def _same_formula(question: str, metric: Metric) -> bool:
    """Whether the formula ``question`` states for ``metric`` is the catalogue's: it names
    exactly the metric's inputs, and averages a balance exactly when the catalogue does."""
    inputs = {needed.concept for needed in metric.inputs}
    averages = any(needed.period == "average" for needed in metric.inputs)
    return set(question_concepts(question)) == inputs and averages == bool(
        _AVERAGE.search(question)
    )


def _periods(records: Sequence[StatementRecord], target: _Target, ask: _Ask) -> _Periods | None:
    """The latest period the target's records report, and the period before it: the other
    one when the records hold exactly two, else none. None when they hold more than two (a
    span of years), none, no earlier period for a direction, or, for a formula taking a
    prior balance, an earlier period that is not the prior year."""
    concepts = {needed.concept for needed in target.inputs}
    found = [record for record in records if record.concept in concepts]
    order = sorted({(_when(record), record.period) for record in found})
    labels = list(dict.fromkeys(label for _, label in order))
    if not labels or len(labels) > 2:
        return None
    earlier = labels[0] if len(labels) == 2 else None
    if ask == "direction" and earlier is None:
        return None
    if _takes_prior(target) and earlier is not None:
        (first, _), (last, _) = order[0], order[-1]
        if (first[0] + 1, first[1]) != last:
            return None
    return _Periods(current=labels[-1], earlier=earlier)


def _when(record: StatementRecord) -> tuple[int, int]:
    """When a record's period ends, for ordering: its fiscal year, then its last quarter
    (a year's figures after its first quarters')."""
    return (record.fiscal_year, record.fiscal_quarter or 4)


def _inputs(
    records: Sequence[StatementRecord], target: _Target, periods: _Periods, ask: _Ask
) -> list[str] | None:
    """One assignment per input (and per input of the earlier period for a direction),
    each commented with the row it was read from, a line item of :data:`ABSENT_AS_ZERO`
    its period's statement lacks as zero; None when another row is missing, every row of a
    period is, or the rows are printed at different scales."""
    wanted = _wanted(target, periods, earlier=ask == "direction")
    if wanted is None:
        return None
    rows = {variable: _row(records, concept, label) for variable, concept, label in wanted}
    concepts = {variable: concept for variable, concept, _ in wanted}
    if any(row is None and concepts[v] not in ABSENT_AS_ZERO for v, row in rows.items()):
        return None
    chosen = [row for row in rows.values() if row is not None]
    if not chosen or len({r.scale for r in chosen if r.unit == "USD"}) > 1:
        return None
    lines = [_assignment(v, row) if row else _absent(v) for v, row in rows.items()]
    return lines + _averages(target)


def _absent(variable: str) -> str:
    return f"{variable} = 0  # not printed on the statement"


def _wanted(
    target: _Target, periods: _Periods, *, earlier: bool
) -> list[tuple[str, str, str]] | None:
    """``(variable, concept, period label)`` of every figure the program assigns; None
    when one needs an earlier period and there is none."""
    wanted: list[tuple[str, str, str]] = []
    for needed in target.inputs:
        wanted.append((needed.concept, needed.concept, periods.current))
        before = needed.period != "current" or earlier
        if before and periods.earlier is None:
            return None
        if needed.period != "current" and periods.earlier is not None:
            wanted.append(("prior_" + needed.concept, needed.concept, periods.earlier))
        if earlier and periods.earlier is not None:
            wanted.append(("earlier_" + needed.concept, needed.concept, periods.earlier))
    return wanted


def _row(records: Sequence[StatementRecord], concept: str, label: str) -> StatementRecord | None:
    """The first record of ``concept`` for the period ``label``: the filing reporting the
    period before a later filing's comparative column."""
    return next((r for r in records if r.concept == concept and r.period == label), None)


def _assignment(variable: str, record: StatementRecord) -> str:
    value = abs(record.value) if record.concept in POSITIVE_AMOUNTS else record.value
    written = f"{value:g}" if value != int(value) else f"{int(value)}"
    scale = "" if record.scale == "units" else f" {record.scale}"
    source = f"{record.line_item.strip()} | {record.period} | {record.doc_id} p.{record.page}"
    return f"{variable} = {written}  # {source}{scale}"


def _averages(target: _Target) -> list[str]:
    """The average balances the formula takes: the mean of the period's and the prior's."""
    return [
        f"average_{needed.concept} = ({needed.concept} + prior_{needed.concept}) / 2"
        for needed in target.inputs
        if needed.period == "average"
    ]


def _renamed(target: _Target, prefix: str = "", suffix: str = "") -> str:
    """The target's expression over its inputs renamed with ``prefix`` and ``suffix`` (the
    earlier period's, or one year's)."""
    names = {needed.argument for needed in target.inputs}
    return re.sub(
        r"\b[a-z_]+\b",
        lambda word: f"{prefix}{word[0]}{suffix}" if word[0] in names else word[0],
        target.expression,
    )


def _years_average(
    question: str, records: Sequence[StatementRecord], target: _Target, count: int
) -> str | None:
    """A program averaging the target over the ``count`` fiscal years the records report
    for it (each year's inputs suffixed with its label), or None when the records report
    another number of years, lack a row, print them at different scales, or the formula
    takes a prior balance."""
    labels = _labels(records, target)
    if len(labels) != count or _takes_prior(target):
        return None
    lines: list[str] = []
    chosen: list[StatementRecord] = []
    yearly: list[str] = []
    for label in labels:
        tag = "_" + re.sub(r"[^a-z0-9]+", "_", label.lower()).strip("_")
        for needed in target.inputs:
            row = _row(records, needed.concept, label)
            if row is None:
                return None
            chosen.append(row)
            lines.append(_assignment(needed.concept + tag, row))
        if target.expression != target.name:
            lines.append(f"{target.name}{tag} = {_renamed(target, suffix=tag)}")
        yearly.append(target.name + tag)
    if len({row.scale for row in chosen if row.unit == "USD"}) > 1:
        return None
    mean = f"({' + '.join(yearly)}) / {count}"
    return "\n".join([*lines, f"result = {mean}{_conversion(question, records, target)}"]) + "\n"


def _labels(records: Sequence[StatementRecord], target: _Target) -> list[str]:
    """The period labels of the target's input records, earliest first."""
    concepts = {needed.concept for needed in target.inputs}
    found = sorted({(_when(r), r.period) for r in records if r.concept in concepts})
    return list(dict.fromkeys(label for _, label in found))


def _conversion(question: str, records: Sequence[StatementRecord], target: _Target) -> str:
    """`` / 1000`` (etc.) when the target is an amount and ``question`` asks for it in a
    unit (:func:`~filingqa.core.numbers.asked_scale`) at another scale than its rows print;
    else nothing."""
    asked = asked_scale(question)
    printed = {r.scale for r in records if r.concept in {n.concept for n in target.inputs}}
    if not target.amount or asked is None or len(printed) != 1:
        return ""
    (scale,) = printed
    factor = SCALE_WORDS[asked] / SCALE_MULTIPLIERS[scale]
    if factor == 1:
        return ""
    return f" / {factor:g}" if factor > 1 else f" * {1 / factor:g}"
