"""Every request FinancialQA sends for ten fixed questions, compared byte for byte with a
record made at a known-good commit: a restructure that changes a prompt fails here.

Regenerate the record (only when a prompt change is intended, and say so in the commit):
``FILINGQA_RECORD_REQUESTS=1 pytest tests/program/test_recorded_requests.py``.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import dspy
import pytest

from filingqa.program.financial_qa import FinancialQA
from filingqa.retrieval import Passage

RECORD = Path(__file__).with_name("recorded_requests.json")

CASH_FLOW = Passage(
    id="ACME_2024_10K:p4:tab2",
    doc_id="ACME_2024_10K",
    page=4,
    kind="table",
    text="| | 2024 | 2023 |\n|---|---|---|\n"
    "| Net cash provided by operating activities | 812.4 | 701.9 |\n"
    "| Purchases of property and equipment | (412.6) | (355.0) |",
)
MDNA = Passage(
    id="ACME_2024_10K:p2:tex1",
    doc_id="ACME_2024_10K",
    page=2,
    kind="text",
    text="Revenue grew on demand for analyzers; services were flat. Free cash flow is "
    "operating cash flow less purchases of property and equipment.",
)
PENSIONS = Passage(
    id="ACME_2019_AR:p9:tab1",
    doc_id="ACME_2019_AR",
    page=9,
    kind="table",
    text="| | 2019 | 2018 |\n|---|---|---|\n| Defined contribution schemes | 166 | 178 |\n"
    "| Defined benefit schemes | 57 | 44 |",
)

AMBIGUITY = "more than one reasonable answer"
AGGREGATE = "Combine the answers to each reading"
DECOMPOSE = "Split a question about company filings"
REWRITE = "line-item vocabulary"
HYDE = "different search queries"
CURATE = "Choose the retrieved passages"
WRITE = "Write Python code that computes"
REPAIR = "failed when it ran"
REVISE = "its answer was rejected"
VERIFY = "Check a draft answer against the evidence"
REFINE = "Write new search questions"
COT = "in a sentence or two"
REVIEW = "A draft answer refused"

NONE = {"report": {"kind": "none", "reason": "", "interpretations": []}}
ACCEPT = {"reasons": ["inputs match the table"], "missing": "", "verdict": "ACCEPT"}
KEEP_FIRST = {"keep": [1], "answerable": True, "missing": "", "complementary_query": ""}
Reply = str | dict | Callable[[str], str | dict]


def fenced(code: str) -> str:
    return f"```python\n{code}\n```"


def in_turn(*replies: Reply) -> Callable[[str], str | dict]:
    """Replies given one after another (the last one repeats)."""
    queue = list(replies)
    return lambda prompt: queue.pop(0) if len(queue) > 1 else queue[0]


class RecordingEngine:
    """Replies chosen by what the prompt asks; every request kept, serialized whole."""

    def __init__(self, rules: list[tuple[str, Reply]]) -> None:
        self.rules = rules
        self.requests: list[str] = []
        self._lock = threading.Lock()

    def complete(self, request: Any) -> Any:
        from dspy.lm15 import Message, Response, TextPart, Usage

        system = request.system if isinstance(request.system, str) else ""
        prompt = system + "\n" + "\n".join(m.text or "" for m in request.messages)
        with self._lock:
            self.requests.append(serialize(request))
            for marker, reply in self.rules:
                if marker in prompt:
                    text = reply(prompt) if callable(reply) else reply
                    break
            else:
                raise AssertionError(f"no rule for prompt: {prompt[:300]}")
        text = text if isinstance(text, str) else json.dumps(text)
        return Response(
            id=None,
            model="rules",
            message=Message.assistant([TextPart(text)]),
            finish_reason="stop",
            usage=Usage(input_tokens=10, output_tokens=5, total_tokens=15),
        )

    def stream(self, request: Any) -> Any:
        from dspy.lm15 import response_to_events

        return response_to_events(self.complete(request))

    def close(self) -> None:
        pass


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


class ListSearch:
    """A search handle over a list: passages sharing a word with the query, in order."""

    def __init__(self, passages: list[Passage]) -> None:
        self.passages = passages

    def search(self, query: str, *, k: int, company=None, period=None) -> list[Passage]:
        words = set(query.lower().split())
        return [p for p in self.passages if words & set(p.text.lower().split())][:k]


def _readings(first: str, second: str) -> dict:
    return {
        "report": {
            "kind": "terminology",
            "reason": "free cash flow has several definitions",
            "interpretations": [
                {"axis": "operating cash flow less capex", "question": first},
                {"axis": "operating cash flow", "question": second},
            ],
        }
    }


def cases() -> dict[str, tuple[list[tuple[str, Reply]], dict[str, Any]]]:
    """The ten questions with their scripted replies (made afresh: some are consumed)."""
    return {
        "gold, single pass with an ambiguity check": (
            [(AMBIGUITY, NONE), (WRITE, fenced("result = 812.4 - 412.6"))],
            {"question": "What was free cash flow in 2024?", "passages": [MDNA, CASH_FLOW]},
        ),
        "gold, no cue, a failed program repaired": (
            [
                (REPAIR, fenced("result = 812.4 - 701.9")),
                (WRITE, fenced("result = operating_2024 - 701.9")),
                (VERIFY, ACCEPT),
            ],
            {
                "question": "What was the change in operating cash flow from 2023 to 2024?",
                "passages": [CASH_FLOW],
            },
        ),
        "gold, the cell check revises a neighbouring row": (
            [
                (AMBIGUITY, NONE),
                (REVISE, fenced("result = (57 + 44) / 2")),
                (WRITE, fenced("result = (166 + 178) / 2")),
            ],
            {
                "question": "What is the 2019 average defined benefit schemes?",
                "passages": [PENSIONS],
            },
        ),
        "gold, full loop: reject, revise, accept": (
            [
                (AMBIGUITY, NONE),
                (REVISE, fenced("result = (812.4 - 412.6) - (701.9 - 355.0)")),
                (WRITE, fenced("result = 812.4 - 412.6")),
                (
                    VERIFY,
                    in_turn(
                        {"reasons": ["used one year only"], "missing": "", "verdict": "REJECT"},
                        ACCEPT,
                    ),
                ),
            ],
            {
                "question": "How did free cash flow change from 2023 to 2024?",
                "passages": [CASH_FLOW],
            },
        ),
        "gold, an ambiguous question fans out": (
            [
                (
                    AMBIGUITY,
                    _readings("FCF as OCF less capex in 2024?", "Operating cash flow only?"),
                ),
                (
                    WRITE,
                    lambda prompt: fenced(
                        "result = 812.4 - 412.6" if "less capex" in prompt else "result = 812.4"
                    ),
                ),
                (AGGREGATE, {"answer": "By OCF less capex: 399.8 million; By OCF: 812.4 million"}),
            ],
            {"question": "What was free cash flow in 2024?", "passages": [CASH_FLOW]},
        ),
        "gold, a refusal reviewed": (
            [
                (AMBIGUITY, NONE),
                (COT, {"reasoning": "-", "answer": "Not stated in the evidence."}),
                (REVIEW, {"decision": "answer", "answer": "Demand for analyzers (per the MD&A)."}),
            ],
            {"question": "Why did revenue grow?", "passages": [MDNA]},
        ),
        "search, Multi-HyDE with a complementary query": (
            [
                (AMBIGUITY, NONE),
                (
                    REWRITE,
                    {
                        "company": "Acme",
                        "period": "FY2024",
                        "variants": [
                            "operating cash flow less purchases of property and equipment"
                        ],
                    },
                ),
                (
                    HYDE,
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
                    CURATE,
                    {
                        "keep": [2],
                        "answerable": False,
                        "missing": "capex",
                        "complementary_query": "purchases of property and equipment 2024",
                    },
                ),
                (WRITE, fenced("result = 812.4 - 412.6")),
            ],
            {
                "question": "What was Acme's free cash flow in 2024?",
                "search": ListSearch([MDNA, CASH_FLOW]),
            },
        ),
        "search, full loop with refinement": (
            [
                (AMBIGUITY, NONE),
                (
                    DECOMPOSE,
                    {
                        "steps": [
                            {"question": "operating cash flow 2023 2024", "kind": "retrieval"},
                            {"question": "FCF change", "kind": "computation", "formula": "change"},
                        ]
                    },
                ),
                (REWRITE, {"company": "", "period": "", "variants": []}),
                (CURATE, KEEP_FIRST),
                (REFINE, {"queries": ["purchases of property and equipment 2023"]}),
                (REVISE, fenced("result = (812.4 - 412.6) - (701.9 - 355.0)")),
                (WRITE, fenced("result = 812.4 - 701.9")),
                (
                    VERIFY,
                    in_turn(
                        {"reasons": ["capex missing"], "missing": "capex", "verdict": "REJECT"},
                        ACCEPT,
                    ),
                ),
            ],
            {
                "question": "How did free cash flow change from 2023 to 2024?",
                "search": ListSearch([MDNA, CASH_FLOW]),
                "options": {"hypotheses": 0},
            },
        ),
        "search, the sign check sends a subtraction back": (
            [
                (AMBIGUITY, NONE),
                (REWRITE, {"company": "Acme", "period": "FY2024", "variants": []}),
                (HYDE, {"hypotheses": []}),
                (
                    CURATE,
                    {"keep": [1, 2], "answerable": True, "missing": "", "complementary_query": ""},
                ),
                (REVISE, fenced("result = 812.4 + (-412.6)")),
                (WRITE, fenced("result = 812.4 - -412.6")),
            ],
            {
                "question": "What was Acme's free cash flow in fiscal 2024?",
                "search": ListSearch([CASH_FLOW, MDNA]),
                "options": {"hypotheses": 1},
            },
        ),
        "search, failed query writing falls back to the question": (
            [
                (AMBIGUITY, NONE),
                (REWRITE, "no json here"),
                (HYDE, "no json here"),
                (CURATE, "no json either"),
                (WRITE, fenced("result = 812.4")),
            ],
            {
                "question": "What was Acme's net cash provided by operating activities in 2024?",
                "search": ListSearch([CASH_FLOW, MDNA]),
            },
        ),
    }


def record_requests(rules: list[tuple[str, Reply]], inputs: dict[str, Any]) -> list[str]:
    """Run one case; its requests in the order sent (fan-out readings run concurrently, so
    a case's requests are compared as a sorted list)."""
    inputs = dict(inputs)
    engine = RecordingEngine(rules)
    lm = dspy.LM("rules/test", engine=engine, cache=False, num_retries=0)
    with dspy.context(lm=lm, adapter=dspy.JSONAdapter()):
        FinancialQA(**inputs.pop("options", {}))(**inputs)
    return sorted(engine.requests)


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
