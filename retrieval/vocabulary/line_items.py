"""The row labels financial statements print, mapped to normalized concepts.

:func:`line_concept` reads a printed label ("Net cash provided by operating activities",
"Purchases of property, plant and equipment", "Cost of products sold") as a concept of
:mod:`filingqa.records.concepts`, within the statement it is printed in (a label means a
concept only in its own statement: "Depreciation and amortization" of a cash-flow statement
is the add-back, of an income statement an operating expense). A bare "Basic" or "Diluted"
row is read with its section ("Net income per share:"). :func:`statement_heading` names the
statement a heading line titles ("CONSOLIDATED STATEMENTS OF CASH FLOWS").
"""

from __future__ import annotations

import re
from functools import lru_cache

from filingqa.records.concepts import CONCEPTS, Statement

_NET = r"(?:net )?"
_FLOW = (
    r"(?:total )?(?:net )?cash(?: flows?)? (?:provided|used|generated|from|received|\(used"
    r"|\(provided)"
)

LABELS: dict[str, tuple[str, ...]] = {
    # income statement
    "revenue": (
        r"(?:total )?(?:net )?(?:operating )?(?:revenues?|sales)(?:,? net)?",
        r"(?:total )?net (?:sales|revenues?) and (?:other )?(?:operating )?revenues?",
        r"sales to customers",
        r"total (?:net )?revenues?,? net of interest expense",
    ),
    "cost_of_revenue": (
        r"(?:total )?costs? of (?:net )?(?:sales|revenues?|goods sold|products sold|merchandise"
        r" sold)\b.*",
        r"cost of sales, buying and occupancy",
        r"merchandise costs",
        r"costs? of (?:merchandise|products|goods|services)",
    ),
    "gross_profit": (r"(?:total )?gross (?:profit|margin)",),
    "sga": (
        r"(?:total )?(?:selling|marketing|sales and marketing)?,? ?general,? and administrative"
        r"(?: expenses?)?",
        r"selling, general and administrative expenses?",
        r"(?:selling|marketing), general (?:and|&) administrative expenses?",
        r"sg&a(?: expenses?)?",
    ),
    "research_development": (
        r"research,? (?:and|&) development(?: expenses?| costs?)?(?:,? net)?",
        r"research, development and related expenses",
        r"technology and development",
    ),
    "operating_expenses": (r"total (?:operating )?(?:costs and )?expenses",),
    "operating_income": (
        r"(?:total )?operating (?:income|profit|earnings|loss)(?: \(loss\))?",
        r"(?:\(loss\) ?/? ?)?(?:income|earnings|profit|loss)(?: ?/? ?\((?:loss|income)\))?"
        r" from operations",
        r"operating \(loss\) income",
    ),
    "interest_expense": (r"interest expense(?:,? net)?", r"interest (?:expense )?on debt"),
    "pretax_income": (
        r"(?:\(loss\) )?(?:income|earnings|loss)(?: \(loss\))?(?: from continuing operations)?"
        r" before (?:provision for )?(?:income )?tax(?:es)?(?: on income)?\b.*",
        r"earnings before provision for taxes on income",
    ),
    "income_tax_expense": (
        r"(?:\(benefit\) )?provision for (?:\(benefit from\) )?(?:income )?taxes(?: on income)?"
        r"(?: \(benefit\))?",
        r"(?:provision for )?income tax(?:es)?(?: expense| provision)?(?: \(benefit\))?"
        r"(?: \(expense\) benefit)?",
        r"income tax (?:\(expense\) ?/? ?benefit|expense \(benefit\)|\(benefit\) expense"
        r"|benefit ?/? ?\(expense\))",
    ),
    "net_income": (
        r"net (?:income|earnings|loss|profit)(?: \(loss\))?",
        r"net \(loss\) (?:income|earnings)",
        r"net (?:income|earnings),? including (?:earnings attributable to )?(?:redeemable and )?"
        r"noncontrolling interests?",
        r"consolidated net (?:income|earnings)",
    ),
    "net_income_attributable": (
        r"net (?:income|earnings)(?: \(loss\))? attributable to (?!noncontrolling).*",
        r"net (?:income|earnings) (?:available|applicable) to common (?:stock|share)holders",
    ),
    "eps_basic": (
        r"basic (?:net )?(?:earnings|income|loss)(?: \(loss\))? per (?:common )?share\b.*",
        r"(?:net )?(?:earnings|income|loss)(?: \(loss\))? per (?:common )?share,? basic\b.*",
    ),
    "eps_diluted": (
        r"diluted (?:net )?(?:earnings|income|loss)(?: \(loss\))? per (?:common )?share\b.*",
        r"(?:net )?(?:earnings|income|loss)(?: \(loss\))? per (?:common )?share,? diluted\b.*",
    ),
    "restructuring": (r"restructuring(?: charges| costs| and (?:other|impairment) charges)?",),
    # balance sheet
    "cash_and_equivalents": (r"cash and (?:cash )?equivalents\b.*", r"cash and due from banks"),
    "short_term_investments": (
        r"short-term investments?",
        r"(?:short-term )?marketable securities(?:, current)?",
    ),
    "accounts_receivable": (
        r"(?:trade |accounts |trade accounts |accounts and notes |notes and accounts )?"
        r"receivables?(?:,? net| -|,? less| \(net| net of)?.*",
        r"accounts receivable.*",
    ),
    "inventories": (r"(?:merchandise )?inventor(?:y|ies)(?:,? net)?",),
    "total_current_assets": (r"total current assets",),
    "property_plant_equipment": (
        r"(?:net )?property,? (?:plant,? )?(?:and|&) equipment(?:,? net| - net)?\b(?!.*gross).*",
        r"(?:net )?property and equipment(?:,? net)?.*",
    ),
    "total_assets": (r"total assets",),
    "accounts_payable": (
        r"(?:trade )?accounts payable(?:,? trade)?(?: and accrued .*)?",
        r"trade (?:accounts )?payables?",
    ),
    "short_term_debt": (
        r"short-term (?:debt|borrowings)(?: and .*)?",
        r"(?:current portion|current maturities) of long-term (?:debt|borrowings)\b.*",
        r"(?:loans|notes) payable",
        r"short-term obligations",
        r"commercial paper",
    ),
    "total_current_liabilities": (r"total current liabilities",),
    "long_term_debt": (
        r"long-term (?:debt|borrowings)(?!.*current (?:portion|maturities)$).*",
        r"long-term debt,? (?:net of|less|excluding) current (?:portion|maturities).*",
    ),
    "total_liabilities": (r"total liabilities",),
    "total_equity": (
        r"total (?:[\w.&,' -]+ )?(?:share|stock)(?:holders|owners)s?'? equity(?: \(deficit\))?",
        r"total (?:shareholders|stockholders)'? \(deficit\) equity",
        r"total equity(?: \(deficit\))?",
    ),
    # cash-flow statement
    "operating_cash_flow": (
        rf"{_FLOW}.*operating activities\b.*",
        r"(?:net )?cash (?:provided|generated) (?:by|from) operations",
    ),
    "depreciation_amortization": (
        r"depreciation(?:,| and| &)? (?:depletion and )?amortization\b.*",
        r"depreciation",
    ),
    "capital_expenditure": (
        r"(?:purchases?|payments?|additions?|acquisitions?|expenditures?|investments?) "
        r"(?:of|for|to|in) (?:property|premises|plant|fixed assets|capital assets).*",
        r"capital (?:expenditures|spending)\b.*",
        r"property,? (?:plant )?and equipment (?:additions|expenditures|acquired)",
    ),
    "investing_cash_flow": (rf"{_FLOW}.*investing activities\b.*",),
    "financing_cash_flow": (rf"{_FLOW}.*financing activities\b.*",),
    "dividends_paid": (
        r"(?:cash )?dividends(?: paid)?(?: to (?:common |company )?(?:share|stock)holders)?"
        r"(?: on common stock)?",
        r"(?:payments?|payment) (?:of|for) (?:cash )?dividends(?! to noncontrolling).*",
        r"(?:cash )?dividends paid(?! to noncontrolling).*",
        r"dividends on common (?:stock|shares)",
        r"(?:cash )?dividends? payments?(?! to noncontrolling).*",
    ),
    "share_repurchases": (
        r"(?:repurchases?|purchases?|buybacks?|payments for repurchases?) of (?:the company's )?"
        r"(?:common |ordinary |capital |treasury )?(?:stock|shares)\b.*",
        r"(?:share|stock) repurchases?(?: programs?)?",
        r"treasury stock (?:acquired|purchases?|purchased)",
        r"common stock repurchased",
    ),
}
"""Concept → full-match patterns over a normalized label (see :func:`normalize_label`)."""

