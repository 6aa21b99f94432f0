"""ConvFinQA: conversational FinQA, one record per turn (Program-of-Thoughts format).

Only the last turn's answer is stored in this format; earlier turns' gold answers are
computed by running that turn's program in :mod:`filingqa.sandbox` (cached on disk by
program text, so each program runs once).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from filingqa.core.cache import disk_cache
from filingqa.datasets.base import DatasetError, DatasetLoader, read_json
from filingqa.datasets.parsing import format_number, parse_pipe_table
from filingqa.records.qa_record import (
    AnswerType,
    Context,
    Evidence,
    Paragraph,
    QARecord,
    Table,
    Turn,
)

NAME = "convfinqa"
CACHE_NAME = "convfinqa_turns"
ANSWER_DECIMALS = 5  # as FinQA's executed answers (exe_ans)
_PERCENT_LITERAL = re.compile(r"(\d+(?:\.\d+)?)\s*%")
PREFETCH_CONVERSATIONS = 32  # conversations whose programs are run concurrently at a time


def turn_program_to_python(program: str) -> str:
    """Python assigning ``result`` = a turn's program's ``ans``.

    A few programs hold percent literals (``ans = 13.4%``); as in FinQA they mean x/100
    (later turns of those conversations use ``0.134``).
    """
    return _PERCENT_LITERAL.sub(r"(\1 / 100)", program) + "\nresult = ans"


def execute_turn_program(program: str) -> float | bool:
    """The value of a turn's program (:func:`turn_program_to_python`), rounded like FinQA's
    ``exe_ans``.

    Raises:
        DatasetError: the program fails or does not produce a number or bool.
    """
    cache = disk_cache(CACHE_NAME)
    cached = cache.get(program)
    if cached is not None:
        return cached
    from filingqa.sandbox import run_python

    outcome = run_python(turn_program_to_python(program))
    value = outcome.value
    if not outcome.ok or not isinstance(value, int | float):
        raise DatasetError(f"ConvFinQA program did not give a number: {program!r}: {outcome}")
    value = value if isinstance(value, bool) else round(float(value), ANSWER_DECIMALS)
    cache.set(program, value)
    return value


def _gold(value: float | bool | str) -> tuple[AnswerType, str, float | bool]:
    """``(answer_type, answer text, answer_value)`` of an executed or stored answer."""
    if isinstance(value, str):
        return "yes_no", value, value.lower() == "yes"
    if isinstance(value, bool):
        return "yes_no", "yes" if value else "no", value
    return "number", format_number(float(value)), float(value)


def _table_rows(table: list[list[str]], lines: str) -> list[int]:
    gold = parse_pipe_table(lines)
    return [index for index, row in enumerate(table) if row in gold]


def _records(item: dict[str, Any], split: str) -> Iterator[QARecord]:
    conversation = item["id"]
    kind, _, finqa_id = conversation.partition("_")
    filename = finqa_id.rpartition("-")[0]
    table = parse_pipe_table(item["table"])
    context = Context(
        tables=[Table(id="table", rows=table)],
        paragraphs=[Paragraph(id="text", text=item["text"])],
    )
    evidence = []
    if item.get("golden_table", "").strip():
        rows = _table_rows(table, item["golden_table"])
        evidence.append(Evidence(doc_name=filename, text=item["golden_table"], table_rows=rows))
    if item.get("golden_text", "").strip():
        evidence.append(Evidence(doc_name=filename, text=item["golden_text"], text_ids=["text"]))
    history: list[Turn] = []
    last = len(item["questions"]) - 1
    turns = zip(item["questions"], item["programs"], strict=True)
    for turn, (question, program) in enumerate(turns):
        gold = item["answer"] if turn == last else execute_turn_program(program)
        answer_type, answer, value = _gold(gold)
        yield QARecord(
            id=f"{conversation}/turn{turn}",
            dataset=NAME,
            split=split,
            question=question,
            answer=answer,
            answer_value=value,
            answer_type=answer_type,
            evidence=evidence,
            context=context,
            documents=[filename],
            gold_program=program,
            history=list(history),
            meta={
                "conversation_id": conversation,
                "turn": turn,
                "n_turns": last + 1,
                "kind": kind,
                "finqa_id": finqa_id,
                "answer_executed": turn != last,
            },
        )
        history.append(Turn(question=question, answer=answer, program=program))


def _prefetch(programs: list[str]) -> None:
    """Run the uncached ``programs`` concurrently, filling the cache."""
    cache = disk_cache(CACHE_NAME)
    missing = list(dict.fromkeys(program for program in programs if program not in cache))
    if missing:
        with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
            list(pool.map(execute_turn_program, missing))


def _read(path: Path, split: str, data_dir: Path) -> Iterator[QARecord]:
    items = read_json(path)
    for start in range(0, len(items), PREFETCH_CONVERSATIONS):
        chunk = items[start : start + PREFETCH_CONVERSATIONS]
        _prefetch([program for item in chunk for program in item["programs"][:-1]])
        for item in chunk:
            yield from _records(item, split)


def _notes(records: list[QARecord]) -> list[str]:
    conversations = {record.meta["conversation_id"] for record in records}
    return [f"{len(conversations)} conversations; earlier turns' answers executed"]


LOADER = DatasetLoader(
    name=NAME,
    patterns=("convfinqa/convfinqa_{split}.pot_format.json",),
    read=_read,
    notes=_notes,
)
