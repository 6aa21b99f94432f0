"""The catalogue's metrics, by name and by alias. Outflows (capital expenditures,
dividends paid) are positive amounts; an average is the mean of the year's and the prior
year's balances."""

from __future__ import annotations

import re
from collections.abc import Callable

from filingqa.checks.metric_catalogue.metric import Metric, Unit


def _metric(
    name: str,
    aliases: tuple[str, ...],
    unit: Unit,
    definition: str,
    formula: Callable[..., float],
    *,
    noted: bool = True,
    healthy_from: float | None = None,
) -> Metric:
    return Metric(
        name=name,
        aliases=aliases,
        unit=unit,
        definition=definition,
        formula=formula,
        noted=noted,
        healthy_from=healthy_from,
    )


def _debt(short_term_debt: float, long_term_debt: float) -> float:
    return short_term_debt + long_term_debt


def _purchases(cost_of_revenue: float, inventories: float, prior_inventories: float) -> float:
    return cost_of_revenue + inventories - prior_inventories


def _quick_ratio(
    cash_and_equivalents: float,
    short_term_investments: float,
    accounts_receivable: float,
    total_current_liabilities: float,
) -> float:
    quick_assets = cash_and_equivalents + short_term_investments + accounts_receivable
    return quick_assets / total_current_liabilities


def _cash_conversion_cycle(
    revenue: float,
    cost_of_revenue: float,
    inventories: float,
    prior_inventories: float,
    average_inventories: float,
    average_accounts_receivable: float,
    average_accounts_payable: float,
) -> float:
    inventory_days = 365 * average_inventories / cost_of_revenue
    receivable_days = 365 * average_accounts_receivable / revenue
    purchases = _purchases(cost_of_revenue, inventories, prior_inventories)
    return inventory_days + receivable_days - 365 * average_accounts_payable / purchases


def _net_debt_to_ebitda(
    short_term_debt: float,
    long_term_debt: float,
    cash_and_equivalents: float,
    operating_income: float,
    depreciation_amortization: float,
) -> float:
    net_debt = _debt(short_term_debt, long_term_debt) - cash_and_equivalents
    return net_debt / (operating_income + depreciation_amortization)


_PROFITABILITY = (
    _metric(
        "gross margin",
        ("gross profit margin",),
        "percent",
        "(revenue - cost of revenue) / revenue × 100",
        lambda revenue, cost_of_revenue: 100 * (revenue - cost_of_revenue) / revenue,
    ),
    _metric(
        "operating margin",
        ("operating profit margin", "operating income margin"),
        "percent",
        "operating income / revenue × 100",
        lambda operating_income, revenue: 100 * operating_income / revenue,
    ),
    _metric(
        "pretax margin",
        ("pre-tax margin", "pretax profit margin", "pre-tax profit margin"),
        "percent",
        "income before income taxes / revenue × 100",
        lambda pretax_income, revenue: 100 * pretax_income / revenue,
    ),
    _metric(
        "net profit margin",
        ("net margin", "profit margin", "net income margin"),
        "percent",
        "net income / revenue × 100",
        lambda net_income, revenue: 100 * net_income / revenue,
    ),
    _metric(
        "EBITDA",
        (),
        "amount",
        "operating income + depreciation and amortization",
        lambda operating_income, depreciation_amortization: (
            operating_income + depreciation_amortization
        ),
    ),
    _metric(
        "EBITDA margin",
        (),
        "percent",
        "(operating income + depreciation and amortization) / revenue × 100",
        lambda operating_income, depreciation_amortization, revenue: (
            100 * (operating_income + depreciation_amortization) / revenue
        ),
    ),
    _metric(
        "return on assets",
        ("ROA",),
        "ratio",
        "net income / average total assets (the mean of the year's and the prior year's)",
        lambda net_income, average_total_assets: net_income / average_total_assets,
    ),
    _metric(
        "return on equity",
        ("ROE",),
        "ratio",
        "net income / average total shareholders' equity (the mean of the year's and the "
        "prior year's)",
        lambda net_income, average_total_equity: net_income / average_total_equity,
    ),
    _metric(
        "effective tax rate",
        ("effective income tax rate",),
        "percent",
        "provision for income taxes / income before income taxes × 100",
        lambda income_tax_expense, pretax_income: 100 * income_tax_expense / pretax_income,
    ),
)

