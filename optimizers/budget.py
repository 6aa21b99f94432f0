"""What a compile costs: LM calls per stage, at a speed assumed, then measured.

The estimate (:func:`estimate`) counts each stage's LM calls from the draw sizes and the
optimizer's settings, and prices them at an assumed seconds per call until the compile has
timed its backbone: :func:`call_seconds` on the first dev question's answer before the
estimate is printed, :func:`re_estimate` on stage 1's answers after it.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, computed_field

from filingqa.evaluation.runner import Row
from filingqa.optimizers.optimizer_registry import STRUCTURE, prompt_optimizer
from filingqa.optimizers.presets import OptimizerSettings, Target
from filingqa.optimizers.structure_search import (
    LOCAL_SPACE,
    Structure,
    candidates,
    fresh_cost,
    rung_sizes,
)

LOCAL_SECONDS_PER_CALL: dict[Target, float] = {"pot": 12.0, "program": 12.6}
"""Seconds per call assumed until the compile times its backbone (and in a dry run): one PoT
call and one call of the whole program of the embedded model, as the committed artifact's
compile ran them (docs/experiments.md)."""
API_SECONDS_PER_CALL = 4.0
"""A guess for a hosted model until its first dev answer is timed: latency per call,
before threading."""
DEMO_SLOWDOWN = 0.45
"""Extra time per demo in the prompt, as a share of a zero-shot call (a demo repeats an
evidence block about as long as the question's own)."""
CALLS_PER_QUESTION: dict[Target, float] = {"pot": 1.15, "program": 1.8}
"""LM calls per question: PoT (one, plus repairs) and the uncompiled program over gold
context (the ambiguity check where the wording has a cue, the loop where the rule sends
the question)."""
OPEN_CALLS_PER_QUESTION = 5.2
"""LM calls of the uncompiled program per question searching an index (FinanceBench)."""
SEARCHED_VOTES_ANSWERS = 2.2
"""An answer over an index voting as a compiled pick votes (five, in both compiles' picks
before the gold-context selection weighed cost), in answers voting once: the open-corpus
stage's candidate of a pick that votes, priced at the share of the structure search's
candidates that vote (:func:`voting_share`)."""
OPEN_FRESH_SHARE: dict[str, float] = {
    "curation": 0.03,
    "query_writing": 0.6,
    "hypotheses": 0.5,
    "decompose": 0.15,
    "k": 0.55,
    "explanations": 0.01,
    "answer_forms": 0.35,
    "combined": 0.35,
}
"""For each option the open-corpus stage changes (all its values together; and the changes
combined), about the share of a start's answer it asks afresh: what it does not repeat of
the start's requests (a changed search redoes the reading and its votes; a path chosen by
the wording redoes the reading of the questions it routes otherwise)."""
PAGE_CHECK_CALLS = 3.25
"""The query-writing calls of the start's first search for a question the stage has not
answered, in query-writing calls: a rewrite, the hypothetical passages (often cut at their
token limit), and a decomposition for about a quarter."""
PAGE_CHECK_VARIANT_CALLS = 1.0
"""The fresh calls per question of the page check's other structures together: one set of
hypothetical passages of another length (the rest repeat the start's requests or write no
queries)."""
PROMPT_PICK_SHARE = 1.0
"""A prompt optimizer's pick's answer in fresh answers of the uncompiled program: its
prompts differ, so none of its requests repeats the start's."""
ROUTED_OTHERWISE = 0.25
"""The share of the confirmation questions the trained router sends another way than the
loop policy (each answered in a single pass and in the full loop): a guess until a compile
with the confirmation measures it."""
LOOP_CALLS = 1.2
"""The verify-revise loop's calls after a question's single pass: a verdict, and a
revision and a verdict more where the verifier rejects."""


class CallShape(BaseModel):
    """An average LM call of the compile: the prompt tokens the engine evaluates (the
    rest come from its KV prefix), the tokens it generates, and the share of time spent
    outside both (sandbox, judge, parsing)."""

    model_config = ConfigDict(frozen=True)

    evaluated_tokens: float
    generated_tokens: float
    overhead: float

    def seconds(
        self, prefill_tokens_per_second: float, generated_tokens_per_second: float
    ) -> float:
        """The call's seconds on a backbone with these speeds."""
        model = (
            self.evaluated_tokens / prefill_tokens_per_second
            + self.generated_tokens / generated_tokens_per_second
        )
        return model * (1 + self.overhead)


CALL_SHAPE = CallShape(evaluated_tokens=546, generated_tokens=105, overhead=0.10)
"""The average call of the committed artifact's compile, stage 1 (docs/compiling.md); the
PoT target is costed with it too."""
OPEN_CALL_SHAPE = CallShape(evaluated_tokens=925, generated_tokens=131, overhead=0.10)
"""A call of the program searching an index (the FinanceBench report rows,
docs/compiling.md)."""
PAGE_CALL_SHAPE = CallShape(evaluated_tokens=366, generated_tokens=138, overhead=0.10)
"""A query-writing call (the FinanceBench report rows' retrieve step)."""
REFERENCE_SPEEDS = (168.0, 36.0)
"""Prompt and generated tokens/s a stage's calls are weighed against the average call at
until the backbone is timed (or when it reports no token times): the committed artifact's
compile's first dev question."""


class StageCost(BaseModel):
    """A stage that makes no LM call: its minutes and how they were reckoned."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    minutes: float
    basis: str


class BudgetEstimate(BaseModel):
    """Approximate LM calls per stage and the wall time they take; ``slowed_calls`` carry
    ``demos`` demos each, each demo adding ``demo_slowdown`` of a zero-shot call. The stages
    in ``if_compiled`` run only if the compiled program goes on (it wins dev or costs less
    there): they are priced apart from the total."""

    calls: dict[str, int]
    if_compiled: dict[str, int] = {}
    shapes: dict[str, CallShape] = {}
    """A stage whose calls are not the average call's shape (longer evidence, or shorter)."""
    speeds: tuple[float, float] = REFERENCE_SPEEDS
    """The backbone's prompt and generated tokens/s the shapes are weighed at."""
    other: dict[str, StageCost] = {}
    slowed_calls: float = 0.0
    demos: float = 0.0
    demo_slowdown: float = DEMO_SLOWDOWN
    seconds_per_call: float
    speed_basis: str
    threads: int

    @computed_field  # type: ignore[prop-decorator]
    @property
    def weights(self) -> dict[str, float]:
        """Each shaped stage's call in average calls' time at :attr:`speeds`."""
        average = CALL_SHAPE.seconds(*self.speeds)
        return {
            stage: round(s.seconds(*self.speeds) / average, 2) for stage, s in self.shapes.items()
        }

    def _call_equivalents(self, calls: dict[str, int]) -> float:
        """``calls`` in average calls' time."""
        weights = self.weights
        return sum(n * weights.get(stage, 1.0) for stage, n in calls.items())

    def _lm_minutes(self, call_equivalents: float) -> float:
        return call_equivalents * self.seconds_per_call / self.threads / 60

    @property
    def total_calls(self) -> int:
        """All stages' LM calls but those of :attr:`if_compiled`."""
        return sum(self.calls.values())

    @property
    def minutes(self) -> float:
        """Estimated wall time (the compiled program not going on), demos' slowdown and
        threads included."""
        demos = self.slowed_calls * self.demos * self.demo_slowdown
        lm_minutes = self._lm_minutes(self._call_equivalents(self.calls) + demos)
        return lm_minutes + sum(cost.minutes for cost in self.other.values())

    @property
    def minutes_if_compiled(self) -> float:
        """Estimated wall time if the compiled program goes on."""
        return self.minutes + self._lm_minutes(self._call_equivalents(self.if_compiled))

    def describe(self) -> str:
        """One line per stage, then the total, then the stages run only if the compiled
        program goes on and the total with them."""
        lines = [self._stage_line(stage, calls) for stage, calls in self.calls.items()]
        lines += [
            f"  {stage:<22}≈ {cost.minutes:>5.1f} min, no LM ({cost.basis})"
            for stage, cost in self.other.items()
        ]
        lines.append(
            f"  total ≈ {self.total_calls} LM calls, ≈ {self.minutes:.0f} min "
            f"(at {self.seconds_per_call:.3g} s per call, {self.speed_basis}, "
            f"{self.threads} thread(s); "
            "calls answered from the cache cost nothing)"
        )
        if self.if_compiled:
            lines.append("  if the compiled program goes on (it wins dev or costs less there):")
            lines += [self._stage_line(stage, calls) for stage, calls in self.if_compiled.items()]
            calls = self.total_calls + sum(self.if_compiled.values())
            lines.append(f"  then ≈ {calls} LM calls, ≈ {self.minutes_if_compiled:.0f} min")
        return "\n".join(lines)

    def _stage_line(self, stage: str, calls: int) -> str:
        weight = self.weights.get(stage)
        each = f" (each ≈ {weight:g} average calls)" if weight is not None else ""
        return f"  {stage:<22}≈ {calls:>5} LM calls{each}"


def _optimizer_calls(
    s: OptimizerSettings, train: int, dev: int, per_question: float
) -> tuple[dict[str, float], frozenset[str], float]:
    """LM calls per optimizer stage, the stages whose prompts carry demos, and the average
    demos in them."""
    if s.optimizer == STRUCTURE:
        return {"structure search": search_answers(s, dev) * per_question}, frozenset(), 0.0
    optimizer = prompt_optimizer(s.optimizer)
    demos = (1 + s.max_demos) / 2 if optimizer.demo_stages else 0.0
    return optimizer.stage_calls(s, train, dev, per_question), optimizer.demo_stages, demos


def _candidates(s: OptimizerSettings) -> list[Structure]:
    """The structure search's candidates from the default start."""
    return candidates(Structure(), LOCAL_SPACE, worked_examples=bool(s.pool))


def _candidate_costs(s: OptimizerSettings) -> list[float]:
    """The structure search's candidates' answers in fresh answers of the start (weighted
    by :func:`~filingqa.optimizers.structure_search.fresh_cost`), cheapest first; the best
    changes combined cost as much as the costliest single change."""
    singles = [fresh_cost(c, Structure()) for c in _candidates(s)]
    return sorted([max(singles, default=1.0), *singles])


def _survivor_cost(costs: Sequence[float], alive: int) -> float:
    """A survivor's expected answer when ``alive`` of the candidates priced ``costs``
    (cheapest first) go on. Which survive is known only once they are scored: halfway
    between all candidates' mean (accuracy unrelated to cost) and the cheapest ``alive``'s
    (every candidate tied, the ranking breaking ties by LM calls)."""
    return (sum(costs) / len(costs) + sum(costs[:alive]) / alive) / 2


def search_answers(s: OptimizerSettings, dev: int) -> float:
    """The structure search's answers in fresh answers of the start: every candidate at
    the first rung, the best ``1/eta`` at each later one, each survivor priced by
    :func:`_survivor_cost`, and the cheapest not told worse going on beside them, priced as
    the cheapest candidate."""
    costs = _candidate_costs(s)
    answered, previous, alive = 0.0, 0, len(costs)
    for rung, size in enumerate(rung_sizes(dev, s.first_rung or dev, s.eta)):
        each = sum(costs) if rung == 0 else alive * _survivor_cost(costs, alive) + costs[0]
        answered += each * (size - previous)
        alive, previous = max(1, math.ceil(alive / s.eta)), size
    return answered


def pick_share(s: OptimizerSettings) -> float:
    """The compiled pick's answer in fresh answers of the uncompiled program, beside whose
    answers it runs: the structure search's last survivor's
    (:func:`_survivor_cost`; the requests it shares with the start are the cache's), a
    prompt optimizer's :data:`PROMPT_PICK_SHARE`."""
    if s.optimizer != STRUCTURE:
        return PROMPT_PICK_SHARE
    return _survivor_cost(_candidate_costs(s), 1)


def voting_share(s: OptimizerSettings) -> float:
    """The share of the structure search's candidates that vote more than the start (the
    best changes combined among them when any does): how likely a pick is to vote. A
    prompt optimizer's pick keeps the start's one vote."""
    if s.optimizer != STRUCTURE:
        return 0.0
    found = _candidates(s)
    voting = sum(c.samples > Structure().samples for c in found)
    return (voting + (1 if voting else 0)) / (len(found) + 1)


def estimate(
    settings: OptimizerSettings,
    *,
    train: int,
    dev: int,
    calibration: int,
    local: bool,
    confirm: int = 0,
    reranker: StageCost | None = None,
    encoder: StageCost | None = None,
    calibration_is_dev: bool = False,
    calibration_looped: int = 0,
    open_questions: int = 0,
    page_questions: int = 0,
    open_confirm: int = 0,
) -> BudgetEstimate:
    """The cost of a compile with ``train``/``dev``/``confirm``/``calibration`` questions
    drawn, and ``reranker`` and ``encoder`` training (None: skipped), at the assumed speed.
    The total prices the uncompiled program kept; apart from it (``if_compiled``), what the
    compiled program's going on adds: its confirmation (both programs answer the draw, the
    compiled one at :func:`pick_share`) and the open-corpus stage's candidate voting as
    the pick votes, at :data:`SEARCHED_VOTES_ANSWERS` times :func:`voting_share` (the
    stage's start votes once, so its other candidates cost what they cost after the
    uncompiled program; a voting structure's confirmation, never chosen in a compile yet,
    is not priced). The router's confirmation
    is priced on the share :data:`ROUTED_OTHERWISE` of the draw. When the
    calibration questions are the dev draw, the kept module's dev answers hold their single
    passes, which the cache answers; a kept program's (``target`` program) hold the full
    loops too of the ``calibration_looped`` questions its keyword rule sent through the loop. The
    open-corpus stage's ``open_questions`` are counted in calls of :data:`OPEN_CALL_SHAPE`,
    its page check's ``page_questions`` in query-writing calls (:data:`PAGE_CALL_SHAPE`), its
    confirmation's ``open_confirm`` as if a structure other than the start is chosen: the
    start answers them, and the chosen one at an option's mean share of
    :data:`OPEN_FRESH_SHARE` beside it."""
    per_question = CALLS_PER_QUESTION[settings.target]
    optimizing, slowed, demos = _optimizer_calls(settings, train, dev, per_question)
    stages = {"dev score before": dev * per_question, **optimizing}
    if_compiled: dict[str, float] = {}
    if confirm:
        if_compiled["confirmation"] = confirm * per_question * (1 + pick_share(settings))
    # the full loop's first pass repeats the single pass's requests
    single = 0.0 if calibration_is_dev else CALLS_PER_QUESTION["pot"]
    ran_loops = calibration_is_dev and settings.target == "program"
    looped = min(calibration_looped, calibration) if ran_loops else 0
    shapes = {}
    if open_questions:
        answers = 1 + sum(OPEN_FRESH_SHARE.values())
        stages["open-corpus search"] = open_questions * OPEN_CALLS_PER_QUESTION * answers
        shapes["open-corpus search"] = OPEN_CALL_SHAPE
    if page_questions:
        unanswered = max(page_questions - open_questions, 0)
        checks = unanswered * PAGE_CHECK_CALLS + page_questions * PAGE_CHECK_VARIANT_CALLS
        stages["open-corpus pages"] = checks
        shapes["open-corpus pages"] = PAGE_CALL_SHAPE
    if open_confirm:
        chosen = statistics.mean(OPEN_FRESH_SHARE.values())
        stages["open confirmation"] = open_confirm * OPEN_CALLS_PER_QUESTION * (1 + chosen)
        shapes["open confirmation"] = OPEN_CALL_SHAPE
    votes = (SEARCHED_VOTES_ANSWERS - 1) * voting_share(settings)
    if open_questions and votes:
        if_compiled["open-corpus votes"] = open_questions * OPEN_CALLS_PER_QUESTION * votes
        shapes["open-corpus votes"] = OPEN_CALL_SHAPE
    stages["router labels"] = calibration * single + (calibration - looped) * LOOP_CALLS
    if confirm:
        both_ways = 2 * CALLS_PER_QUESTION["pot"] + LOOP_CALLS
        stages["router confirmation"] = confirm * ROUTED_OTHERWISE * both_ways
    return BudgetEstimate(
        calls={stage: math.ceil(calls) for stage, calls in stages.items()},
        if_compiled={stage: math.ceil(calls) for stage, calls in if_compiled.items()},
        shapes=shapes,
        other={
            stage: cost
            for stage, cost in (("reranker training", reranker), ("encoder training", encoder))
            if cost is not None
        },
        slowed_calls=sum(calls for stage, calls in stages.items() if stage in slowed),
        demos=demos,
        seconds_per_call=LOCAL_SECONDS_PER_CALL[settings.target] if local else API_SECONDS_PER_CALL,
        speed_basis=f"{'assumed' if local else 'guessed'}; a run times its backbone first",
        threads=1 if local else settings.threads,
    )


class Timing(BaseModel):
    """A backbone's speed as a run measured it: an average compile call's seconds, how that
    was found, and the prompt and generated tokens/s where the backbone reports them."""

    model_config = ConfigDict(frozen=True)

    seconds_per_call: float
    basis: str
    speeds: tuple[float, float] | None = None

    def applied(self, planned: BudgetEstimate) -> BudgetEstimate:
        """``planned`` priced at this speed, its stages' call shapes weighed at its tokens/s."""
        update: dict[str, object] = {
            "seconds_per_call": round(self.seconds_per_call, 2),
            "speed_basis": self.basis,
        }
        if self.speeds is not None:
            update["speeds"] = self.speeds
        return planned.model_copy(update=update)


def token_speeds(rows: Sequence[Row]) -> tuple[float, float] | None:
    """The prompt tokens evaluated and tokens generated per second over ``rows``; None
    where the backbone does not report its prefill and generation times."""
    prefill = sum(r.prefill_seconds or 0.0 for r in rows)
    generation = sum(r.generation_seconds or 0.0 for r in rows)
    evaluated = sum(r.prompt_tokens_evaluated or 0 for r in rows)
    generated = sum(r.generated_tokens or 0 for r in rows)
    if not (prefill and generation and evaluated and generated):
        return None
    return evaluated / prefill, generated / generation


def call_seconds(rows: Sequence[Row]) -> Timing | None:
    """The backbone's speed as ``rows`` ran; None when the cache answered every call. Where
    the backbone reports its prefill and generation times, an average call's tokens
    (:data:`CALL_SHAPE`) at those speeds, so that a short or long first question does not
    skew it; otherwise the rows' seconds per fresh call."""
    fresh = sum(r.lm_calls - r.cached_calls for r in rows)
    if not fresh:
        return None
    speeds = token_speeds(rows)
    if speeds is None:
        seconds = sum(r.seconds for r in rows) / fresh
        return Timing(seconds_per_call=seconds, basis="measured on the first dev question")
    basis = (
        f"measured: {speeds[0]:.0f} prompt and {speeds[1]:.0f} generated tokens/s on the "
        "first dev question"
    )
    return Timing(seconds_per_call=CALL_SHAPE.seconds(*speeds), basis=basis, speeds=speeds)


def re_estimate(rows: Sequence[Row], planned: BudgetEstimate) -> str:
    """The seconds per LM call ``rows`` took, and the estimate redone at that speed (its
    call shapes weighed at the rows' tokens/s); empty when every call was answered from the
    cache. When the backbone reports its prefill time, a demo's cost is measured too: its
    tokens (about one request's prompt) at the seconds per prompt token the model
    evaluated."""
    fresh = sum(r.lm_calls - r.cached_calls for r in rows)
    if not fresh:
        return ""
    speed = sum(r.seconds for r in rows) / fresh
    update: dict[str, object] = {"seconds_per_call": speed}
    measured = ""
    prefill = sum(r.prefill_seconds or 0.0 for r in rows)
    evaluated = sum(r.prompt_tokens_evaluated or 0 for r in rows)
    sent = sum(r.prompt_tokens or 0 for r in rows)
    if prefill and evaluated and sent:
        per_token = prefill / evaluated
        slowdown = per_token * sent / fresh / speed
        update["demo_slowdown"] = slowdown
        measured = (
            f", {sent / fresh:,.0f} prompt tokens sent and {evaluated / fresh:,.0f} evaluated "
            f"per call at {1 / per_token:.0f} tokens/s: a demo ≈ +{slowdown:.0%}"
        )
    speeds = token_speeds(rows)
    if speeds is not None:
        update["speeds"] = speeds
    redone = planned.model_copy(update=update)
    if_compiled = (
        f" ({redone.minutes_if_compiled:.0f} if the compiled program goes on)"
        if redone.if_compiled
        else ""
    )
    return (
        f"; {speed:.1f} s per LM call here{measured} (the estimate priced a call at "
        f"{planned.seconds_per_call:g} s, a demo at +{planned.demo_slowdown:.0%}): "
        f"the whole compile ≈ {redone.minutes:.0f} min at this speed{if_compiled}"
    )
