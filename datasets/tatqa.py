"""TAT-QA: hybrid table + text questions from financial reports (raw ``dataset_raw`` format)."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from filingqa.datasets.base import DatasetLoader, read_json
from filingqa.datasets.parsing import MINUS_SIGNS, format_number
from filingqa.records.qa_record import (
    SCALE_FACTORS,
    AnswerType,
    Context,
    Evidence,
    Paragraph,
    QARecord,
    Table,
)

NAME = "tatqa"

_ANSWER_TYPES: dict[str, AnswerType] = {
    "arithmetic": "number",
    "count": "count",
    "span": "span",
    "multi-span": "multi_span",
}
MULTI_SPAN_SEPARATOR = "; "

_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
_LONE_NUMBER = re.compile(r"\(\s*(\d[\d.]*%?)\s*\)")
_PERCENT = re.compile(r"(\d+(?:\.\d+)?|\.\d+)\s*%")
_SCALE_WORD = re.compile(r"(\d+(?:\.\d+)?)\s*(thousand|million|billion)s?\b", re.IGNORECASE)
_ARITHMETIC = re.compile(r"[\d.+\-*/() ]+")


def tatqa_derivation_to_python(derivation: str, scale: str = "") -> str:
    """Python assigning ``result`` = the value of a TAT-QA arithmetic derivation.

    Handles ``$``, thousands separators, unicode minus, ``[ ]`` brackets, ``x%`` (as
    x/100), accounting negatives ``(71)``, and scale words (``60.3 million``). With the
    question's ``scale``, ``result`` is in the unit the gold answer is stated in: scale
    words are converted to it, and for ``percent`` a fraction (a ratio or a sum of
    ``x%`` terms) is multiplied by 100.

    Raises:
        ValueError: the derivation is not plain arithmetic.
    """
    expr = _normalise(derivation)
    try:
        tree = ast.parse(expr, mode="eval")
    except SyntaxError as error:
        raise ValueError(f"not an arithmetic derivation: {derivation!r}") from error
    lines = [f"result = {expr}"]
    if scale == "percent" and _has_ratio(tree.body):
        lines.append("result = result * 100")
    elif scale in SCALE_FACTORS and _SCALE_WORD.search(derivation):
        lines.append(f"result = result / {SCALE_FACTORS[scale]}")
    return "\n".join(lines)


def _normalise(derivation: str) -> str:
    expr = derivation.translate(MINUS_SIGNS).replace("$", "").replace("[", "(").replace("]", ")")
    expr = expr.replace("×", "*").replace("÷", "/")
    expr = _THOUSANDS.sub("", expr)
    expr = _LONE_NUMBER.sub(r"(-\1)", expr)
    expr = _PERCENT.sub(r"(\1 / 100)", expr)
    expr = _SCALE_WORD.sub(lambda m: f"({m[1]} * {SCALE_FACTORS[m[2].lower().rstrip('s')]})", expr)
    expr = " ".join(expr.split())
    if not expr or not _ARITHMETIC.fullmatch(expr):
        raise ValueError(f"not an arithmetic derivation: {derivation!r}")
    return expr


def _has_ratio(node: ast.expr) -> bool:
    """Whether the expression divides anything other than a sum of n terms by n (a mean)."""
    for child in ast.walk(node):
        if isinstance(child, ast.BinOp) and isinstance(child.op, ast.Div) and not _is_mean(child):
            return True
    return False


def _is_mean(node: ast.BinOp) -> bool:
    terms, pending = 0, [node.left]
    while pending:
        term = pending.pop()
        if isinstance(term, ast.BinOp) and isinstance(term.op, ast.Add | ast.Sub):
            pending += [term.left, term.right]
        else:
            terms += 1
    try:
        divisor = eval(compile(ast.Expression(node.right), "<divisor>", "eval"), {})
    except ArithmeticError:
        return False
    return terms > 1 and divisor == terms


def _answer_fields(question: dict[str, Any]) -> tuple[str, Any]:
    answer = question["answer"]
    kind = question["answer_type"]
    if kind == "arithmetic":
        return format_number(float(answer)), float(answer)
    if kind == "count":
        return str(answer), float(answer)
    spans = [str(span) for span in answer]
    return MULTI_SPAN_SEPARATOR.join(spans), spans


def _unit(question: dict[str, Any], answer: str) -> str | None:
    if question["scale"] == "percent" or answer.endswith("%"):
        return "%"
    if "$" in answer or "$" in question["derivation"]:
        return "USD"
    return None


def _records(item: dict[str, Any], split: str) -> Iterator[QARecord]:
    table_uid = item["table"]["uid"]
    rows = item["table"]["table"]
    paragraphs = {str(p["order"]): p["text"] for p in item["paragraphs"]}
    context = Context(
        tables=[Table(id=table_uid, rows=rows)],
        paragraphs=[Paragraph(id=order, text=text) for order, text in paragraphs.items()],
    )
    for question in item["questions"]:
        answer, value = _answer_fields(question)
        evidence = [
            Evidence(doc_name=table_uid, text=paragraphs.get(order, ""), text_ids=[order])
            for order in question["rel_paragraphs"]
        ]
        if "table" in question["answer_from"]:
            evidence.append(Evidence(doc_name=table_uid, text=context.tables[0].render()))
        yield QARecord(
            id=question["uid"],
            dataset=NAME,
            split=split,
            question=question["question"],
            answer=answer,
            answer_value=value,
            answer_type=_ANSWER_TYPES[question["answer_type"]],
            scale=question["scale"],
            unit=_unit(question, answer),
            evidence=evidence,
            context=context,
            documents=[table_uid],
            gold_program=question["derivation"].strip() or None,
            meta={
                "table_uid": table_uid,
                "order": question["order"],
                "answer_from": question["answer_from"],
                "req_comparison": question["req_comparison"],
                "tatqa_answer_type": question["answer_type"],
            },
        )


def _read(path: Path, split: str, data_dir: Path) -> Iterator[QARecord]:
    for item in read_json(path):
        yield from _records(item, split)


LOADER = DatasetLoader(
    name=NAME,
    patterns=("tatqa/tatqa_dataset_{split}.json",),
    read=_read,
)
