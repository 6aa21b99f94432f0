"""The open-corpus stage of ``filingqa compile``: the retrieval path's steps chosen by what
they cost and what they earn, on questions that search an index.

Over gold context the steps of the retrieved-context path (decomposition, query writing,
curation, how many passages) never run, so the structure search cannot weigh them. When the
index of the settings' ``open_index`` is built, this stage answers the ``open_dev``
questions searching it, with the kept structure voting once over searched evidence (the
start, :func:`open_start`) and with each single change of :func:`open_space`, then with the
start changed in every option whose change earns its place
(:func:`changes_together`); every structure shares one response cache
(empty at the stage's start, so the start's costs are its own) and is priced cold
(:mod:`~filingqa.optimizers.cost_selection`). Gold pages are weighed on more questions than
are answered when the settings name ``open_pages``: each structure's first search alone over
them (:mod:`~filingqa.optimizers.search_pages`). The cheapest of the structures the test
cannot tell from the most accurate is chosen; when that is not the start and the settings
name ``open_confirm``, the two answer those questions too (no filing shared with the
stage's own, nor with the page check's) and the chosen structure is kept only if it is the
cheaper of the two there or told better (:func:`~filingqa.optimizers.selection.confirm`).
The options searched here act only over an index, or only on questions asking why or how,
or (``answer_forms``) on the question's form, which the gold-context draw seldom varies, so
the gold-context choice stands otherwise. Its votes over gold context stand too; over searched
evidence they are a candidate (``searched_samples``) that must earn its price like the others,
not the start every candidate pays for.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from pydantic import BaseModel, ConfigDict

from filingqa.artifacts.compiled import read_reranker
from filingqa.artifacts.manifest import PROGRAM_FILE, Confirmation
from filingqa.core.cache import fresh_dspy_cache
from filingqa.evaluation.modes import Mode, searching_program
from filingqa.evaluation.open_corpus import OpenCorpus, open_corpus
from filingqa.evaluation.paired import paired_outcomes
from filingqa.evaluation.runner import Row
from filingqa.optimizers.compile_data import SplitSpec
from filingqa.optimizers.compile_records import KeptProgram
from filingqa.optimizers.compile_stages import CompileRun
from filingqa.optimizers.cost_selection import (
    CostedCandidate,
    GoldPages,
    cheapest_tied,
    priced_rows,
    same_cost,
    tied,
)
from filingqa.optimizers.search_pages import searched_gold_pages
from filingqa.optimizers.selection import confirm
from filingqa.optimizers.structure_search import (
    ModeOf,
    SearchSpace,
    Structure,
    answer_by_question,
    candidates,
    changes,
)
from filingqa.program.financial_qa import FinancialQA
from filingqa.retrieval.search.rerank import Reranker

OPEN_DIR = "open"
PAGES_DIR = "pages"
CONFIRM_DIR = "confirm"
OPEN_SPACE: SearchSpace = {
    "curation": (False,),
    "query_writing": (False,),
    "hypotheses": (1, 0),
    "decompose": (False,),
    "k": (5,),
    "explanations": ("quoted",),
    "answer_forms": ("guess",),
}
"""Each LM step of the retrieved path switched to its cheap alternative (query writing down
to one hypothetical passage, or to the rewrite alone), fewer passages, and the answer's path
chosen by the question's wording (yes/no, a direction, a name, an explanation: forms the
gold-context draw's arithmetic questions seldom take)."""


def open_start(kept: Structure) -> Structure:
    """The stage's start: ``kept`` voting once over searched evidence (over gold context its
    votes stand)."""
    return Structure.model_validate(kept.model_dump() | {"searched_samples": 1})


def open_space(kept: Structure) -> SearchSpace:
    """:data:`OPEN_SPACE`, and where ``kept`` votes, its votes over searched evidence too."""
    votes = kept.searched_samples or kept.samples
    return {**OPEN_SPACE, "searched_samples": (votes,)} if votes > 1 else OPEN_SPACE


class OpenCorpusStage(BaseModel):
    """What the stage did: its questions, the index as the settings name it, every
    structure's accuracy, cold cost and verdict, and the structure kept (None: the stage was
    skipped, ``skipped`` says why)."""

    model_config = ConfigDict(extra="forbid")

    questions: int = 0
    page_questions: int = 0
    index: str | None = None
    candidates: list[CostedCandidate] = []
    structure: Structure | None = None
    confirmation: Confirmation | None = None
    """The structure chosen and the start on the confirmation draw (None: the start was
    chosen, or the plan has no confirmation questions)."""
    skipped: str | None = None
    lm_calls: int = 0
    seconds: float = 0.0

    def describe(self) -> str:
        """One line: what was kept, or why the stage was skipped."""
        if self.structure is None:
            return f"skipped: {self.skipped}"
        kept = next(c for c in self.candidates if c.verdict == "kept")
        if self.confirmation is None:
            return f"kept {kept.describe()} on {self.questions} answered questions"
        chosen = f"chose {kept.describe()} on {self.questions} answered questions"
        return f"{chosen}; {self.confirmation.describe()}"


