"""The normalized financial-statement concepts: what a labelled statement row means.

A statement record (a line item of an income statement, balance sheet or cash-flow
statement) carries one of these names, and the metric catalogue states each metric's
inputs in them, so the two meet without matching printed labels. Each concept names the
statement it is read from and whether it is a flow over a period (``duration``) or a
balance at a date (``instant``).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

Statement = Literal["income", "balance", "cash_flow"]
PeriodKind = Literal["duration", "instant"]


class Concept(BaseModel):
    """One normalized line item."""

    model_config = ConfigDict(frozen=True)

    name: str
    label: str
    statement: Statement
    period_kind: PeriodKind


def _concept(name: str, label: str, statement: Statement) -> Concept:
    kind: PeriodKind = "instant" if statement == "balance" else "duration"
    return Concept(name=name, label=label, statement=statement, period_kind=kind)


CONCEPTS: dict[str, Concept] = {
    concept.name: concept
    for concept in (
        _concept("revenue", "Total revenue", "income"),
        _concept("cost_of_revenue", "Cost of revenue (COGS)", "income"),
        _concept("gross_profit", "Gross profit", "income"),
        _concept("sga", "Selling, general and administrative expense", "income"),
        _concept("research_development", "Research and development expense", "income"),
        _concept("operating_expenses", "Total operating expenses", "income"),
        _concept("operating_income", "Operating income", "income"),
        _concept("interest_expense", "Interest expense", "income"),
        _concept("pretax_income", "Income before income taxes", "income"),
        _concept("income_tax_expense", "Provision for income taxes", "income"),
        _concept("net_income", "Net income", "income"),
        _concept("net_income_attributable", "Net income attributable to the company", "income"),
        _concept("eps_basic", "Basic earnings per share", "income"),
        _concept("eps_diluted", "Diluted earnings per share", "income"),
        _concept("restructuring", "Restructuring charges", "income"),
        _concept("cash_and_equivalents", "Cash and cash equivalents", "balance"),
        _concept("short_term_investments", "Short-term investments", "balance"),
        _concept("accounts_receivable", "Accounts receivable, net", "balance"),
        _concept("inventories", "Inventories", "balance"),
        _concept("total_current_assets", "Total current assets", "balance"),
        _concept("property_plant_equipment", "Property, plant and equipment, net", "balance"),
        _concept("total_assets", "Total assets", "balance"),
        _concept("accounts_payable", "Accounts payable", "balance"),
        _concept("short_term_debt", "Short-term debt and current portion", "balance"),
        _concept("total_current_liabilities", "Total current liabilities", "balance"),
        _concept("long_term_debt", "Long-term debt", "balance"),
        _concept("total_liabilities", "Total liabilities", "balance"),
        _concept("total_equity", "Total shareholders' equity", "balance"),
        _concept("operating_cash_flow", "Net cash provided by operating activities", "cash_flow"),
        _concept("depreciation_amortization", "Depreciation and amortization", "cash_flow"),
        _concept("capital_expenditure", "Purchases of property, plant and equipment", "cash_flow"),
        _concept("investing_cash_flow", "Net cash used in investing activities", "cash_flow"),
        _concept("financing_cash_flow", "Net cash used in financing activities", "cash_flow"),
        _concept("dividends_paid", "Cash dividends paid", "cash_flow"),
        _concept("share_repurchases", "Repurchases of common stock", "cash_flow"),
    )
}
"""Every concept by name."""


def concept(name: str) -> Concept:
    """The concept called ``name``; a KeyError names the known ones."""
    try:
        return CONCEPTS[name]
    except KeyError:
        raise KeyError(f"unknown concept {name!r}; known: {', '.join(CONCEPTS)}") from None
