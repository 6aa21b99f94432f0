"""What one run of the program knows about its question: where the evidence comes from
(:class:`Sources`) and, as the run goes, its route, evidence buffer, searches and trace
(:class:`QuestionState`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from filingqa.checks.screening import ScreenedSearch, screen
from filingqa.evidence.buffer import EvidenceBuffer
from filingqa.evidence.selection import select
from filingqa.lm.trace import Step, Trace
from filingqa.records import Passage
from filingqa.records.search_handle import SearchHandle
from filingqa.records.statements import StatementRecord
from filingqa.router.rule import RoutingDecision

# Evidence priorities in the buffer: what fits the reasoning prompt comes highest first.
STATEMENT_ROWS = 1.25  # figures looked up in the statement records: ahead of every passage
CURATED = 1.0  # kept by the curator, or given as the question's context
COMPLEMENTARY = 0.75  # found for what the curator said was missing
REFINED = 0.6  # found for what the verifier said was missing
RETRIEVED = 0.5  # found by Multi-HyDE retrieval, not (yet) curated
CARRIED = 0.3  # cited in earlier turns of a conversation


@dataclass(frozen=True)
class Sources:
    """Where a question's evidence comes from: given passages or a search handle, plus
    the company to search within and passages carried from earlier turns."""

    passages: list[Passage] | None
    search: SearchHandle | None
    company: str | None
    carried: list[Passage] | None


@dataclass
class QuestionState:
    """One reading of a question as the program works on it: its route, the evidence
    buffer, where to search and within which company, the queries tried, the statement
    records looked up for it, and the trace."""

    question: str
    route: RoutingDecision
    evidence: EvidenceBuffer
    trace: Trace
    search: SearchHandle | None = None
    company: str | None = None
    tried: list[str] = field(default_factory=list)
    records: list[StatementRecord] = field(default_factory=list)

    @classmethod
    def start(
        cls,
        question: str,
        route: RoutingDecision,
        sources: Sources,
        evidence_chars: int,
        trace: Trace,
    ) -> QuestionState:
        """The state before any search: carried and given passages in the buffer; given
        passages longer than ``evidence_chars`` are cut to the tables and the paragraphs
        most relevant to ``question`` (:func:`~filingqa.evidence.selection.select`)."""
        evidence = EvidenceBuffer(evidence_chars)
        evidence.add(sources.carried or [], CARRIED)
        if sources.passages is not None:
            given = select(question, sources.passages, evidence_chars, first=_is_table)
            evidence.add(given, CURATED)
        return cls(question, route, evidence, trace, sources.search, sources.company)


def _is_table(passage: Passage) -> bool:
    return passage.kind == "table"


def screened_sources(
    passages: list[Passage] | None,
    search: SearchHandle | None,
    company: str | None,
    carried: list[Passage] | None,
    trace: Trace,
) -> Sources:
    """The question's sources with every passage screened (:mod:`~filingqa.checks.screening`);
    each time lines are withheld, a ``screen`` step in the trace lists them."""

    def withheld(lines: list[str]) -> None:
        shown = "; ".join(repr(line[:120]) for line in lines)
        trace.record(Step(name="screen", note=f"withheld {len(lines)} line(s): {shown}"))

    def screened(given: list[Passage] | None) -> list[Passage] | None:
        if given is None:
            return None
        screening = screen(given)
        if screening.withheld:
            withheld(screening.withheld)
        return screening.passages

    return Sources(
        passages=screened(passages),
        search=ScreenedSearch(search, withheld) if search is not None else None,
        company=company,
        carried=screened(carried),
    )
