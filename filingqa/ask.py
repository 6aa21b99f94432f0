"""``filingqa ask``: answer a question over one plain-text filing, or over the index.

One filing: question → passages (split, BM25 within a budget) → a compiled FinancialQA over
them, or, uncompiled, PoT in the sandbox → answer with working and citations. The index:
FinancialQA with a search handle (narrowed to a company, or restricted to documents), the
same answer shape. Every answer names the program that gave it.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from contextlib import closing
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

import dspy
from pydantic import BaseModel

from filingqa.artifacts.shipped import UNCOMPILED, program_label, program_name
from filingqa.checks.citations import Citation, cite, untraced_numbers
from filingqa.checks.formulas import formula_note
from filingqa.checks.inputs import clean_question, question_problem
from filingqa.checks.screening import screen
from filingqa.checks.units import display_value
from filingqa.evidence.plain_filing import split_filing
from filingqa.evidence.render import fit, render
from filingqa.evidence.selection import select
from filingqa.lm.backbone import adapter_for
from filingqa.program.financial_qa import FinancialQA
from filingqa.program.pot import ProgramOfThought
from filingqa.records import Passage
from filingqa.records.search_handle import SearchHandle
from filingqa.sandbox import ExecutionResult

if TYPE_CHECKING:
    from filingqa.retrieval.search.pipeline import FilingSearch, ReRankerChoice
    from filingqa.retrieval.search.rerank import Reranker

DEFAULT_INDEX = "default"  # what `filingqa index PATH...` builds
SAMPLE_DOC = "NORTHWIND_2024_10K"
SAMPLE_QUESTION = "What was Northwind's free cash flow in fiscal 2024?"
EVIDENCE_BUDGET_CHARS = 8000  # about 2,000 tokens of the model's context


class FilingAnswer(BaseModel):
    """An answer with its working, citations and cost; ``program`` names what answered (a
    compiled artifact's name, or ``uncompiled``); ``reason`` says how FinancialQA reached
    its ``outcome`` (empty when PoT answered over one filing)."""

    question: str
    program: str
    answer: str
    value: float | int | str | bool | dict[str, float | int | str | bool] | None
    working: str
    citations: list[Citation]
    untraced_numbers: list[float]
    refused: bool
    outcome: str
    reason: str = ""
    lm_calls: int
    cached_calls: int
    tokens: int
    seconds: float


def checked_question(question: str) -> str:
    """``question`` cleaned of control characters.

    Raises:
        ValueError: the question cannot be asked; the message says why in one line.
    """
    problem = question_problem(question)
    if problem is not None:
        raise ValueError(problem)
    return clean_question(question)


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
    program: FinancialQA | None = None,
) -> FilingAnswer:
    """Answer ``question`` from ``filing`` (default: the bundled sample) with ``lm``: the
    passages BM25 chooses within ``evidence_budget_chars``, answered by ``program`` (a
    compiled FinancialQA, see :func:`filingqa.load`) when given, else by PoT.

    ``samples`` > 1 votes PoT over that many programs (self-consistency, see
    :class:`~filingqa.program.pot.ProgramOfThought`): more accurate, proportionally slower.
    """
    question = checked_question(question)
    path = filing or sample_filing()
    doc = SAMPLE_DOC if filing is None else path.stem.upper()
    chosen = select(
        question,
        split_filing(path.read_text(encoding="utf-8", errors="replace"), doc),
        evidence_budget_chars,
    )
    if program is not None:
        return _program_answer(question, program, lm, passages=chosen)
    passages = [fit(p, question, evidence_budget_chars) for p in screen(chosen).passages]
    evidence = render(passages)
    started, calls_before = time.perf_counter(), len(lm.history)
    with dspy.context(lm=lm):
        prediction = ProgramOfThought(samples=samples, check_cells=True)(
            question=question, evidence=evidence, formula=formula_note(question, evidence)
        )
    return _answer(question, prediction, passages, **_cost(lm.history[calls_before:], started))


def ask_index(name_or_dir: str | None = None) -> Path:
    """The built index ``name_or_dir`` names: a directory, else an index name under
    ``FILINGQA_HOME/indexes`` (default: ``default``, what ``filingqa index PATH...`` builds;
    a dataset's index is named after it, e.g. ``financebench``).

    Raises:
        IndexMissingError: nothing is built there; the message names the command that builds it.
    """
    from filingqa.retrieval.index.locations import IndexMissingError, default_index_dir, index_built

    name = name_or_dir or DEFAULT_INDEX
    named = Path(name).is_dir() is False and len(Path(name).parts) == 1
    directory = default_index_dir(name) if named else Path(name)
    if index_built(directory):
        return directory
    if not named:
        build = f"filingqa index PATH... --index {directory}"
    elif name == DEFAULT_INDEX:
        build = "filingqa index PATH..."
    else:
        build = f"filingqa index --dataset {name}"
    raise IndexMissingError(f"no index at {directory}: build it with `{build}`")


class DocumentSearch:
    """A search handle restricted to ``doc_ids`` (the pipeline searches only those filings)."""

    def __init__(self, search: FilingSearch, doc_ids: list[str]) -> None:
        self.inner = search
        self.doc_ids = doc_ids

    def search(
        self, query: str, *, k: int, company: str | None = None, period: str | None = None
    ) -> list[Passage]:
        ranked = self.inner.ranked(query, k=k, company=company, period=period, doc_ids=self.doc_ids)
        return [r.passage for r in ranked]

    def covers(self, company: str) -> bool:
        """Whether the index holds filings of ``company`` (the inner handle decides)."""
        covers = getattr(self.inner, "covers", None)
        return not callable(covers) or bool(covers(company))


def answer_over_index(
    question: str,
    *,
    index: Path,
    lm: dspy.LM,
    company: str | None = None,
    doc_ids: Sequence[str] = (),
    samples: int = 1,
    program: FinancialQA | None = None,
    search_settings: Mapping[str, object] | None = None,
) -> FilingAnswer:
    """Answer ``question`` over the index at ``index``, within ``doc_ids`` when given, else
    narrowed to ``company`` when given (see :func:`answer_with_search`). The search runs
    with the ``SearchSettings`` changes ``program`` records (its remote rerank stage, say),
    then ``search_settings``, reranked by ``program``'s own reranker when its compile trained
    one (else the default)."""
    from filingqa.retrieval.search.pipeline import FilingSearch

    changes = {**(getattr(program, "search_settings", None) or {}), **(search_settings or {})}
    with closing(FilingSearch.open(index, reranker=program_reranker(program))) as opened:
        search = opened.with_settings(**changes) if changes else opened
        handle = DocumentSearch(search, list(doc_ids)) if doc_ids else search
        return answer_with_search(
            question, search=handle, lm=lm, company=company, samples=samples, program=program
        )


def program_reranker(program: FinancialQA | None) -> ReRankerChoice:
    """The reranker a compiled ``program``'s compile trained, else the default one."""
    own: Reranker | None = getattr(program, "reranker", None)
    return own if own is not None else "default"


def answer_with_search(
    question: str,
    *,
    search: SearchHandle,
    lm: dspy.LM,
    company: str | None = None,
    samples: int = 1,
    program: FinancialQA | None = None,
) -> FilingAnswer:
    """Answer ``question`` with FinancialQA searching ``search`` (narrowed to ``company``):
    ``program`` (a compiled one, see :func:`filingqa.load`) when given, else the uncompiled
    program voting over ``samples`` programs."""
    question = checked_question(question)
    qa = program if program is not None else FinancialQA(samples=samples)
    return _program_answer(question, qa, lm, search=search, company=company)


def _program_answer(
    question: str,
    qa: FinancialQA,
    lm: dspy.LM,
    *,
    passages: list[Passage] | None = None,
    search: SearchHandle | None = None,
    company: str | None = None,
) -> FilingAnswer:
    """FinancialQA ``qa``'s answer over ``passages`` or ``search``, with its cost."""
    started, calls_before = time.perf_counter(), len(lm.history)
    with dspy.context(lm=lm, adapter=adapter_for(lm)):
        prediction = qa(question=question, passages=passages, search=search, company=company)
    final = prediction.final
    return FilingAnswer(
        question=question,
        program=program_name(qa),
        answer=final.answer,
        value=final.value,
        working=final.working,
        citations=final.citations,
        untraced_numbers=sorted(untraced_numbers(final.working, final.evidence)),
        refused=final.refused,
        outcome=final.outcome,
        reason=final.reason,
        **_cost(lm.history[calls_before:], started),
    )


class _Cost(TypedDict):
    lm_calls: int
    cached_calls: int
    tokens: int
    seconds: float


def _cost(calls: list[dict], started: float) -> _Cost:
    """LM calls (and how many came from the cache), tokens and seconds since ``started``."""
    return {
        "lm_calls": len(calls),
        "cached_calls": sum(not call.get("usage") for call in calls),
        "tokens": sum((call.get("usage") or {}).get("total_tokens") or 0 for call in calls),
        "seconds": round(time.perf_counter() - started, 2),
    }


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
        else display_value(prediction.answer, question, execution.value, cited, prediction.program)
    )
    return FilingAnswer(
        question=question,
        program=UNCOMPILED,
        answer=text,
        value=execution.value,
        working=prediction.program,
        citations=citations,
        untraced_numbers=sorted(untraced_numbers(prediction.program, passages)),
        refused=refused,
        outcome="refused" if refused else "answered",
        lm_calls=lm_calls,
        cached_calls=cached_calls,
        tokens=tokens,
        seconds=seconds,
    )


def format_answer(answer: FilingAnswer) -> str:
    """The answer for a terminal: answer, the program that gave it, working, sources and
    cost."""
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
        f"Program:  {program_label(answer.program)}",
    ]
    if answer.reason:
        lines.append(f"Outcome:  {answer.outcome} ({answer.reason})")
    if answer.working:
        lines += ["Working (executed in the sandbox):", working]
    else:
        lines.append("Working:  none (answered in words from the sources)")
    lines += ["Sources:", sources]
    if answer.untraced_numbers:
        lines.append(f"Note: numbers not found in the sources: {answer.untraced_numbers}")
    cached = f", {answer.cached_calls} from cache" if answer.cached_calls else ""
    lines.append(
        f"({answer.lm_calls} LM calls{cached}, {answer.tokens} tokens, {answer.seconds} s)"
    )
    return "\n".join(lines)
