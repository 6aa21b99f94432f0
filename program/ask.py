"""``filingqa ask``: answer a question over one plain-text filing with Program-of-Thought.

question → passages (split, BM25 within a budget) → PoT in the sandbox → answer with
working and citations.
"""

from __future__ import annotations

import time
from importlib import resources
from pathlib import Path

import dspy
from pydantic import BaseModel

from filingqa.program.citations import Citation, cite, untraced_numbers
from filingqa.program.passages import render, select, split_filing
from filingqa.program.pot import ProgramOfThought
from filingqa.program.units import display_value
from filingqa.retrieval import Passage
from filingqa.sandbox import ExecutionResult

SAMPLE_DOC = "NORTHWIND_2024_10K"
SAMPLE_QUESTION = "What was Northwind's free cash flow in fiscal 2024?"
EVIDENCE_BUDGET_CHARS = 8000  # about 2,000 tokens of the model's context


class FilingAnswer(BaseModel):
    """An answer with its working, citations and cost."""

    question: str
    answer: str
    value: float | int | str | bool | dict[str, float | int | str | bool] | None
    working: str
    citations: list[Citation]
    untraced_numbers: list[float]
    refused: bool
    lm_calls: int
    cached_calls: int
    tokens: int
    seconds: float


def sample_filing() -> Path:
    """The bundled synthetic 10-K (Northwind Instruments, fiscal 2024)."""
    return Path(str(resources.files("filingqa") / "samples" / "northwind_fy2024_10k.txt"))


def answer_over_filing(
    question: str,
    *,
    filing: Path | None = None,
    lm: dspy.LM,
    evidence_budget_chars: int = EVIDENCE_BUDGET_CHARS,
    samples: int = 1,
) -> FilingAnswer:
    """Answer ``question`` from ``filing`` (default: the bundled sample) with ``lm``.

    ``samples`` > 1 votes over that many programs (self-consistency, see
    :class:`~filingqa.program.pot.ProgramOfThought`): more accurate, proportionally slower.
    """
    if not question.strip():
        raise ValueError("the question is empty")
    path = filing or sample_filing()
    doc = SAMPLE_DOC if filing is None else path.stem.upper()
    passages = select(
        question, split_filing(path.read_text(encoding="utf-8"), doc), evidence_budget_chars
    )
    started, calls_before = time.perf_counter(), len(lm.history)
    with dspy.context(lm=lm):
        prediction = ProgramOfThought(samples=samples)(question=question, evidence=render(passages))
    calls = lm.history[calls_before:]
    return _answer(
        question,
        prediction,
        passages,
        lm_calls=len(calls),
        cached_calls=sum(not call.get("usage") for call in calls),
        tokens=sum((call.get("usage") or {}).get("total_tokens") or 0 for call in calls),
        seconds=time.perf_counter() - started,
    )


def _answer(
    question: str,
    prediction: dspy.Prediction,
    passages: list[Passage],
    *,
    lm_calls: int,
    cached_calls: int,
    tokens: int,
    seconds: float,
) -> FilingAnswer:
    execution: ExecutionResult = prediction.execution
    refused = not execution.ok
    citations = cite(prediction.program, passages)
    cited = [p for p in passages if p.id in {c.passage_id for c in citations}]
    text = (
        f"could not compute an answer ({execution.error.kind}: {execution.error.message})"
        if refused and execution.error
        else display_value(prediction.answer, question, execution.value, cited)
    )
    return FilingAnswer(
        question=question,
        answer=text,
        value=execution.value,
        working=prediction.program,
        citations=citations,
        untraced_numbers=sorted(untraced_numbers(prediction.program, passages)),
        refused=refused,
        lm_calls=lm_calls,
        cached_calls=cached_calls,
        tokens=tokens,
        seconds=round(seconds, 2),
    )


def format_answer(answer: FilingAnswer) -> str:
    """The answer for a terminal: answer, working, sources and cost."""
    working = "\n".join(f"    {line}" for line in answer.working.splitlines())
    sources = (
        "\n".join(
            f"  - {c.doc}, page {c.page}, {c.kind} [{c.passage_id}]" for c in answer.citations
        )
        or "  - (no passage holds the program's input numbers)"
    )
    lines = [
        f"Question: {answer.question}",
        f"Answer:   {answer.answer}",
        "Working (executed in the sandbox):",
        working,
        "Sources:",
        sources,
    ]
    if answer.untraced_numbers:
        lines.append(f"Note: numbers not found in the sources: {answer.untraced_numbers}")
    cached = f", {answer.cached_calls} from cache" if answer.cached_calls else ""
    lines.append(
        f"({answer.lm_calls} LM calls{cached}, {answer.tokens} tokens, {answer.seconds} s)"
    )
    return "\n".join(lines)
