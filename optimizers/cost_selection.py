"""The cost-aware choice among structures that answered the same questions: the cheapest of
those the paired test cannot tell from the most accurate.

A structure is *tied* with the most accurate one when, question by question, the one-sided
sign test of its losses against its wins does not call it worse (``p > TIE_P_VALUE``, the
compile's default bar for keeping a compiled program) and, over an index, it finds the gold page
on no fewer questions than it misses it where the other found it. On a dozen questions a
leader by three answers is within the test's noise, and a step that costs a minute and earns
nothing should go; but a search step's earnings are the pages it finds, which a small reader
may not turn into answers yet. Costs are priced cold (:func:`priced_rows`): the structures
share one response cache, so a step repeating the start's request is priced at the start's
step on the same question. Costs within the clock's noise of the cheapest (:func:`same_cost`)
are the same cost, and of those the more accurate structure is kept.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Mapping, Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict

from filingqa.evaluation.paired import paired_outcomes, sign_test
from filingqa.evaluation.runner import Row


class PricedCost(BaseModel):
    """A row's cost had it run cold: seconds, prompt tokens evaluated, tokens generated."""

    seconds: float
    prompt_tokens_evaluated: float
    generated_tokens: float


def priced(row: Row, start: Row | None) -> PricedCost:
    """``row``'s cost run cold: a step whose LM calls all came from the response cache
    (calls, no tokens) priced at the start's step of that name on the same question (the
    request it repeats), every other step at its own measurement."""
    own = {s.name: s for s in reversed(start.steps)} if start is not None else {}
    seconds = row.seconds
    evaluated = float(row.prompt_tokens_evaluated or 0)
    generated = float(row.generated_tokens or 0)
    for step in row.steps:
        first = own.get(step.name)
        if step.lm_calls and not step.tokens and first is not None:
            seconds += first.seconds - step.seconds
            evaluated += first.prompt_tokens_evaluated
            generated += first.generated_tokens
    return PricedCost(
        seconds=round(seconds, 3),
        prompt_tokens_evaluated=evaluated,
        generated_tokens=generated,
    )


def priced_rows(rows: Sequence[Row], start: Sequence[Row]) -> list[PricedCost]:
    """Each of ``rows`` priced cold against the start's row of the same question."""
    by_id = {row.id: row for row in start}
    return [priced(row, by_id.get(row.id)) for row in rows]


def mean_seconds(rows: Sequence[Row], start: Sequence[Row]) -> float:
    """Cold seconds per question of ``rows`` (:func:`priced_rows`; 0 for none)."""
    costs = priced_rows(rows, start)
    return statistics.mean(c.seconds for c in costs) if costs else 0.0


TIE_P_VALUE = 0.1
"""A structure is told apart from the most accurate one when the one-sided sign test of its
losses against its wins gives a p-value at most this."""


PAGE_TOLERANCE = 1
"""A structure is told apart from the most accurate one when its searches miss the gold page
on more than this many questions beyond those where they find it and the other's do not."""

SAME_COST_SECONDS = 0.5
SAME_COST_SHARE = 0.05
"""Two structures cost the same when their cold seconds per question differ by at most the
larger of these (seconds, and a share of the cheaper's): a difference that small is the
clock's noise, and the more accurate of the two is kept."""

GoldPages = Mapping[str, bool | None]
"""By question id, whether a structure's searches found a gold page (None: none known)."""


def gold_pages_of(rows: Sequence[Row]) -> GoldPages:
    """Whether each row's searches retrieved a gold page, by question id."""
    return {row.id: row.gold_retrieved for row in rows}


def gold_pages_paired(baseline: GoldPages, candidate: GoldPages) -> tuple[int, int]:
    """The questions whose gold page ``candidate`` found and ``baseline`` did not (found),
    and the reverse (missed); questions without a gold page known to both are left out."""
    pairs = [
        (new, baseline[key])
        for key, new in candidate.items()
        if new is not None and baseline.get(key) is not None
    ]
    found = sum(1 for new, was in pairs if new and not was)
    return found, sum(1 for new, was in pairs if was and not new)


def tied(
    baseline: Sequence[Row],
    candidate: Sequence[Row],
    pages: tuple[GoldPages, GoldPages] | None = None,
    max_p_value: float = TIE_P_VALUE,
) -> bool:
    """Whether the paired test cannot tell ``candidate`` from ``baseline``: the sign test of
    its losses against its wins gives p above ``max_p_value``, and it misses the gold page
    on at most :data:`PAGE_TOLERANCE` more questions than it finds one — on ``pages`` (the
    baseline's and the candidate's, such as their first searches over more questions) when
    given, else on the rows' own searches.

    Raises:
        ValueError: the two did not answer the same questions.
    """
    wins, losses = paired_outcomes(baseline, candidate)
    was, new = pages or (gold_pages_of(baseline), gold_pages_of(candidate))
    found, missed = gold_pages_paired(was, new)
    return sign_test(losses, wins) > max_p_value and missed <= found + PAGE_TOLERANCE


def cheaper_unless_told_worse(
    candidate_cost: float, start_cost: float, wins: int, losses: int, max_p_value: float
) -> bool:
    """The rule of :func:`cheapest_tied` for two candidates priced in another unit (LM
    calls): whether the candidate replaces the start given its paired ``wins`` and
    ``losses`` — the cheaper of the two, unless the one-sided sign test at ``max_p_value``
    tells the other better; at equal cost the one that wins more (a tie keeps the start)."""
    if candidate_cost < start_cost:
        return sign_test(losses, wins) > max_p_value
    if candidate_cost > start_cost:
        return sign_test(wins, losses) <= max_p_value
    return wins > losses


