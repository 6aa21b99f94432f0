"""Printed statement row labels read as concepts; statement headings; question concepts."""

from __future__ import annotations

import pytest

from filingqa.records.concepts import CONCEPTS, Statement
from filingqa.retrieval.vocabulary.line_items import (
    LABELS,
    line_concept,
    normalize_label,
    question_concepts,
    statement_heading,
)


@pytest.mark.parametrize(
    ("label", "statement", "concept"),
    [
        ("Net sales", "income", "revenue"),
        ("Total net revenue", "income", "revenue"),
        ("Sales to customers", "income", "revenue"),
        ("Cost of sales", "income", "cost_of_revenue"),
        ("Cost of products sold, excluding amortization", "income", "cost_of_revenue"),
        ("Merchandise costs", "income", "cost_of_revenue"),
        ("Selling, general and administrative expenses", "income", "sga"),
        ("Research, development and related expenses", "income", "research_development"),
        ("Operating income (loss)", "income", "operating_income"),
        ("Income from operations", "income", "operating_income"),
        ("Earnings before provision for taxes on income", "income", "pretax_income"),
        ("Income (loss) before income taxes", "income", "pretax_income"),
        ("Provision for income taxes", "income", "income_tax_expense"),
        ("NET INCOME", "income", "net_income"),
        ("Net income attributable to 3M", "income", "net_income_attributable"),
        ("Net income attributable to noncontrolling interests", "income", None),
        ("Diluted earnings per share", "income", "eps_diluted"),
        ("Cash and cash equivalents", "balance", "cash_and_equivalents"),
        ("Receivables, net", "balance", "accounts_receivable"),
        (
            "Trade accounts receivable, net of doubtful accounts - $42 and $46",
            "balance",
            "accounts_receivable",
        ),
        ("Loss from operations", "income", "operating_income"),
        ("(Loss)/income from operations", "income", "operating_income"),
        ("(Loss)/income from operating investments, net", "income", None),
        ("Research and development expense, net", "income", "research_development"),
        ("Income tax (expense)/benefit", "income", "income_tax_expense"),
        ("Merchandise inventories", "balance", "inventories"),
        ("Total current assets", "balance", "total_current_assets"),
        ("Property, plant and equipment, net", "balance", "property_plant_equipment"),
        ("TOTAL ASSETS", "balance", "total_assets"),
        ("Accounts payable", "balance", "accounts_payable"),
        ("Trade payables", "balance", "accounts_payable"),
        ("Current portion of long-term debt", "balance", "short_term_debt"),
        ("Total current liabilities", "balance", "total_current_liabilities"),
        ("Long-term debt, excluding current portion", "balance", "long_term_debt"),
        ("Total liabilities", "balance", "total_liabilities"),
        ("Total liabilities and equity", "balance", None),
        ("Total Costco stockholders’ equity", "balance", "total_equity"),
        ("Net cash provided by operating activities", "cash_flow", "operating_cash_flow"),
        ("Net Cash Used for Operating Activities", "cash_flow", "operating_cash_flow"),
        (
            "Total cash provided by (used in) operating activities",
            "cash_flow",
            "operating_cash_flow",
        ),
        ("Purchases of property, plant and equipment", "cash_flow", "capital_expenditure"),
        ("Additions to property and equipment", "cash_flow", "capital_expenditure"),
        ("Capital spending", "cash_flow", "capital_expenditure"),
        ("Net cash used in investing activities", "cash_flow", "investing_cash_flow"),
        ("Net cash (used in) provided by financing activities", "cash_flow", "financing_cash_flow"),
        ("Dividends paid", "cash_flow", "dividends_paid"),
        ("Cash dividend payments", "cash_flow", "dividends_paid"),
        ("Dividends paid to noncontrolling interests", "cash_flow", None),
        ("Repurchases of common stock", "cash_flow", "share_repurchases"),
        ("Depreciation and amortization", "cash_flow", "depreciation_amortization"),
        ("Depreciation and amortization", "income", None),
        ("Accounts payable", "cash_flow", None),
        ("Net sales", "balance", None),
    ],
)
def test_labels_map_to_concepts_of_their_statement(
    label: str, statement: Statement, concept: str | None
) -> None:
    assert line_concept(label, statement) == concept


def test_bare_basic_and_diluted_rows_read_with_their_section() -> None:
    assert line_concept("Diluted", "income", "Net income per share:") == "eps_diluted"
    assert line_concept("Basic", "income", "Earnings per common share") == "eps_basic"
    assert line_concept("Basic", "income", "Weighted-average shares outstanding:") is None


def test_every_lexicon_concept_is_a_known_concept() -> None:
    assert set(LABELS) <= set(CONCEPTS)


def test_labels_are_normalized_before_matching() -> None:
    assert normalize_label("Total shareholders’ equity (1):") == "total shareholders' equity"
    assert normalize_label("Inventories, net (Note 6)") == "inventories, net"


@pytest.mark.parametrize(
    ("line", "statement"),
    [
        ("CONSOLIDATED STATEMENTS OF OPERATIONS", "income"),
        ("Condensed Consolidated Statement of Earnings", "income"),
        ("Consolidated statements of income (unaudited)", "income"),
        ("CONSOLIDATED BALANCE SHEETS", "balance"),
        ("Consolidated Statements of Financial Position", "balance"),
        ("Consolidated Statements of Cash Flows", "cash_flow"),
        ("CONSOLIDATED STATEMENTS OF COMPREHENSIVE INCOME", None),
        ("Consolidated Statements of Shareholders' Equity", None),
    ],
)
def test_statement_headings(line: str, statement: Statement | None) -> None:
    assert statement_heading(line) == statement


def test_question_concepts() -> None:
    assert question_concepts(
        "How much did Block generate in cash flow from operating activities in FY2020?"
    ) == ["operating_cash_flow"]
    assert question_concepts("how much total current assets did Nike have") == [
        "total_current_assets"
    ]
    assert question_concepts("What is the FY2021 capital expenditure amount?") == [
        "capital_expenditure"
    ]
    assert question_concepts("COGS and inventories") == ["cost_of_revenue", "inventories"]