QUESTION_PHRASES: dict[str, tuple[str, ...]] = {
    "revenue": ("revenue", "revenues", "net sales", "total sales", "top line"),
    "cost_of_revenue": ("cogs", "cost of goods sold", "cost of sales", "cost of revenue"),
    "gross_profit": ("gross profit",),
    "sga": ("sg&a", "selling general and administrative"),
    "research_development": ("r&d", "research and development"),
    "operating_income": ("operating income", "operating profit", "income from operations"),
    "interest_expense": ("interest expense",),
    "pretax_income": ("income before taxes", "income before income taxes", "pretax income"),
    "income_tax_expense": ("income tax expense", "provision for income taxes", "tax expense"),
    "net_income": ("net income", "net earnings", "net profit"),
    "eps_basic": ("basic eps", "basic earnings per share"),
    "eps_diluted": ("diluted eps", "diluted earnings per share"),
    "cash_and_equivalents": ("cash and cash equivalents", "cash & cash equivalents"),
    "accounts_receivable": ("accounts receivable",),
    "inventories": ("inventory", "inventories"),
    "total_current_assets": ("total current assets", "current assets"),
    "property_plant_equipment": ("pp&e", "property plant and equipment", "fixed assets"),
    "total_assets": ("total assets",),
    "accounts_payable": ("accounts payable",),
    "total_current_liabilities": ("total current liabilities", "current liabilities"),
    "long_term_debt": ("long-term debt", "long term debt"),
    "total_liabilities": ("total liabilities",),
    "total_equity": ("shareholders equity", "stockholders equity", "total equity"),
    "operating_cash_flow": (
        "cash flow from operating activities",
        "cash flows from operating activities",
        "cash provided by operating activities",
        "operating cash flow",
        "cash from operations",
    ),
    "depreciation_amortization": ("depreciation and amortization", "d&a"),
    "capital_expenditure": ("capital expenditure", "capital expenditures", "capex"),
    "dividends_paid": ("dividends paid", "cash dividends", "dividends"),
    "share_repurchases": ("share repurchases", "buybacks", "repurchases of common stock"),
}
"""Concept → how questions name it."""

