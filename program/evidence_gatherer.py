"""Evidence gathering: a question's search handle searched into its evidence buffer.

decompose (full loop) → Multi-HyDE retrieval → curation → complementary search, and
between reasoning rounds, :meth:`EvidenceGatherer.refine` searches for what the verifier
found missing. Optional steps that fail are skipped; a failed Multi-HyDE retrieval falls
back to searching with the question as written.

Each LM step has a cheap alternative, switched by an option: ``decompose=False`` searches
the question alone; ``query_writing=False`` sends no query-writing request (the question and
any sub-questions are searched as written; the search expands them with the lexicon's line
items); ``curation=False`` keeps the retrieved passages in the search's order, as many as
the evidence budget holds, and asks no complementary query.

With ``statement_rows`` (on by default), a question about one company's figures for named
periods over a handle that looks statement records up gets those figures as labelled rows
ahead of the passages (:mod:`~filingqa.evidence.statement_rows`): the concepts the question
names and the inputs of each catalogue metric it names (none for a metric whose formula the
question states: that formula's concepts are among those it names), revenue for a share
of revenue, for the periods it names (every year of a span it averages over), and the prior
period too for an average, a change or a direction of one period. The records found are
kept on the question's state, for the reasoning loop to write a program from
(:mod:`~filingqa.program.statement_program`).
"""

from __future__ import annotations

import re
from functools import partial
from typing import NamedTuple

import dspy

from filingqa.checks.asked_figure import asks_share_of_revenue, averaged_years
from filingqa.checks.metric_catalogue import metrics_named, question_defines
from filingqa.checks.screening import Screening, screen
from filingqa.checks.sign_check import asks_for_change
from filingqa.checks.trend import asked_direction
from filingqa.evidence.statement_rows import statement_rows
from filingqa.lm.faults import Fault, attempt
from filingqa.program.curation import Curator
from filingqa.program.final_answer import FinalAnswer, stopped
from filingqa.program.multi_hyde import MultiHydeRetriever, Retrieved
from filingqa.program.question_state import (
    COMPLEMENTARY,
    CURATED,
    REFINED,
    RETRIEVED,
    STATEMENT_ROWS,
    QuestionState,
)
from filingqa.program.verification import Verdict
from filingqa.records.search_handle import (
    SearchHandle,
    looks_up_statements,
    statement_records_of,
)
from filingqa.records.statements import StatementRecord
from filingqa.retrieval.vocabulary.fiscal import find_periods
from filingqa.retrieval.vocabulary.line_items import question_concepts
from filingqa.signatures.decompose import Decompose
from filingqa.signatures.verify import RefineQuestions

QUERY_TOKENS = 512  # decompositions and refinement queries are short: a looping one stops here
REFINE_QUERIES = 3  # new queries searched per refinement
ROW_SHARE = 4  # statement rows take at most a quarter of the evidence budget
_AVERAGE = re.compile(r"\baverage\b", re.IGNORECASE)


