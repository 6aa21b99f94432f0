"""A tiny synthetic open corpus, a search handle over it, LM replies in DSPy's chat format,
and judged rows."""

from __future__ import annotations

import json
from pathlib import Path

from filingqa.evaluation.runner import Row
from filingqa.retrieval import Passage

CASH_FLOW = Passage(
    id="ACME_2024_10K:p4:tab1",
    doc_id="ACME_2024_10K",
    page=4,
    kind="table",
    text="(In millions)\n| | 2024 | 2023 |\n| Operating cash flow | 812.4 | 701.9 |\n"
    "| Purchases of property and equipment | (412.6) | (355.0) |",
)
MDNA = Passage(
    id="ACME_2024_10K:p2:tex1",
    doc_id="ACME_2024_10K",
    page=2,
    kind="text",
    text="Acme revenue grew on demand for analyzers; services were flat.",
)
OTHER = Passage(
    id="BETA_2024_10K:p9:tab1",
    doc_id="BETA_2024_10K",
    page=9,
    kind="table",
    text="(In millions)\n| | 2024 |\n| Beta operating cash flow | 95.0 |",
)
CORPUS = [MDNA, CASH_FLOW, OTHER]
QUESTION = "What was Acme's free cash flow in 2024?"


class ListSearch:
    """Passages sharing a word with the query, in corpus order; every call is recorded."""

    def __init__(self, passages: list[Passage] = CORPUS) -> None:
        self.passages = passages
        self.calls: list[dict] = []

    def search(
        self, query: str, *, k: int, company: str | None = None, period: str | None = None
    ) -> list[Passage]:
        self.calls.append({"query": query, "k": k, "company": company, "period": period})
        words = set(query.lower().split())
        return [p for p in self.passages if words & set(p.text.lower().split())][:k]


def chat(**fields: object) -> str:
    """A completion in DSPy's chat-adapter format (typed values as JSON)."""
    parts = [
        f"[[ ## {name} ## ]]\n{value if isinstance(value, str) else json.dumps(value)}"
        for name, value in fields.items()
    ]
    return "\n\n".join([*parts, "[[ ## completed ## ]]"])


def fenced(code: str) -> str:
    return f"```python\n{code}\n```"


# FinancialQA's single pass over a search handle: ambiguity, rewrite, HyDE, curation, PoT.
PROGRAM_REPLIES = [
    chat(report={"kind": "none", "reason": "", "interpretations": []}),
    chat(company="Acme", period="FY2024", variants=["operating cash flow less purchases"]),
    chat(hypotheses=[{"query": "cash flow statement", "passage": "Purchases (412.6)"}]),
    chat(keep=[1, 2], answerable=True, missing="", complementary_query=""),
    fenced("result = 812.4 - 412.6"),
]


def write_financebench(data_dir: Path) -> Path:
    """A FinanceBench dev split of two questions; the first one's gold page is page 4."""
    rows = [
        {
            "financebench_id": "fb_1",
            "company": "Acme",
            "doc_name": "ACME_2024_10K",
            "question_type": "metrics-generated",
            "question_reasoning": "subtraction",
            "domain_question_num": None,
            "question": QUESTION,
            "answer": "$399.8 million",
            "justification": "812.4 - 412.6",
            "evidence": [
                {
                    "doc_name": "ACME_2024_10K",
                    "evidence_page_num": 3,
                    "evidence_text": "Operating cash flow 812.4",
                    "evidence_text_full_page": CASH_FLOW.text,
                }
            ],
        },
        {
            "financebench_id": "fb_2",
            "company": "Beta",
            "doc_name": "BETA_2024_10K",
            "question_type": "metrics-generated",
            "question_reasoning": "lookup",
            "domain_question_num": None,
            "question": "What was Beta's operating cash flow in 2024?",
            "answer": "$95.0 million",
            "justification": "",
            "evidence": [
                {
                    "doc_name": "BETA_2024_10K",
                    "evidence_page_num": 0,
                    "evidence_text": "95.0",
                    "evidence_text_full_page": "Beta operating cash flow 95.0",
                }
            ],
        },
    ]
    folder = data_dir / "financebench"
    folder.mkdir(parents=True)
    (folder / "financebench_dev.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return data_dir


def judged_row(**fields: object) -> Row:
    """A judged row: a right answer "1" to question "Q" in one LM call, unless ``fields``
    say otherwise."""
    defaults = {
        "id": "q1",
        "question": "Q",
        "gold": "1",
        "answer": "1",
        "outcome": "answered",
        "score": 1.0,
        "judge_reason": "",
        "judge_stage": "numeric",
        "answer_type": "number",
        "lm_calls": 1,
        "tokens": 10,
        "seconds": 1.0,
    }
    return Row.model_validate(defaults | fields)