_EPS_SECTION = re.compile(r"per (?:common )?share|\beps\b")

HEADINGS: dict[Statement, re.Pattern[str]] = {
    "income": re.compile(
        r"statements? of (?:consolidated )?(?:operations|income|earnings)\b|income statements?\b",
        re.IGNORECASE,
    ),
    "balance": re.compile(
        r"balance sheets?\b|statements? of (?:consolidated )?financial (?:position|condition)",
        re.IGNORECASE,
    ),
    "cash_flow": re.compile(
        r"statements? of (?:consolidated )?cash flows?\b|cash flows? statements?\b", re.IGNORECASE
    ),
}
"""Statement → the words of its heading."""


def normalize_label(label: str) -> str:
    """A row label lower-cased, footnote marks and trailing colons dropped, spaces and
    apostrophes made uniform ("Total shareholders’ equity (1):" → "total shareholders' equity")."""
    text = label.lower().replace("’", "'").replace("–", "-").replace("—", "-")
    text = re.sub(r"\s*\((?:[a-z]|\d{1,2}|note \d+)\)\s*", " ", text)  # (a), (1), (note 4)
    text = re.sub(r"\s*\*+|\s*\$\s*$", "", text)
    text = re.sub(r"\s+", " ", text).strip(" :.;")
    return text


@lru_cache(maxsize=4)
def _patterns(statement: Statement) -> tuple[tuple[str, re.Pattern[str]], ...]:
    return tuple(
        (name, re.compile("|".join(f"(?:{p})" for p in patterns)))
        for name, patterns in LABELS.items()
        if CONCEPTS[name].statement == statement
    )


def line_concept(label: str, statement: Statement, section: str | None = None) -> str | None:
    """The concept a row ``label`` of ``statement`` stands for, or None.

    A bare "Basic" / "Diluted" row is an EPS when its section speaks of a per-share figure.
    """
    text = normalize_label(label)
    if statement == "income" and text in ("basic", "diluted"):
        under = normalize_label(section or "")
        return f"eps_{text}" if _EPS_SECTION.search(under) else None
    for name, pattern in _patterns(statement):
        if pattern.fullmatch(text):
            return name
    return None


def statement_heading(line: str) -> Statement | None:
    """The statement a heading line titles, or None (a statement of comprehensive income or
    of equity titles none)."""
    for statement, pattern in HEADINGS.items():
        if pattern.search(line):
            return statement
    return None


@lru_cache(maxsize=1)
def _question_pattern() -> re.Pattern[str]:
    phrases = {p: name for name, group in QUESTION_PHRASES.items() for p in group}
    ordered = sorted(phrases, key=len, reverse=True)
    return re.compile(r"(?<![\w&])(?:" + "|".join(re.escape(p) for p in ordered) + r")(?![\w&])")


def question_concepts(text: str) -> list[str]:
    """The concepts a question names, in order of first mention ("How much total current
    assets ..." → ``["total_current_assets"]``; a longer phrase wins over one inside it)."""
    phrases = {p: name for name, group in QUESTION_PHRASES.items() for p in group}
    flat = " ".join(re.sub(r"[^a-z0-9&\-]+", " ", text.lower().replace("'", "")).split())
    found = (phrases[m[0]] for m in _question_pattern().finditer(flat))
    return list(dict.fromkeys(found))
