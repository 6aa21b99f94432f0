"""LOFin: open-corpus questions over SEC filings (plaintext test release; filings not included).

Each file ``lofin/<part>_<group>.jsonl`` is a split, and ``<group>`` (e.g. ``test``) is the
union of every ``*_<group>.jsonl`` present.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from filingqa.datasets.base import DatasetLoader, read_jsonl
from filingqa.datasets.parsing import classify_answer
from filingqa.records.qa_record import Evidence, QARecord

NAME = "lofin"


def _record(row: dict[str, Any], split: str, subset: str) -> QARecord:
    text = str(row["answer"])
    answer = classify_answer(text, row["question"])
    return QARecord(
        id=row["qid"],
        dataset=NAME,
        split=split,
        question=row["question"],
        answer=text,
        answer_value=answer.value,
        answer_type=answer.answer_type,
        scale=answer.scale,
        unit=answer.unit,
        evidence=[Evidence(doc_name=e["doc_name"], page=e["page_num"]) for e in row["evidences"]],
        meta={
            "subset": subset,
            "answer2": row.get("answer2"),
            "evidence_type": row.get("type"),
            "source": "financebench" if row["qid"].startswith("financebench_") else "lofin",
        },
    )


def _read(path: Path, split: str, data_dir: Path) -> Iterator[QARecord]:
    for row in read_jsonl(path):
        yield _record(row, split, subset=path.stem)


def _notes(records: list[QARecord]) -> list[str]:
    from_financebench = sum(record.meta["source"] == "financebench" for record in records)
    return [f"{from_financebench} from FinanceBench; filings not included"]


LOADER = DatasetLoader(
    name=NAME,
    patterns=("lofin/{split}.jsonl",),
    read=_read,
    group_splits=True,
    notes=_notes,
)