class EvidenceGatherer(dspy.Module):
    """Fills a question's evidence buffer from its search handle.

    Calling it runs the first search and returns the answer the question stops with when
    the handle holds no filings of the company asked about or every search failed (None
    otherwise).
    """

    def __init__(
        self,
        hypotheses: int = 3,
        k: int = 8,
        *,
        decompose: bool = True,
        query_writing: bool = True,
        curation: bool = True,
        statement_rows: bool = True,
    ) -> None:
        super().__init__()
        self.decompose = dspy.Predict(Decompose, max_tokens=QUERY_TOKENS)
        self.retriever = MultiHydeRetriever(hypotheses=hypotheses, k=k)
        self.curator = Curator()
        self.refine_queries = dspy.Predict(RefineQuestions, max_tokens=QUERY_TOKENS)
        self.decomposes = decompose
        self.writes_queries = query_writing
        self.curates = curation
        self.statement_rows = statement_rows

    def forward(self, state: QuestionState) -> FinalAnswer | None:
        found = self.search(state)
        if isinstance(found, FinalAnswer):
            return found
        if self.statement_rows:
            self._add_statement_rows(state)
        if self.curates:
            self._curate(state, _handle(state), found)
        return None

    def search(self, state: QuestionState) -> Retrieved | FinalAnswer:
        """The first search, before curation: its passages added to the evidence buffer, or
        the answer the question stops with."""
        search = _handle(state)
        if state.company and not _covers(search, state.company):
            return _not_indexed(state, state.company)
        decomposed = state.route.full_loop and self.decomposes
        sub_questions = self._sub_questions(state) if decomposed else []
        found = self._retrieve(state, search, sub_questions)
        if isinstance(found, Fault):
            return stopped(state.question, "error", found.describe(), state.trace)
        state.company = found.company
        if found.company and not _covers(search, found.company):
            return _not_indexed(state, found.company)
        state.tried += found.queries
        state.evidence.add(found.passages, RETRIEVED)
        return found

    def _retrieve(
        self, state: QuestionState, search: SearchHandle, sub_questions: list[str]
    ) -> Retrieved | Fault:
        """The first search: with written queries (Multi-HyDE; the question alone if that
        fails), or, without query writing, with the question (and sub-questions) as written."""
        if not self.writes_queries:
            return self._plain_search(state, search, sub_questions, step="retrieve")
        found = attempt(
            state.trace,
            "retrieve",
            lambda: self.retriever(state.question, search, state.company, sub_questions),
            note=lambda f: f"{len(f.passages)} passages from {len(f.queries)} queries",
        )
        if isinstance(found, Fault):
            return self._plain_search(state, search, sub_questions)
        return found

    def refine(self, state: QuestionState, verdict: Verdict) -> None:
        """Searches with new queries for what ``verdict`` found missing."""
        missing = verdict.missing or "; ".join(verdict.reasons)
        queries = self.refine_queries(
            question=state.question, missing=missing, tried=state.tried
        ).queries
        fresh = [q for q in queries if q.strip() and q not in state.tried][:REFINE_QUERIES]
        if fresh:
            found = self.retriever.search_all(fresh, _handle(state), state.company, None)
            state.evidence.add(found, REFINED)
            state.tried += fresh

    def _sub_questions(self, state: QuestionState) -> list[str]:
        """The retrieval steps of the question's decomposition ([] if it fails)."""
        steps = attempt(
            state.trace,
            "decompose",
            lambda: self.decompose(question=state.question).steps,
            note=lambda found: "; ".join(f"{s.kind}/{s.formula}: {s.question}" for s in found),
        )
        if isinstance(steps, Fault):  # retrieval still runs on the question itself
            return []
        return [s.question for s in steps if s.kind == "retrieval"]

    def _plain_search(
        self,
        state: QuestionState,
        search: SearchHandle,
        sub_questions: list[str],
        step: str = "retrieve (question only)",
    ) -> Retrieved | Fault:
        """Search with the question (and sub-questions) as written: no LM involved."""
        queries = [state.question, *sub_questions]
        passages = attempt(
            state.trace,
            step,
            partial(self.retriever.search_all, queries, search, state.company, None),
            typed=False,
            note=lambda found: f"{len(found)} passages",
        )
        if isinstance(passages, Fault):
            return passages
        return Retrieved(passages=passages, queries=queries, company=state.company, period=None)

    def _add_statement_rows(self, state: QuestionState) -> None:
        """The question's figures looked up in the handle's statement records, added as
        labelled rows ahead of every passage (a ``statement rows`` step); nothing for a
        question naming no company, period or figure, or a handle that cannot look them up."""
        search = _handle(state)
        periods = row_periods(state.question)
        concepts, with_prior = row_concepts(state.question)
        company = state.company
        if company is None or not periods or not concepts or not looks_up_statements(search):
            return
        prior = with_prior if len(periods) == 1 else []
        budget = state.evidence.capacity_chars // ROW_SHARE
        looked_up = attempt(
            state.trace,
            "statement rows",
            partial(_rows, search, company, concepts, prior, periods, budget),
            typed=False,
            note=_rows_note,
        )
        if not isinstance(looked_up, Fault):
            state.records = looked_up.records
            state.evidence.add(looked_up.rows.passages, STATEMENT_ROWS)

    def _curate(self, state: QuestionState, search: SearchHandle, found: Retrieved) -> None:
        """Keeps the passages the curator chose and searches once for what it found missing;
        when curation fails, the retrieved passages stay, uncurated."""
        curated = attempt(
            state.trace,
            "curate",
            partial(self.curator, state.question, found.passages),  # type: ignore[misc]  # as above
            note=lambda c: f"kept {len(c.kept)}; answerable: {c.answerable}",
        )
        if isinstance(curated, Fault):
            return
        state.evidence.add(curated.kept, CURATED)
        query = curated.complementary_query
        if curated.answerable or not query:
            return
        more = attempt(
            state.trace,
            "complementary search",
            partial(self.retriever.search_all, [query], search, found.company, found.period),
            typed=False,
        )
        if not isinstance(more, Fault):
            state.tried.append(query)
            state.evidence.add(more, COMPLEMENTARY)


