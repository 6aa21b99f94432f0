"""A tiny synthetic data dir in the shared data dir's layout (no real data copied)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

TATLLM_PROMPT = """Below is an instruction.

### Instruction

Given a table and a list of texts in the following, what is the answer to the question?

### Table

|item |2019 |2018 |
|revenue |120 |100 |
|cost ( net ) |30 |25 |

### Text

1 revenue grew strongly .
2 costs were flat
continued on a second line .
3 .

### Question

what was the change in revenue?

### Response
"""


def write_json(path: Path, data: Any) -> Path:
    """Write ``data`` as JSON, creating parent folders."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    """Write ``rows`` as JSON lines, creating parent folders."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def financebench_row(qid: str, answer: str, question: str = "What was revenue?") -> dict:
    """One FinanceBench question on ``ACME_2020_10K`` with evidence on page 3."""
    return {
        "financebench_id": qid,
        "company": "Acme",
        "doc_name": "ACME_2020_10K",
        "question_type": "metrics-generated",
        "question_reasoning": None,
        "domain_question_num": None,
        "question": question,
        "answer": answer,
        "justification": "",
        "dataset_subset_label": "OPEN_SOURCE",
        "evidence": [
            {
                "evidence_text": "Revenue 120",
                "doc_name": "ACME_2020_10K",
                "evidence_page_num": 3,
                "evidence_text_full_page": "Income statement\nRevenue 120",
            }
        ],
    }


def finqa_row(rid: str, program: str, exe_ans: Any, answer: str) -> dict:
    """One FinQA record in the original format over a two-row table."""
    return {
        "id": rid,
        "filename": rid.rpartition("-")[0],
        "pre_text": ["revenue grew ."],
        "post_text": ["costs were flat ."],
        "table": [["item", "2019", "2018"], ["revenue", "$ 120", "$ 100"]],
        "table_ori": [["Item", "2019", "2018"], ["Revenue", "$120", "$100"]],
        "qa": {
            "question": "what was the change in revenue?",
            "answer": answer,
            "program": program,
            "exe_ans": exe_ans,
            "gold_inds": {"table_1": "the revenue of 2019 is $ 120 ;", "text_0": "revenue grew ."},
        },
    }


def tatqa_context(questions: list[dict[str, Any]]) -> dict:
    """One TAT-QA context (table + two paragraphs) holding ``questions``."""
    return {
        "table": {"uid": "t1", "table": [["", "2019", "2018"], ["Sales", "$1,200", "$1,000"]]},
        "paragraphs": [
            {"uid": "p1", "order": 1, "text": "Sales are in thousands."},
            {"uid": "p2", "order": 2, "text": "Sales grew."},
        ],
        "questions": questions,
    }


def tatqa_question(uid: str, **fields: Any) -> dict:
    """A TAT-QA arithmetic question; ``fields`` override the defaults."""
    question = {
        "uid": uid,
        "order": 1,
        "question": "What is the change in sales?",
        "answer": 200,
        "derivation": "1,200-1,000",
        "answer_type": "arithmetic",
        "answer_from": "table-text",
        "rel_paragraphs": ["1"],
        "req_comparison": False,
        "scale": "thousand",
    }
    return question | fields


@pytest.fixture
def synthetic_data_dir(tmp_path: Path) -> Path:
    """A data dir with one small split of every dataset."""
    root = tmp_path / "data"
    write_jsonl(
        root / "financebench/financebench_dev.jsonl",
        [financebench_row("fb1", "$120.00", "What was revenue in USD millions?")],
    )
    write_jsonl(
        root / "financebench/financebench_document_information.jsonl",
        [
            {
                "doc_name": "ACME_2020_10K",
                "doc_type": "10k",
                "doc_period": 2020,
                "gics_sector": "Industrials",
                "company": "Acme",
                "doc_link": "http://x",
            }
        ],
    )
    write_json(root / "tatqa/tatqa_dataset_dev.json", [tatqa_context([tatqa_question("q1")])])
    write_json(
        root / "finqa/dev.original_format.json",
        [finqa_row("ACME/2019/page_5.pdf-1", "subtract(120, 100)", 20.0, "20")],
    )
    write_json(
        root / "finqa/dev9.tatllm_instruction_format.json",
        [
            {
                "id": "ACME/2019/page_5.pdf-2",
                "user_prompt": TATLLM_PROMPT,
                "resp": "The answer is: 20.0",
            }
        ],
    )
    write_jsonl(
        root / "lofin/textual_test.jsonl",
        [
            {
                "qid": "openqa_1",
                "question": "Is it up?",
                "answer": "Yes, it is.",
                "answer2": None,
                "evidences": [{"doc_name": "ACME_2020_10K", "page_num": 4}],
            }
        ],
    )
    write_jsonl(
        root / "lofin/numeric_table_test.jsonl",
        [
            {
                "qid": "openqa_2",
                "question": "Revenue?",
                "answer": "12.5%",
                "answer2": None,
                "evidences": [{"doc_name": "ACME_2020_10K", "page_num": 5}],
                "type": "table",
            }
        ],
    )
    return root