_CASH_FLOW = (
    _metric(
        "free cash flow",
        ("free cashflow", "FCF"),
        "amount",
        "net cash provided by operating activities - capital expenditures (purchases of "
        "property, plant and equipment)",
        lambda operating_cash_flow, capital_expenditure: operating_cash_flow - capital_expenditure,
    ),
    _metric(
        "capital expenditure",
        ("capex", "capital spending"),
        "amount",
        "capital expenditures (purchases of property, plant and equipment)",
        lambda capital_expenditure: capital_expenditure,
    ),
    _metric(
        "capex intensity",
        ("capital expenditure intensity", "capex to revenue", "capex-to-sales"),
        "percent",
        "capital expenditures (purchases of property, plant and equipment) / revenue × 100",
        lambda capital_expenditure, revenue: 100 * capital_expenditure / revenue,
    ),
    _metric(
        "free cash flow conversion",
        ("free cashflow conversion", "FCF conversion", "cash conversion ratio"),
        "ratio",
        "(net cash provided by operating activities - capital expenditures) / net income",
        lambda operating_cash_flow, capital_expenditure, net_income: (
            (operating_cash_flow - capital_expenditure) / net_income
        ),
    ),
    _metric(
        "operating cash flow ratio",
        ("cash flow from operations ratio",),
        "ratio",
        "net cash provided by operating activities / total current liabilities",
        lambda operating_cash_flow, total_current_liabilities: (
            operating_cash_flow / total_current_liabilities
        ),
    ),
    _metric(
        "dividend payout ratio",
        ("payout ratio", "dividend payout"),
        "ratio",
        "cash dividends paid / net income",
        lambda dividends_paid, net_income: dividends_paid / net_income,
    ),
    _metric(
        "retention ratio",
        ("earnings retention ratio", "plowback ratio"),
        "ratio",
        "(net income - cash dividends paid) / net income",
        lambda net_income, dividends_paid: (net_income - dividends_paid) / net_income,
    ),
)

_LIQUIDITY = (
    _metric(
        "current ratio",
        ("working capital ratio",),
        "ratio",
        "total current assets / total current liabilities",
        lambda total_current_assets, total_current_liabilities: (
            total_current_assets / total_current_liabilities
        ),
        healthy_from=1.0,
    ),
    _metric(
        "quick ratio",
        ("acid-test ratio",),
        "ratio",
        "(cash and cash equivalents + short-term investments + accounts receivable) / total "
        "current liabilities",
        _quick_ratio,
        healthy_from=1.0,
    ),
    _metric(
        "cash ratio",
        (),
        "ratio",
        "(cash and cash equivalents + short-term investments) / total current liabilities",
        lambda cash_and_equivalents, short_term_investments, total_current_liabilities: (
            (cash_and_equivalents + short_term_investments) / total_current_liabilities
        ),
    ),
    _metric(
        "working capital",
        ("net working capital",),
        "amount",
        "total current assets - total current liabilities",
        lambda total_current_assets, total_current_liabilities: (
            total_current_assets - total_current_liabilities
        ),
    ),
)

_EFFICIENCY = (
    _metric(
        "asset turnover",
        ("asset turnover ratio", "total asset turnover"),
        "ratio",
        "revenue / average total assets (the mean of the year's and the prior year's)",
        lambda revenue, average_total_assets: revenue / average_total_assets,
    ),
    _metric(
        "fixed asset turnover",
        ("fixed asset turnover ratio", "PP&E turnover"),
        "ratio",
        "revenue / average property, plant and equipment, net (the mean of the year's and "
        "the prior year's)",
        lambda revenue, average_property_plant_equipment: (
            revenue / average_property_plant_equipment
        ),
    ),
    _metric(
        "inventory turnover",
        ("inventory turnover ratio",),
        "ratio",
        "cost of revenue / average inventories (the mean of the year's and the prior year's)",
        lambda cost_of_revenue, average_inventories: cost_of_revenue / average_inventories,
    ),
    _metric(
        "receivables turnover",
        (
            "receivables turnover ratio",
            "receivable turnover",
            "accounts receivable turnover",
            "accounts receivable turnover ratio",
        ),
        "ratio",
        "revenue / average accounts receivable (the mean of the year's and the prior year's)",
        lambda revenue, average_accounts_receivable: revenue / average_accounts_receivable,
    ),
    _metric(
        "payables turnover",
        (
            "payables turnover ratio",
            "payable turnover",
            "accounts payable turnover",
            "accounts payable turnover ratio",
        ),
        "ratio",
        "(cost of revenue + change in inventories over the year) / average accounts payable "
        "(the mean of the year's and the prior year's)",
        lambda cost_of_revenue, inventories, prior_inventories, average_accounts_payable: (
            _purchases(cost_of_revenue, inventories, prior_inventories) / average_accounts_payable
        ),
    ),
    _metric(
        "days sales outstanding",
        ("DSO", "days receivable outstanding", "days receivables outstanding"),
        "days",
        "365 × average accounts receivable / revenue",
        lambda average_accounts_receivable, revenue: 365 * average_accounts_receivable / revenue,
    ),
    _metric(
        "days inventory outstanding",
        ("DIO", "days inventory on hand", "days in inventory", "days sales of inventory"),
        "days",
        "365 × average inventories / cost of revenue",
        lambda average_inventories, cost_of_revenue: 365 * average_inventories / cost_of_revenue,
    ),
    _metric(
        "days payable outstanding",
        ("DPO", "days payables outstanding"),
        "days",
        "365 × average accounts payable / (cost of revenue + change in inventories over the year)",
        lambda average_accounts_payable, cost_of_revenue, inventories, prior_inventories: (
            365
            * average_accounts_payable
            / _purchases(cost_of_revenue, inventories, prior_inventories)
        ),
    ),
    _metric(
        "cash conversion cycle",
        ("CCC", "net operating cycle"),
        "days",
        "days inventory outstanding + days sales outstanding - days payable outstanding",
        _cash_conversion_cycle,
    ),
)