Verdict = Literal["kept", "tied", "worse"]


class CostedCandidate(BaseModel):
    """A structure's accuracy and cold cost on the questions, and the rule's verdict."""

    model_config = ConfigDict(extra="forbid")

    key: str
    questions: int
    accuracy: float
    seconds: float
    prompt_tokens_evaluated: float
    generated_tokens: float
    gold_hit: float | None = None
    page_questions: int | None = None
    """The questions ``gold_hit`` and the gold pages found and missed count (None: the
    answered questions)."""
    wins: int
    losses: int
    gold_found: int = 0
    gold_missed: int = 0
    verdict: Verdict

    def describe(self) -> str:
        """One line: key, accuracy, s/question, and the verdict against the most accurate."""
        over = f" of {self.page_questions} first searches" if self.page_questions else ""
        pages = (
            f", gold pages {self.gold_found} found, {self.gold_missed} missed{over}"
            if self.gold_hit is not None
            else ""
        )
        return (
            f"{self.key} {self.accuracy:.0%} {self.seconds:.0f} s/q "
            f"({self.wins} won, {self.losses} lost{pages} against the most accurate: "
            f"{self.verdict})"
        )


def cheapest_tied(
    rows: Mapping[str, Sequence[Row]],
    start: str,
    pages: Mapping[str, GoldPages] | None = None,
    max_p_value: float = TIE_P_VALUE,
) -> list[CostedCandidate]:
    """Every structure of ``rows`` (by key, the same questions each) with its verdict: the
    most accurate (more gold pages found, then fewer seconds breaking a tie) and those tied
    with it (:func:`tied`, at ``max_p_value``) are candidates, and the cheapest of them is
    ``kept`` (the most accurate of those costing the same, :func:`same_cost`); the rest are
    ``worse``.
    Gold pages are counted on ``pages`` (by key, the same questions each) when given, else
    on the rows' own searches. Best first: kept, then by accuracy and seconds.

    Raises:
        ValueError: the structures did not answer the same questions, ``start`` has none,
            or ``pages`` misses a structure.
    """
    if start not in rows:
        raise ValueError(f"no rows of the start structure {start!r}")
    if pages is not None and set(rows) - set(pages):
        raise ValueError(f"no gold pages of {sorted(set(rows) - set(pages))}")
    found_pages = pages or {key: gold_pages_of(answered) for key, answered in rows.items()}
    costed = {key: _costed(answered, rows[start]) for key, answered in rows.items()}
    hit_rate = {key: _hit_rate(found_pages[key]) for key in rows}
    best = min(
        costed, key=lambda key: (-costed[key][0], -(hit_rate[key] or 0), costed[key][1].seconds)
    )
    candidates = []
    for key, answered in rows.items():
        wins, losses = paired_outcomes(rows[best], answered)
        compared = (found_pages[best], found_pages[key])
        found, missed = gold_pages_paired(*compared)
        accuracy, cost = costed[key]
        candidates.append(
            CostedCandidate(
                key=key,
                questions=len(answered),
                accuracy=round(accuracy, 4),
                seconds=round(cost.seconds, 2),
                prompt_tokens_evaluated=round(cost.prompt_tokens_evaluated, 1),
                generated_tokens=round(cost.generated_tokens, 1),
                gold_hit=hit_rate[key],
                page_questions=len(found_pages[key]) if pages is not None else None,
                wins=wins,
                losses=losses,
                gold_found=found,
                gold_missed=missed,
                verdict="tied"
                if key == best or tied(rows[best], answered, compared, max_p_value)
                else "worse",
            )
        )
    kept = _cheapest(c for c in candidates if c.verdict == "tied")
    kept.verdict = "kept"
    order = {"kept": 0, "tied": 1, "worse": 2}
    return sorted(candidates, key=lambda c: (order[c.verdict], -c.accuracy, c.seconds))


def same_cost(seconds: float, cheapest: float) -> bool:
    """Whether ``seconds`` per question costs the same as the ``cheapest``
    (:data:`SAME_COST_SECONDS`, :data:`SAME_COST_SHARE`)."""
    return seconds - cheapest <= max(SAME_COST_SECONDS, SAME_COST_SHARE * cheapest)


def _cheapest(tied_ones: Iterable[CostedCandidate]) -> CostedCandidate:
    """Of structures tied on accuracy, the cheapest; among those costing the same
    (:func:`same_cost`), the most accurate (more gold pages, then fewer seconds)."""
    candidates = list(tied_ones)
    cheapest = min(c.seconds for c in candidates)
    return min(
        (c for c in candidates if same_cost(c.seconds, cheapest)),
        key=lambda c: (-c.accuracy, -(c.gold_hit or 0), c.seconds),
    )


def _costed(rows: Sequence[Row], start: Sequence[Row]) -> tuple[float, PricedCost]:
    """Accuracy and mean cold cost per question of ``rows``."""
    costs = priced_rows(rows, start)
    mean = PricedCost(
        seconds=statistics.mean(c.seconds for c in costs),
        prompt_tokens_evaluated=statistics.mean(c.prompt_tokens_evaluated for c in costs),
        generated_tokens=statistics.mean(c.generated_tokens for c in costs),
    )
    return statistics.mean(r.score for r in rows), mean


def _hit_rate(pages: GoldPages) -> float | None:
    """The share of questions with a gold page known where one was found."""
    hits = [float(hit) for hit in pages.values() if hit is not None]
    return round(statistics.mean(hits), 4) if hits else None
