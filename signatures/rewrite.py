"""Rewrite: the question in the vocabulary filings use, with company and period resolved."""

from __future__ import annotations

from typing import Annotated

import dspy
from pydantic import Field

# A query's length bound for decoding under a JSON-schema grammar only (a longer variant
# from an API backbone still validates).
Variant = Annotated[str, Field(json_schema_extra={"maxLength": 160})]


class RewriteQuery(dspy.Signature):
    """Rewrite a question about a company filing into the line-item vocabulary of filings.

    Colloquial terms become the captions statements use ("capex" becomes "purchases of
    property, plant and equipment"; "residual value to equity holders" becomes "tangible
    book value per share"). A question that already uses line items is kept nearly as is.
    """

    question: str = dspy.InputField()
    company: str = dspy.OutputField(desc="the company asked about, or empty")
    period: str = dspy.OutputField(desc="the fiscal period as asked, e.g. FY2023 or Q2 FY2024")
    variants: list[Variant] = dspy.OutputField(desc="1 to 3 search queries in line-item words")