def choose_retrieval(run: CompileRun, kept: KeptProgram) -> tuple[KeptProgram, OpenCorpusStage]:
    """``kept`` with the retrieval options the open-corpus questions chose, saved again as
    ``program.json`` (unchanged when the plan has none: the stage is skipped)."""
    plan = run.plan
    if not plan.open_dev or plan.open_index is None:
        return kept, OpenCorpusStage(skipped=plan.open_skipped or "no open-corpus questions")
    state = kept.program.dump_state()
    reranker = read_reranker(run.out)
    start = open_start(kept.structure)
    rows_dir = run.out / OPEN_DIR
    dataset = SplitSpec.parse(run.settings.open_dev[0]).dataset
    opened = open_corpus(dataset, plan.open_index, run.embedder)
    with fresh_dspy_cache(), opened as corpus:

        def answered(
            structures: Sequence[Structure], confirming: bool = False
        ) -> dict[str, list[Row]]:
            programs = {s.key: _program(s, state, kept, reranker) for s in structures}
            return answer_by_question(
                programs,
                plan.open_confirm if confirming else plan.open_dev,
                judge=run.judge,
                rows_dir=rows_dir / CONFIRM_DIR if confirming else rows_dir,
                mode_of=_searching(corpus),
                progress=run.progress,
                desc="open-corpus confirmation" if confirming else "open corpus",
            )

        def searched(structures: Sequence[Structure]) -> dict[str, GoldPages] | None:
            if not plan.open_pages:
                return None
            return searched_gold_pages(
                {s.key: _program(s, state, kept, reranker) for s in structures},
                plan.open_pages,
                corpus,
                pages_dir=rows_dir / PAGES_DIR,
                progress=run.progress,
            )

        tried = candidates(start, open_space(kept.structure), worked_examples=False)
        rows = answered(tried)
        pages = searched(tried)
        mixed = changes_together(start, tried, rows, pages)
        if mixed is not None and mixed.key not in rows:
            rows |= answered([mixed])
            pages = None if pages is None else pages | (searched([mixed]) or {})
        verdicts = cheapest_tied(rows, start.key, pages)
        chosen = next(c.key for c in verdicts if c.verdict == "kept")
        structure = next(s for s in [*tried, *([mixed] if mixed else [])] if s.key == chosen)
        confirmed: dict[str, list[Row]] = {}
        if structure != start and plan.open_confirm:
            confirmed = answered([start, structure], confirming=True)
    confirmation = (
        confirm(
            confirmed[start.key],
            confirmed[structure.key],
            run.settings.max_p_value,
            start=start.key,
            candidate=structure.key,
        )
        if confirmed
        else None
    )
    if confirmation is not None and not confirmation.held:
        structure = start
    asked = [row for answers in [*rows.values(), *confirmed.values()] for row in answers]
    stage = OpenCorpusStage(
        questions=len(plan.open_dev),
        page_questions=len(plan.open_pages),
        index=run.settings.open_index,  # as given: a name under the home, no machine path
        candidates=verdicts,
        structure=structure,
        confirmation=confirmation,
        lm_calls=sum(r.lm_calls - r.cached_calls for r in asked),
        seconds=round(sum(r.seconds for r in asked), 1),  # every run's, when resumed
    )
    program = _program(structure, state, kept, reranker)
    program.save(str(run.out / PROGRAM_FILE))  # with the predictors the structure adds
    return replace(kept, program=program, structure=structure), stage


def changes_together(
    start: Structure,
    tried: Sequence[Structure],
    rows: Mapping[str, Sequence[Row]],
    pages: Mapping[str, GoldPages] | None = None,
) -> Structure | None:
    """The start with every single change that earns its place: one the paired test cannot
    tell worse than the start (on ``pages`` when given, see
    :func:`~filingqa.optimizers.cost_selection.tied`) that costs less, priced cold, or costs
    the same (:func:`~filingqa.optimizers.cost_selection.same_cost`) and wins more questions
    than it loses; of an option's values, the cheapest such. None unless at least two
    options changed."""
    start_rows = rows[start.key]
    start_cost = _seconds(start_rows, start_rows)
    earning: dict[str, tuple[float, Any]] = {}
    for structure in tried:
        changed = changes(structure, start)
        if len(changed) != 1:
            continue
        (name,) = changed
        cost = _seconds(rows[structure.key], start_rows)
        compared = (pages[start.key], pages[structure.key]) if pages is not None else None
        cheapest = cost < earning.get(name, (math.inf, None))[0]
        if cheapest and _earns(start_rows, rows[structure.key], cost, start_cost, compared):
            earning[name] = (cost, getattr(structure, name))
    if len(earning) < 2:
        return None
    update = {name: value for name, (_, value) in earning.items()}
    return Structure.model_validate(start.model_dump() | update)


def _earns(
    start: Sequence[Row],
    changed: Sequence[Row],
    cost: float,
    start_cost: float,
    pages: tuple[GoldPages, GoldPages] | None,
) -> bool:
    """Whether a change not told worse than the start costs less, or wins more at the same
    cost."""
    if not tied(start, changed, pages):
        return False
    if cost < start_cost:
        return True
    wins, losses = paired_outcomes(start, changed)
    return same_cost(cost, start_cost) and wins > losses


def _seconds(rows: Sequence[Row], start: Sequence[Row]) -> float:
    """Mean seconds per question of ``rows``, priced cold against the start's."""
    return statistics.mean(cost.seconds for cost in priced_rows(rows, start))


def _program(
    structure: Structure, state: dict[str, Any], kept: KeptProgram, reranker: Reranker | None
) -> FinancialQA:
    """A program of ``structure`` carrying the kept program's state (a predictor the kept
    program has not, such as the quoted explanations', starts as it is) and searching
    reranked by the compile's ``reranker`` when it trained one."""
    program = structure.build(kept.worked_examples)
    own = program.dump_state()
    program.load_state(own | {name: value for name, value in state.items() if name in own})
    program.structure = structure
    if reranker is not None:
        program.reranker = reranker
    return program


def _searching(corpus: OpenCorpus) -> ModeOf:
    def mode_of(program: FinancialQA) -> Mode:
        return searching_program(corpus, program)

    return mode_of