_LEVERAGE = (
    _metric(
        "total debt",
        (),
        "amount",
        "short-term debt + long-term debt",
        _debt,
    ),
    _metric(
        "net debt",
        (),
        "amount",
        "short-term debt + long-term debt - cash and cash equivalents",
        lambda short_term_debt, long_term_debt, cash_and_equivalents: (
            _debt(short_term_debt, long_term_debt) - cash_and_equivalents
        ),
    ),
    _metric(
        "debt-to-equity ratio",
        ("debt-to-equity", "debt/equity ratio"),
        "ratio",
        "(short-term debt + long-term debt) / total shareholders' equity",
        lambda short_term_debt, long_term_debt, total_equity: (
            _debt(short_term_debt, long_term_debt) / total_equity
        ),
    ),
    _metric(
        "debt-to-assets ratio",
        ("debt-to-assets", "debt-to-total-assets ratio"),
        "ratio",
        "(short-term debt + long-term debt) / total assets",
        lambda short_term_debt, long_term_debt, total_assets: (
            _debt(short_term_debt, long_term_debt) / total_assets
        ),
    ),
    _metric(
        "net debt to EBITDA",
        ("net debt/EBITDA", "net leverage ratio"),
        "ratio",
        "(short-term debt + long-term debt - cash and cash equivalents) / (operating income + "
        "depreciation and amortization)",
        _net_debt_to_ebitda,
    ),
    _metric(
        "interest coverage ratio",
        ("interest coverage", "times interest earned"),
        "ratio",
        "operating income / interest expense",
        lambda operating_income, interest_expense: operating_income / interest_expense,
    ),
    _metric(
        "fixed asset ratio",
        ("fixed assets ratio", "fixed assets to total assets"),
        "ratio",
        "property, plant and equipment, net / total assets",
        lambda property_plant_equipment, total_assets: property_plant_equipment / total_assets,
    ),
)

_GROWTH = (
    _metric(
        "revenue growth",
        ("revenue growth rate", "sales growth", "sales growth rate", "top-line growth"),
        "percent",
        "(revenue - prior-year revenue) / prior-year revenue × 100",
        lambda revenue, prior_revenue: 100 * (revenue - prior_revenue) / prior_revenue,
        noted=False,
    ),
    _metric(
        "operating income growth",
        ("operating income growth rate", "operating profit growth"),
        "percent",
        "(operating income - prior-year operating income) / prior-year operating income × 100",
        lambda operating_income, prior_operating_income: (
            100 * (operating_income - prior_operating_income) / prior_operating_income
        ),
        noted=False,
    ),
    _metric(
        "net income growth",
        ("net income growth rate", "earnings growth"),
        "percent",
        "(net income - prior-year net income) / prior-year net income × 100",
        lambda net_income, prior_net_income: (
            100 * (net_income - prior_net_income) / prior_net_income
        ),
        noted=False,
    ),
)

CATALOGUE: dict[str, Metric] = {
    metric.name: metric
    for metric in (
        *_PROFITABILITY,
        *_CASH_FLOW,
        *_LIQUIDITY,
        *_EFFICIENCY,
        *_LEVERAGE,
        *_GROWTH,
    )
}
"""Every metric by name."""


def _key(name: str) -> str:
    return " ".join(re.split(r"[\s-]+", name.lower()))


_BY_NAME: dict[str, Metric] = {
    _key(name): metric for metric in CATALOGUE.values() for name in metric.names
}


def metric_called(name: str) -> Metric:
    """The metric called ``name`` or an alias of it (any case, hyphens as spaces); a KeyError
    names the known metrics."""
    try:
        return _BY_NAME[_key(name)]
    except KeyError:
        raise KeyError(f"unknown metric {name!r}; known: {', '.join(CATALOGUE)}") from None
