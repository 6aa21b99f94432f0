"""Two runs of one setting, made by two versions of the code, compared question by question.

A code change cannot be one eval's two settings, so its "before" and "after" are two runs
over the same questions, graded by one judge afterwards. :func:`compare_runs` gives what
``filingqa eval`` prints for two settings (the table, wins, losses and the sign test) on
the questions both runs answered, with accuracy per question type, yes/no, the speed
ratio, how questions about filings absent from the corpus were handled, and which answers
cite another company's filing (``benchmarks/paired_runs.py`` prints it).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from filingqa.evaluation.paired import compare, format_paired
from filingqa.evaluation.runner import Row
from filingqa.evaluation.summary import format_table, summarize
from filingqa.records import QARecord
from filingqa.retrieval.ingest.metadata import parse_doc_name
from filingqa.retrieval.vocabulary.companies import normalise_company


def company_key(doc_name: str) -> str:
    """The company part of a FinanceBench document name, normalised (``3M_2018_10K`` → ``3m``;
    a name that is not FinanceBench-style stands for itself)."""
    parsed = parse_doc_name(doc_name)
    return normalise_company(parsed.company_key if parsed else doc_name)


def gold_companies(record: QARecord) -> set[str]:
    """The companies of the filings the record's gold evidence comes from (absent ones too)."""
    names = [*record.meta.get("pdf_paths", {}), *record.meta.get("missing_pdfs", [])]
    return {company_key(name) for name in names}


def foreign_citations(row: Row, record: QARecord) -> list[str]:
    """The filings ``row`` cites that belong to a company other than the question's."""
    own = gold_companies(record)
    return sorted({ref[0] for ref in row.cited if own and company_key(ref[0]) not in own})


def absent_handling(row: Row, record: QARecord) -> str:
    """How a question about an absent filing was handled: ``correct`` (answered right from
    another filing of the company), ``not_indexed``, ``other company`` (cites another
    company's filing) or ``wrong`` (answered wrong from its own company's filings, or not
    at all)."""
    if row.outcome == "not_indexed":
        return "not_indexed"
    if foreign_citations(row, record):
        return "other company"
    return "correct" if row.score == 1.0 else "wrong"


def _counts(rows: list[Row], keep: Any) -> str:
    """``right/asked`` over the rows ``keep`` accepts."""
    kept = [row for row in rows if keep(row)]
    return f"{sum(row.score == 1.0 for row in kept)}/{len(kept)}"


def compare_runs(
    before: list[Row], after: list[Row], records: dict[str, QARecord], names: tuple[str, str]
) -> dict[str, Any]:
    """The figures of the two runs on the questions both answered."""
    shared = {row.id for row in before} & {row.id for row in after}
    runs = {
        names[0]: [row for row in before if row.id in shared],
        names[1]: [row for row in after if row.id in shared],
    }
    summaries = {name: summarize(rows) for name, rows in runs.items()}
    paired = compare(names[0], names[1], runs)
    types = sorted({row.question_type for row in runs[names[1]] if row.question_type})
    figures: dict[str, Any] = {
        "questions": len(shared),
        "summaries": {name: s.model_dump() for name, s in summaries.items()},
        "paired": paired.model_dump(),
        "speed_ratio": summaries[names[1]].seconds / summaries[names[0]].seconds
        if summaries[names[0]].seconds
        else None,
    }
    for name, rows in runs.items():
        figures[name] = {
            "by_question_type": {
                kind: _counts(rows, lambda r, kind=kind: r.question_type == kind) for kind in types
            },
            "yes_no": _counts(rows, lambda r: r.answer_type == "yes_no"),
            "absent_filing": dict(
                Counter(absent_handling(r, records[r.id]) for r in rows if r.in_corpus is False)
            ),
            "foreign_citations": {
                r.id: cited for r in rows if (cited := foreign_citations(r, records[r.id]))
            },
            "scores": {r.id: r.score for r in rows},
            "outcomes": {r.id: r.outcome for r in rows},
        }
    figures["text"] = "\n".join(
        [format_table(summaries), format_paired([paired]), _extra_lines(figures, names)]
    )
    return figures


def _extra_lines(figures: dict[str, Any], names: tuple[str, str]) -> str:
    """Per question type, yes/no, absent filings, foreign citations and the speed ratio."""
    lines = []
    for name in names:
        run = figures[name]
        types = ", ".join(f"{t} {c}" for t, c in run["by_question_type"].items())
        lines.append(f"{name}: {types}; yes/no {run['yes_no']}")
        lines.append(f"  absent filing: {run['absent_filing'] or 'none asked'}")
        foreign = len(run["foreign_citations"])
        lines.append(f"  questions citing another company's filing: {foreign}")
    if figures["speed_ratio"] is not None:
        lines.append(f"s/question {names[1]} / {names[0]}: {figures['speed_ratio']:.2f}x")
    return "\n".join(lines)
