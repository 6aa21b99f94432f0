"""What a fake LM says: completions in the program's formats, the markers that tell
FinancialQA's prompts apart, and canned replies to them."""

from __future__ import annotations

import json

AMBIGUITY = "more than one reasonable answer"
DECOMPOSE = "Split a question about company filings"
REWRITE = "Rewrite a question about a company filing"
HYDE = "Write different search queries for the question"
CURATE = "Choose the passages of the evidence needed"
WRITE = "Write Python code that computes"
REPAIR = "The program above failed"
REVISE = "its answer was rejected"
VERIFY = "Check a draft answer against the evidence"
REFINE = "Write new search questions"
COT = "in a sentence or two"
REVIEW = "A draft answer refused"
AGGREGATE = "Combine the answers to each reading"
FORM = "Decide what form the answer"
QUOTE = "copying the shortest words of the evidence"
EXPLAIN = "by copying, word for word, the sentence or two"
ITEMS = "Answer with every item the question asks for"
DECIDE = "Decide a yes/no question from the evidence"
STATE = "State a computed result in the form the question asks for"

ACCEPT = {"reasons": ["inputs match the table"], "missing": "", "verdict": "ACCEPT"}
CONFIRM_REFUSAL = {"decision": "refuse", "answer": "the evidence does not state it"}


def ambiguity_report(kind: str, reason: str, readings: dict[str, str]) -> dict:
    """The ambiguity check's reply: the ``kind`` of ambiguity, why, and each reading as its
    axis and the question it asks."""
    interpretations = [{"axis": axis, "question": q} for axis, q in readings.items()]
    return {"report": {"kind": kind, "reason": reason, "interpretations": interpretations}}


NO_AMBIGUITY = ambiguity_report("none", "", {})
FCF_READINGS = ambiguity_report(
    "terminology",
    "free cash flow has several definitions",
    {
        "operating cash flow less capex": "FCF as OCF less capex?",
        "operating cash flow": "Operating cash flow only?",
    },
)


def fenced(code: str) -> str:
    """A completion holding ``code`` as one fenced Python block."""
    return f"```python\n{code}\n```"


def chat(**fields: object) -> str:
    """A completion in DSPy's chat-adapter format (typed values as JSON)."""
    parts = [
        f"[[ ## {name} ## ]]\n{value if isinstance(value, str) else json.dumps(value)}"
        for name, value in fields.items()
    ]
    return "\n\n".join([*parts, "[[ ## completed ## ]]"])


def program_replies(
    company: str = "Acme", code: str = "result = 812.4 - 412.6", *, ambiguity_cue: bool = True
) -> list[str]:
    """FinancialQA's single pass over a search handle, in the chat format: the ambiguity
    check (asked only when the question has a cue), the rewrite naming ``company``, HyDE,
    curation, then the program ``code``."""
    ambiguity = [chat(**NO_AMBIGUITY)] if ambiguity_cue else []
    return [
        *ambiguity,
        chat(company=company, period="FY2024", variants=["operating cash flow"]),
        chat(hypotheses=[{"query": "cash flow statement", "passage": "Operating cash flow"}]),
        chat(keep=[1, 2], answerable=True, missing="", complementary_query=""),
        fenced(code),
    ]
