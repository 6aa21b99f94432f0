"""Every request FinancialQA sends for ten fixed questions, compared byte for byte with a
record made at a known-good commit: a restructure that changes a prompt fails here.

Regenerate the record (only when a prompt change is intended, and say so in the commit):
``FILINGQA_RECORD_REQUESTS=1 pytest tests/program/test_recorded_requests.py``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import dspy
import pytest

from filingqa.lm.evidence_first import EvidenceFirstJSONAdapter
from filingqa.program.financial_qa import FinancialQA

from ..kit import replies
from ..kit.lm import FakeEngine, Rule, by_marker
from ..kit.passages import PENSIONS, ListSearch, passage
from ..kit.replies import ACCEPT, NO_AMBIGUITY, ambiguity_report, fenced

RECORD = Path(__file__).with_name("recorded_requests.json")

CASH_FLOW = passage(
    "ACME_2024_10K:p4:tab2",
    "| | 2024 | 2023 |\n|---|---|---|\n"
    "| Net cash provided by operating activities | 812.4 | 701.9 |\n"
    "| Purchases of property and equipment | (412.6) | (355.0) |",
)
MDNA = passage(
    "ACME_2024_10K:p2:tex1",
    "Revenue grew on demand for analyzers; services were flat. Free cash flow is "
    "operating cash flow less purchases of property and equipment.",
)

KEEP_FIRST = {"keep": [1], "answerable": True, "missing": "", "complementary_query": ""}


def reject_then_accept(reason: str, missing: str = "") -> Callable[[str], dict]:
    """The verifier's verdicts: REJECT for ``reason`` once, then ACCEPT every time."""
    verdicts = [{"reasons": [reason], "missing": missing, "verdict": "REJECT"}]
    return lambda prompt: verdicts.pop() if verdicts else ACCEPT


def serialize(request: Any) -> str:
    """The request as the engine receives it: system, messages and every option."""
    return json.dumps(_plain(request), sort_keys=True, ensure_ascii=False)


def _plain(value: Any) -> Any:
    if hasattr(value, "model_dump"):
        return _plain(value.model_dump())
    if hasattr(value, "__dataclass_fields__"):
        return {name: _plain(getattr(value, name)) for name in value.__dataclass_fields__}
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    return repr(value)


