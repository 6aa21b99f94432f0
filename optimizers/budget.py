"""What a compile costs: LM calls per stage, at a speed assumed, then measured.

The estimate (:func:`estimate`) counts each stage's LM calls from the draw sizes and the
optimizer's settings, and prices them at an assumed seconds per call until the compile has
timed its backbone: :func:`call_seconds` on the first dev question's answer before the
estimate is printed, :func:`re_estimate` on stage 1's answers after it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict

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
OPEN_CALL_WEIGHT = 1.5
"""An open-corpus call in average compile calls: it evaluates about 925 prompt tokens and
generates about 131 (the FinanceBench report rows, docs/compiling.md) against the average
call's 546 and 105."""
OPEN_START_ANSWERS = 2.2
"""The start's answer over an index in answers of the uncompiled program: the gold-context
pick decodes its votes over searched evidence too (five, in both compiles' picks)."""
OPEN_FRESH_SHARE: dict[str, float] = {
    "searched_samples": 0.02,
    "curation": 0.03,
    "query_writing": 0.6,
    "hypotheses": 0.5,
    "decompose": 0.15,
    "k": 0.55,
    "explanations": 0.01,
    "combined": 0.35,
}
"""For each option the open-corpus stage changes (all its values together; and the changes
combined), about the share of a start's answer it asks afresh: what it does not repeat of
the start's requests (a changed search redoes the reading and its votes)."""
PAGE_CHECK_CALLS = 3.25
"""The query-writing calls of the start's first search for a question the stage has not
answered, in query-writing calls: a rewrite, the hypothetical passages (often cut at their
token limit), and a decomposition for about a quarter."""
PAGE_CHECK_VARIANT_CALLS = 1.0
"""The fresh calls per question of the page check's other structures together: one set of
hypothetical passages of another length (the rest repeat the start's requests or write no
queries)."""
PAGE_CALL_WEIGHT = 1.1
"""A query-writing call in average compile calls: it evaluates about 366 prompt tokens and
generates about 138 (the FinanceBench report rows' retrieve step)."""
PICK_ANSWERS = 2.8
"""A compiled program's answer over gold context in answers of the uncompiled program: the
committed artifact's pick took 2.8 times the uncompiled program's seconds on the TAT-QA
report questions (its votes decoded; docs/experiments.md)."""
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


class StageCost(BaseModel):
    """A stage that makes no LM call: its minutes and how they were reckoned."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    minutes: float
    basis: str


class BudgetEstimate(BaseModel):
    """Approximate LM calls per stage and the wall time they take; ``slowed_calls`` carry
    ``demos`` demos each, each demo adding ``demo_slowdown`` of a zero-shot call."""

    calls: dict[str, int]
    weights: dict[str, float] = {}
    """A stage whose calls each take this many average calls' time (longer evidence)."""
    other: dict[str, StageCost] = {}
    slowed_calls: float = 0.0
    demos: float = 0.0
    demo_slowdown: float = DEMO_SLOWDOWN
    seconds_per_call: float
    speed_basis: str
    threads: int

    @property
    def call_equivalents(self) -> float:
        """The calls in average zero-shot calls' time: demo-carrying calls and the calls of a
        weighted stage count for more."""
        weighted = sum(calls * self.weights.get(stage, 1.0) for stage, calls in self.calls.items())
        return weighted + self.slowed_calls * self.demos * self.demo_slowdown

    @property
    def total_calls(self) -> int:
        """All stages' LM calls."""
        return sum(self.calls.values())

    @property
    def minutes(self) -> float:
        """Estimated wall time, demos' slowdown and threads included."""
        lm_minutes = self.call_equivalents * self.seconds_per_call / self.threads / 60
        return lm_minutes + sum(cost.minutes for cost in self.other.values())

    def describe(self) -> str:
        """One line per stage, then the total."""
        lines = [
            f"  {stage:<22}≈ {calls:>5} LM calls"
            + (f" (each ≈ {self.weights[stage]:g} average calls)" if stage in self.weights else "")
            for stage, calls in self.calls.items()
        ]
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
        return "\n".join(lines)


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


