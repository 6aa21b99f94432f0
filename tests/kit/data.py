"""Evaluation data: a FinanceBench dev split on disk and judged rows."""

from __future__ import annotations

import json
from pathlib import Path

from filingqa.evaluation.runner import Row

from .passages import CASH_FLOW, QUESTION


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