def cases() -> dict[str, tuple[list[Rule], dict[str, Any]]]:
    """The ten questions with their scripted replies (made afresh: some are consumed)."""
    return {
        "gold, single pass with an ambiguity check": (
            [(replies.AMBIGUITY, NO_AMBIGUITY), (replies.WRITE, fenced("result = 812.4 - 412.6"))],
            {"question": "What was free cash flow in 2024?", "passages": [MDNA, CASH_FLOW]},
        ),
        "gold, no cue, a failed program repaired": (
            [
                (replies.REPAIR, fenced("result = 812.4 - 701.9")),
                (replies.WRITE, fenced("result = operating_2024 - 701.9")),
                (replies.VERIFY, ACCEPT),
            ],
            {
                "question": "What was the change in operating cash flow from 2023 to 2024?",
                "passages": [CASH_FLOW],
            },
        ),
        "gold, the cell check revises a neighbouring row": (
            [
                (replies.AMBIGUITY, NO_AMBIGUITY),
                (replies.REVISE, fenced("result = (57 + 44) / 2")),
                (replies.WRITE, fenced("result = (166 + 178) / 2")),
            ],
            {
                "question": "What is the 2019 average defined benefit schemes?",
                "passages": [PENSIONS],
            },
        ),
        "gold, full loop: reject, revise, accept": (
            [
                (replies.AMBIGUITY, NO_AMBIGUITY),
                (replies.REVISE, fenced("result = (812.4 - 412.6) - (701.9 - 355.0)")),
                (replies.WRITE, fenced("result = 812.4 - 412.6")),
                (replies.VERIFY, reject_then_accept("used one year only")),
            ],
            {
                "question": "How did free cash flow change from 2023 to 2024?",
                "passages": [CASH_FLOW],
            },
        ),
        "gold, an ambiguous question fans out": (
            [
                (
                    replies.AMBIGUITY,
                    ambiguity_report(
                        "terminology",
                        "free cash flow has several definitions",
                        {
                            "operating cash flow less capex": "FCF as OCF less capex in 2024?",
                            "operating cash flow": "Operating cash flow only?",
                        },
                    ),
                ),
                (
                    replies.WRITE,
                    lambda prompt: fenced(
                        "result = 812.4 - 412.6" if "less capex" in prompt else "result = 812.4"
                    ),
                ),
                (
                    replies.AGGREGATE,
                    {"answer": "By OCF less capex: 399.8 million; By OCF: 812.4 million"},
                ),
            ],
            {"question": "What was free cash flow in 2024?", "passages": [CASH_FLOW]},
        ),
        "gold, a refusal reviewed": (
            [
                (replies.AMBIGUITY, NO_AMBIGUITY),
                (replies.COT, {"reasoning": "-", "answer": "Not stated in the evidence."}),
                (
                    replies.REVIEW,
                    {"decision": "answer", "answer": "Demand for analyzers (per the MD&A)."},
                ),
            ],
            {"question": "Why did revenue grow?", "passages": [MDNA]},
        ),
        "search, Multi-HyDE with a complementary query": (
            [
                (replies.AMBIGUITY, NO_AMBIGUITY),
                (
                    replies.REWRITE,
                    {
                        "company": "Acme",
                        "period": "FY2024",
                        "variants": [
                            "operating cash flow less purchases of property and equipment"
                        ],
                    },
                ),
                (
                    replies.HYDE,
                    {
                        "hypotheses": [
                            {
                                "query": "cash flow statement",
                                "passage": "Purchases of property (412.6)",
                            },
                            {
                                "query": "MD&A liquidity",
                                "passage": "Free cash flow was 400 million.",
                            },
                        ]
                    },
                ),
                (
                    replies.CURATE,
                    {
                        "keep": [2],
                        "answerable": False,
                        "missing": "capex",
                        "complementary_query": "purchases of property and equipment 2024",
                    },
                ),
                (replies.WRITE, fenced("result = 812.4 - 412.6")),
            ],
            {
                "question": "What was Acme's free cash flow in 2024?",
                "search": ListSearch([MDNA, CASH_FLOW]),
            },
        ),
        "search, full loop with refinement": (
            [
                (replies.AMBIGUITY, NO_AMBIGUITY),
                (
                    replies.DECOMPOSE,
                    {
                        "steps": [
                            {"question": "operating cash flow 2023 2024", "kind": "retrieval"},
                            {"question": "FCF change", "kind": "computation", "formula": "change"},
                        ]
                    },
                ),
                (replies.REWRITE, {"company": "", "period": "", "variants": []}),
                (replies.CURATE, KEEP_FIRST),
                (replies.REFINE, {"queries": ["purchases of property and equipment 2023"]}),
                (replies.REVISE, fenced("result = (812.4 - 412.6) - (701.9 - 355.0)")),
                (replies.WRITE, fenced("result = 812.4 - 701.9")),
                (replies.VERIFY, reject_then_accept("capex missing", missing="capex")),
            ],
            {
                "question": "How did free cash flow change from 2023 to 2024?",
                "search": ListSearch([MDNA, CASH_FLOW]),
                "options": {"hypotheses": 0},
            },
        ),
        "search, the sign check mends a subtraction in code": (
            [
                (replies.AMBIGUITY, NO_AMBIGUITY),
                (replies.REWRITE, {"company": "Acme", "period": "FY2024", "variants": []}),
                (replies.HYDE, {"hypotheses": []}),
                (
                    replies.CURATE,
                    {"keep": [1, 2], "answerable": True, "missing": "", "complementary_query": ""},
                ),
                (replies.WRITE, fenced("result = 812.4 - -412.6")),
            ],
            {
                "question": "What was Acme's free cash flow in fiscal 2024?",
                "search": ListSearch([CASH_FLOW, MDNA]),
                "options": {"hypotheses": 1},
            },
        ),
        "search, failed query writing falls back to the question": (
            [
                (replies.AMBIGUITY, NO_AMBIGUITY),
                (replies.REWRITE, "no json here"),
                (replies.HYDE, "no json here"),
                (replies.CURATE, "no json either"),
                (replies.WRITE, fenced("result = 812.4")),
            ],
            {
                "question": "What was Acme's net cash provided by operating activities in 2024?",
                "search": ListSearch([CASH_FLOW, MDNA]),
            },
        ),
    }


def record_requests(rules: list[Rule], inputs: dict[str, Any]) -> list[str]:
    """Run one case; its requests in the order sent (fan-out readings run concurrently, so
    a case's requests are compared as a sorted list)."""
    inputs = dict(inputs)
    engine = FakeEngine(by_marker(rules))
    lm = dspy.LM("rules/test", engine=engine, cache=False, num_retries=0)
    with dspy.context(lm=lm, adapter=EvidenceFirstJSONAdapter()):  # the embedded model's
        FinancialQA(**inputs.pop("options", {}))(**inputs)
    return sorted(serialize(request) for request in engine.requests)


@pytest.fixture(scope="module")
def recorded() -> dict[str, list[str]]:
    if os.environ.get("FILINGQA_RECORD_REQUESTS") == "1":
        fresh = {name: record_requests(*case) for name, case in cases().items()}
        RECORD.write_text(json.dumps(fresh, indent=1, ensure_ascii=False) + "\n")
    return json.loads(RECORD.read_text())


def test_the_record_covers_every_case(recorded) -> None:
    assert sorted(recorded) == sorted(cases())
    assert all(recorded.values())


@pytest.mark.parametrize("name", list(cases()))
def test_requests_are_byte_identical_to_the_record(name: str, recorded) -> None:
    assert record_requests(*cases()[name]) == recorded[name]
