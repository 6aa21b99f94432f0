"""A shareable copy of an eval setting's rows: all that the run produced, none of the
dataset's text — the question, the gold answer, and the judge's reason (which quotes the
gold) are left out — so the copy can be committed beside the code it measured.

A run that is given the copy restores the rows its own rows file lacks, filling the question
and gold back in from the dataset, and then goes on; so one long run can span machines.
"""

from __future__ import annotations

import json
from pathlib import Path

from filingqa.evaluation.runner import Row, read_rows
from filingqa.records import QARecord

DATASET_TEXT = frozenset({"question", "gold", "judge_reason"})
RESTORED_REASON = "(restored from the published rows, which do not keep the judge's reason)"


def published_line(row: Row) -> str:
    """``row`` as one JSONL line without the dataset's text."""
    return row.model_dump_json(exclude=set(DATASET_TEXT)) + "\n"


def restore(path: Path, records: list[QARecord]) -> list[Row]:
    """The published rows in ``path`` of ``records``, question and gold taken from them;
    rows of other records, and a torn last line, are skipped."""
    by_id = {record.id: record for record in records}
    rows = []
    for data in _read(path):
        key = data.get("id")
        record = by_id.get(key) if isinstance(key, str) else None
        if record is None:
            continue
        text = {"question": record.question, "gold": record.answer}
        rows.append(Row.model_validate({**data, **text, "judge_reason": RESTORED_REASON}))
    return rows


def read_run_rows(path: Path, records: list[QARecord]) -> list[Row]:
    """The rows in ``path``, whether a run wrote them or they were published (then question
    and gold are taken from ``records``)."""
    return read_rows(path) or restore(path, records)


def restore_missing(path: Path, rows_path: Path, records: list[QARecord]) -> int:
    """Add to ``rows_path`` the published rows in ``path`` of ``records`` that it lacks;
    return how many were added."""
    rows = read_rows(rows_path)
    have = {row.id for row in rows}
    missing = [row for row in restore(path, records) if row.id not in have]
    if missing:
        rows_path.parent.mkdir(parents=True, exist_ok=True)
        temporary = rows_path.with_suffix(".restoring")
        temporary.write_text("".join(r.model_dump_json() + "\n" for r in [*rows, *missing]))
        temporary.replace(rows_path)
    return len(missing)


def write_published(path: Path, rows: list[Row]) -> None:
    """Make ``path`` hold ``rows`` (replacing a published row of the same id) and the
    published rows of other records it already had."""
    kept = {data["id"]: json.dumps(data) + "\n" for data in _read(path) if "id" in data}
    kept.update({row.id: published_line(row) for row in rows})
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(".writing")
    temporary.write_text("".join(kept.values()), encoding="utf-8")
    temporary.replace(path)


def append_published(path: Path, row: Row) -> None:
    """Add one finished row to ``path``."""
    with path.open("a", encoding="utf-8") as out:
        out.write(published_line(row))


def _read(path: Path) -> list[dict]:
    if not path.exists():
        return []
    found = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            data = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(data, dict):
            found.append(data)
    return found
