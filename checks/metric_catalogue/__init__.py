"""The metric catalogue: standard definitions of the financial metrics questions name.

Each :class:`Metric` states its inputs as concepts (:mod:`~filingqa.records.concepts`), each
taken at a period role: the current period, the prior period, or the average of the two
balances (FinanceBench's ROA is net income over the average of the year's and the prior
year's total assets). Its formula is a Python function whose parameter names are those
inputs (``net_income``, ``prior_revenue``, ``average_total_assets``); :func:`compute`
evaluates it from concept values. Outflows (capital expenditures, dividends paid) are given
as positive amounts.

A question names a metric by its name or an alias (:func:`metrics_named`, the longer name
winning where one contains another). A formula the question states itself
(:func:`question_defines`) wins over the catalogue, which then gives no definition for that
metric.
"""

from filingqa.checks.metric_catalogue.definitions import CATALOGUE, metric_called
from filingqa.checks.metric_catalogue.metric import (
    Metric,
    MetricInput,
    MissingInputError,
    PeriodRole,
    Unit,
    Values,
    compute,
)
from filingqa.checks.metric_catalogue.naming import (
    Mention,
    first_mentions,
    mentions,
    metrics_named,
    question_defines,
)

__all__ = [
    "CATALOGUE",
    "Mention",
    "Metric",
    "MetricInput",
    "MissingInputError",
    "PeriodRole",
    "Unit",
    "Values",
    "compute",
    "first_mentions",
    "mentions",
    "metric_called",
    "metrics_named",
    "question_defines",
]