def row_periods(question: str) -> list[str]:
    """The periods whose figures ``question`` asks for: those it names, and every fiscal
    year of a span it averages over ("FY2015 - FY2017 3 year average")."""
    years = averaged_years(question)
    if years is not None:
        return [f"FY{year}" for year in years]
    return [ref.text for ref in find_periods(question)]


def row_concepts(question: str) -> tuple[list[str], list[str]]:
    """The concepts whose figures ``question`` asks for, in order, and those of them it needs
    the prior period of too: the concepts it names, then the inputs of each catalogue metric
    it names and does not define itself, and revenue for a share of revenue ("% margin");
    all of them wanting the prior period when it asks for an average, a change or a
    direction ("an improving margin"), else the metric inputs taken at the prior period or
    averaged."""
    named = question_concepts(question)
    if asks_share_of_revenue(question):
        named = list(dict.fromkeys([*named, "revenue"]))
    concepts = dict.fromkeys(named)
    asks_prior = bool(_AVERAGE.search(question) or asks_for_change(question))
    asks_prior = asks_prior or asked_direction(question) is not None
    prior = dict.fromkeys(named if asks_prior else [])
    for metric in metrics_named(question):
        if question_defines(question, metric):
            continue
        for needed in metric.inputs:
            concepts[needed.concept] = None
            if asks_prior or needed.period != "current":
                prior[needed.concept] = None
    return list(concepts), list(prior)


class _LookedUp(NamedTuple):
    """The statement records found for a question, and the rows shown of them."""

    records: list[StatementRecord]
    rows: Screening


def _rows(
    search: SearchHandle,
    company: str,
    concepts: list[str],
    prior: list[str],
    periods: list[str],
    budget_chars: int,
) -> _LookedUp:
    """The records of ``concepts`` in ``periods`` (and of ``prior`` in the periods before),
    concept by concept, and their rows, screened."""
    found = statement_records_of(search, company, concepts, periods) or []
    if prior:
        found += statement_records_of(search, company, prior, periods, prior=True) or []
    order = {concept: index for index, concept in enumerate(concepts)}
    found.sort(key=lambda record: order.get(record.concept or "", len(order)))
    return _LookedUp(found, screen(statement_rows(found, budget_chars)))


def _rows_note(looked_up: _LookedUp) -> str:
    rows = looked_up.rows
    lines = sum(len(p.text.splitlines()) - 1 for p in rows.passages)
    shown = ", ".join(f"{p.doc_id} p.{p.page}" for p in rows.passages)
    note = f"{lines} row(s)" + (f": {shown}" if shown else "")
    return note + (f"; withheld {len(rows.withheld)} line(s)" if rows.withheld else "")


def _handle(state: QuestionState) -> SearchHandle:
    if state.search is None:
        raise ValueError("evidence gathering needs a search handle")
    return state.search


def _covers(search: SearchHandle, company: str) -> bool:
    """Whether the handle holds filings of ``company``; handles that cannot tell (no
    ``covers`` method) are assumed to."""
    covers = getattr(search, "covers", None)
    return not callable(covers) or bool(covers(company))


def _not_indexed(state: QuestionState, company: str) -> FinalAnswer:
    reason = f"the index holds no filings of {company}; not answering from another company's"
    return stopped(state.question, "refused", reason, state.trace)
