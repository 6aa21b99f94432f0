"""FinQA: numerical reasoning over earnings-report pages (original or TAT-LLM prompt format)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from filingqa.datasets.base import DatasetLoader, read_json
from filingqa.datasets.parsing import classify_answer, parse_pipe_table, parse_quantity
from filingqa.records.qa_record import (
    AnswerType,
    Context,
    Evidence,
    Paragraph,
    QARecord,
    Table,
)

NAME = "finqa"
TATLLM_SUFFIX = ".tatllm_instruction_format.json"

_STEP = re.compile(r"\s*(?P<op>[a-z_]+)\((?P<args>.*?)\)\s*(?:,\s*(?=[a-z_]+\()|$)")
_STEP_REF = re.compile(r"#(\d+)")
_BINARY_OPS = {
    "add": "+",
    "subtract": "-",
    "multiply": "*",
    "divide": "/",
    "exp": "**",
    "greater": ">",
}
_TABLE_OPS = {
    "table_sum": "sum({row})",
    "table_average": "sum({row}) / len({row})",
    "table_max": "max({row})",
    "table_min": "min({row})",
}
_SECTION = re.compile(r"^###\s*(\w+)[ \t]*$", re.MULTILINE)
_NUMBERED_LINE = re.compile(r"^(\d+)\s+(.*)$")
_ANSWER_PREFIX = "The answer is:"


# --- gold-program translation -------------------------------------------------------------


def parse_finqa_program(program: str) -> list[tuple[str, str]]:
    """The ``(op, raw arguments)`` steps of a flat FinQA program (a trailing ``EOF`` is ok).

    Raises:
        ValueError: the program is not a sequence of ``op(args)`` steps.
    """
    text = program.strip().removesuffix("EOF").strip().rstrip(",").strip()
    steps: list[tuple[str, str]] = []
    pos = 0
    while pos < len(text):
        match = _STEP.match(text, pos)
        if not match:
            raise ValueError(f"cannot parse FinQA program at offset {pos}: {program!r}")
        steps.append((match["op"], match["args"]))
        pos = match.end()
    if not steps:
        raise ValueError(f"empty FinQA program: {program!r}")
    return steps


def finqa_program_to_python(program: str, table: list[list[str]]) -> str:
    """Python assigning ``result`` = the value of a FinQA DSL program over ``table``.

    Step ``k`` becomes ``step{k}`` (so ``#k`` refers to it); ``const_N`` is N,
    ``const_m1`` is -1, ``x%`` is x/100; ``greater`` gives a bool; ``table_*`` ops
    aggregate the numeric cells of the row whose first cell names it (a cell like
    ``-26 ( 26 )`` counts as -26, ``7.8% ( 7.8 % )`` as 0.078, non-numbers are skipped).

    Raises:
        ValueError: unknown op, bad argument, forward step reference or unknown row.
    """
    lines: list[str] = []
    for index, (op, args) in enumerate(parse_finqa_program(program)):
        if op in _BINARY_OPS:
            left, right = (_operand(arg, index) for arg in _split_args(args, op))
            lines.append(f"step{index} = {left} {_BINARY_OPS[op]} {right}")
        elif op in _TABLE_OPS:
            row_name = args.rpartition(",")[0] if args.rstrip().endswith("none") else args
            lines.append(f"row{index} = {_table_row_values(table, row_name)!r}")
            lines.append(f"step{index} = " + _TABLE_OPS[op].format(row=f"row{index}"))
        else:
            raise ValueError(f"unknown FinQA op {op!r} in {program!r}")
    lines.append(f"result = step{index}")
    return "\n".join(lines)


def _split_args(args: str, op: str) -> tuple[str, str]:
    parts = [part.strip() for part in args.split(",")]
    if len(parts) != 2:
        raise ValueError(f"{op} takes 2 arguments, got {args!r}")
    return parts[0], parts[1]


def _operand(arg: str, step: int) -> str:
    ref = _STEP_REF.fullmatch(arg)
    if ref:
        if int(ref[1]) >= step:
            raise ValueError(f"step {step} refers to #{ref[1]}, not computed yet")
        return f"step{ref[1]}"
    if arg == "const_m1":
        return "(-1)"
    if arg.startswith("const_") and arg[6:].isdigit():
        return arg[6:]
    value = finqa_number(arg)
    if value is None:
        raise ValueError(f"not a FinQA operand: {arg!r}")
    return f"({value!r})" if value < 0 else repr(value)


def finqa_number(text: str) -> float | None:
    """A FinQA argument or table cell as a number (``x%`` → x/100), None if not numeric.

    As in FinQA, only the text before a ``(`` counts (``-26 ( 26 )``), unless nothing
    numeric precedes it (``( 26 )`` is then the accounting negative -26).
    """
    head = text.split("(")[0]
    quantity = parse_quantity(head if any(ch.isdigit() for ch in head) else text)
    if quantity is None:
        return None
    return quantity.value / 100 if quantity.scale == "percent" else quantity.value


def _table_row_values(table: list[list[str]], name: str) -> list[float]:
    wanted = " ".join(name.split()).lower()
    for row in table:
        if row and " ".join(row[0].split()).lower() == wanted:
            values = [finqa_number(cell) for cell in row[1:]]
            return [value for value in values if value is not None]
    raise ValueError(f"no table row named {name.strip()!r}")


# --- loaders -----------------------------------------------------------------------------


def _gold_value(exe_ans: Any) -> tuple[AnswerType, float | bool]:
    if isinstance(exe_ans, str) and exe_ans.lower() in ("yes", "no"):
        return "yes_no", exe_ans.lower() == "yes"
    return "number", float(exe_ans)


def _evidence(filename: str, gold_inds: dict[str, str]) -> list[Evidence]:
    evidence = []
    for key, fact in gold_inds.items():
        kind, _, index = key.partition("_")
        if kind == "table":
            evidence.append(Evidence(doc_name=filename, text=fact, table_rows=[int(index)]))
        else:
            evidence.append(Evidence(doc_name=filename, text=fact, text_ids=[key]))
    return evidence


def _original_record(row: dict[str, Any], split: str) -> QARecord:
    qa = row["qa"]
    answer_type, value = _gold_value(qa["exe_ans"])
    sentences = row["pre_text"] + row["post_text"]
    report_page = re.search(r"page_(\d+)", row["filename"])
    return QARecord(
        id=row["id"],
        dataset=NAME,
        split=split,
        question=qa["question"],
        answer=str(qa["answer"]),
        answer_value=value,
        answer_type=answer_type,
        unit="%" if str(qa["answer"]).strip().endswith("%") else None,
        evidence=_evidence(row["filename"], qa.get("gold_inds", {})),
        context=Context(
            tables=[Table(id="table", rows=row["table"])],
            paragraphs=[Paragraph(id=f"text_{i}", text=s) for i, s in enumerate(sentences)],
        ),
        documents=[row["filename"]],
        gold_program=qa["program"],
        meta={
            "format": "original",
            "filename": row["filename"],
            "report_page": int(report_page[1]) if report_page else None,
            "exe_ans": qa["exe_ans"],
            "program_re": qa.get("program_re"),
            "explanation": qa.get("explanation") or None,
            "table_ori": row.get("table_ori"),
        },
    )


def parse_tatllm_prompt(prompt: str) -> tuple[list[list[str]], list[Paragraph], str]:
    """The table rows, numbered text sentences and question of a TAT-LLM user prompt.

    Raises:
        ValueError: the prompt has no ``### Question`` section.
    """
    parts = _SECTION.split(prompt)
    pairs = zip(parts[1::2], parts[2::2], strict=True)
    sections = {name.lower(): body.strip() for name, body in pairs}
    if not sections.get("question"):
        raise ValueError("TAT-LLM prompt without a '### Question' section")
    paragraphs: list[Paragraph] = []
    for line in sections.get("text", "").splitlines():
        match = _NUMBERED_LINE.match(line.strip())
        if match:
            paragraphs.append(Paragraph(id=match[1], text=match[2].strip()))
        elif line.strip() and paragraphs:
            paragraphs[-1].text += " " + line.strip()
    paragraphs = [p for p in paragraphs if p.text.strip(" .")]
    return parse_pipe_table(sections.get("table", "")), paragraphs, sections["question"]


def _tatllm_record(row: dict[str, Any], split: str) -> QARecord:
    rows, paragraphs, question = parse_tatllm_prompt(row["user_prompt"])
    answer = row["resp"].strip().removeprefix(_ANSWER_PREFIX).strip()
    answer_type: AnswerType
    if answer in ("True", "False"):
        answer_type, value = "yes_no", answer == "True"
    else:
        answer_type, value, *_ = classify_answer(answer)
    filename = row["id"].rpartition("-")[0]
    return QARecord(
        id=row["id"],
        dataset=NAME,
        split=split,
        question=question,
        answer=answer,
        answer_value=value,
        answer_type=answer_type,
        context=Context(tables=[Table(id="table", rows=rows)], paragraphs=paragraphs),
        documents=[filename],
        meta={"format": "tatllm", "filename": filename},
    )


def _read(path: Path, split: str, data_dir: Path) -> Iterator[QARecord]:
    make = _tatllm_record if path.name.endswith(TATLLM_SUFFIX) else _original_record
    for row in read_json(path):
        yield make(row, split)


def _notes(records: list[QARecord]) -> list[str]:
    formats = {record.meta["format"] for record in records}
    return ["TAT-LLM prompt format (no programs)" if "tatllm" in formats else "original format"]


LOADER = DatasetLoader(
    name=NAME,
    patterns=(
        "finqa/{split}.original_format.json",
        "finqa/{split}" + TATLLM_SUFFIX,
        "finqa/{split}.json",
    ),
    read=_read,
    notes=_notes,
)