def search_answers(s: OptimizerSettings, dev: int) -> float:
    """The structure search's answers in fresh answers of the start (each candidate's
    weighted by :func:`~filingqa.optimizers.structure_search.fresh_cost`): every candidate
    at the first rung, the best ``1/eta`` at each later one. Which survive is known only
    once they are scored, and the options that cost more are those meant to buy accuracy,
    so a survivor is costed halfway between the candidates' mean and the costliest
    survivors'; the best changes combined cost as much as the costliest single change."""
    start = Structure()
    found = candidates(start, LOCAL_SPACE, worked_examples=bool(s.pool))
    singles = [fresh_cost(c, start) for c in found]
    costs = sorted([max(singles, default=1.0), *singles], reverse=True)
    mean = sum(costs) / len(costs)
    answered, previous, alive = 0.0, 0, len(costs)
    for rung, size in enumerate(rung_sizes(dev, s.first_rung or dev, s.eta)):
        costliest = sum(costs[:alive]) / alive
        each = sum(costs) if rung == 0 else alive * (mean + costliest) / 2
        answered += each * (size - previous)
        alive, previous = max(1, math.ceil(alive / s.eta)), size
    return answered


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
    drawn (the confirmation priced as if the compiled program wins dev: both programs
    answer it, the compiled one at :data:`PICK_ANSWERS`; the router's confirmation on the
    share :data:`ROUTED_OTHERWISE` of it), and
    ``reranker`` and ``encoder`` training (None: skipped), at the assumed speed. When the
    calibration questions are the dev draw, the kept module's dev answers hold their single
    passes, which the cache answers; a kept program's (``target`` program) hold the full
    loops too of the ``calibration_looped`` questions its keyword rule sent through the loop. The
    open-corpus stage's ``open_questions`` are counted in average compile calls
    (:data:`OPEN_CALL_WEIGHT`), its page check's ``page_questions`` by their query-writing
    calls (:data:`PAGE_CALL_WEIGHT`), its confirmation's ``open_confirm`` as if a structure
    other than the start is chosen: both answer them, each at the start's cost."""
    per_question = CALLS_PER_QUESTION[settings.target]
    optimizing, slowed, demos = _optimizer_calls(settings, train, dev, per_question)
    stages = {"dev score before": dev * per_question, **optimizing}
    if confirm:
        stages["confirmation"] = confirm * per_question * (1 + PICK_ANSWERS)
    # the full loop's first pass repeats the single pass's requests
    single = 0.0 if calibration_is_dev else CALLS_PER_QUESTION["pot"]
    ran_loops = calibration_is_dev and settings.target == "program"
    looped = min(calibration_looped, calibration) if ran_loops else 0
    weights = {}
    if open_questions:
        answers = OPEN_START_ANSWERS * (1 + sum(OPEN_FRESH_SHARE.values()))
        stages["open-corpus search"] = open_questions * OPEN_CALLS_PER_QUESTION * answers
        weights["open-corpus search"] = OPEN_CALL_WEIGHT
    if page_questions:
        unanswered = max(page_questions - open_questions, 0)
        checks = unanswered * PAGE_CHECK_CALLS + page_questions * PAGE_CHECK_VARIANT_CALLS
        stages["open-corpus pages"] = checks
        weights["open-corpus pages"] = PAGE_CALL_WEIGHT
    if open_confirm:
        answers = 2 * OPEN_START_ANSWERS
        stages["open confirmation"] = open_confirm * OPEN_CALLS_PER_QUESTION * answers
        weights["open confirmation"] = OPEN_CALL_WEIGHT
    stages["router labels"] = calibration * single + (calibration - looped) * LOOP_CALLS
    if confirm:
        both_ways = 2 * CALLS_PER_QUESTION["pot"] + LOOP_CALLS
        stages["router confirmation"] = confirm * ROUTED_OTHERWISE * both_ways
    return BudgetEstimate(
        calls={stage: math.ceil(calls) for stage, calls in stages.items()},
        weights=weights,
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


def call_seconds(rows: Sequence[Row]) -> tuple[float, str] | None:
    """The seconds of an average call of the compile at the speed ``rows`` ran, and how
    it was found; None when the cache answered every call. Where the backbone reports its
    prefill and generation times, an average call's tokens
    (:data:`CALL_SHAPE`) at those speeds, so that a short or
    long first question does not skew it; otherwise the rows' seconds per fresh call."""
    fresh = sum(r.lm_calls - r.cached_calls for r in rows)
    if not fresh:
        return None
    prefill = sum(r.prefill_seconds or 0.0 for r in rows)
    generation = sum(r.generation_seconds or 0.0 for r in rows)
    evaluated = sum(r.prompt_tokens_evaluated or 0 for r in rows)
    generated = sum(r.generated_tokens or 0 for r in rows)
    if prefill and generation and evaluated and generated:
        prefill_speed, generation_speed = evaluated / prefill, generated / generation
        return (
            CALL_SHAPE.seconds(prefill_speed, generation_speed),
            f"measured: {prefill_speed:.0f} prompt and {generation_speed:.0f} generated "
            "tokens/s on the first dev question",
        )
    seconds = sum(r.seconds for r in rows) / fresh
    return seconds, "measured on the first dev question"


def re_estimate(rows: Sequence[Row], planned: BudgetEstimate) -> str:
    """The seconds per LM call ``rows`` took, and the estimate redone at that speed; empty
    when every call was answered from the cache. When the backbone reports its prefill
    time, a demo's cost is measured too: its tokens (about one request's prompt) at the
    seconds per prompt token the model evaluated."""
    fresh = sum(r.lm_calls - r.cached_calls for r in rows)
    if not fresh:
        return ""
    speed = sum(r.seconds for r in rows) / fresh
    update: dict[str, float] = {"seconds_per_call": speed}
    measured = ""
    prefill = sum(r.prefill_seconds or 0.0 for r in rows)
    evaluated = sum(r.prompt_tokens_evaluated or 0 for r in rows)
    sent = sum(r.prompt_tokens or 0 for r in rows)
    if prefill and evaluated and sent:
        per_token = prefill / evaluated
        update["demo_slowdown"] = per_token * sent / fresh / speed
        measured = (
            f", {sent / fresh:,.0f} prompt tokens sent and {evaluated / fresh:,.0f} evaluated "
            f"per call at {1 / per_token:.0f} tokens/s: a demo ≈ +{update['demo_slowdown']:.0%}"
        )
    redone = planned.model_copy(update=update)
    return (
        f"; {speed:.1f} s per LM call here{measured} (the estimate priced a call at "
        f"{planned.seconds_per_call:g} s, a demo at +{planned.demo_slowdown:.0%}): "
        f"the whole compile ≈ {redone.minutes:.0f} min at this speed"
    )
