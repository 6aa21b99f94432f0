"""Summaries of judged rows: accuracy, cost and outcomes, overall and by answer type."""

from __future__ import annotations

import re
import statistics
from collections import Counter, defaultdict

from pydantic import BaseModel

from filingqa.evaluation.runner import Row


class StepCost(BaseModel):
    """What one step of the program cost, per question of a setting (over every row, the
    rows that did not run it counting 0); ``questions`` ran it."""

    step: str
    questions: int
    seconds: float
    lm_calls: float
    prompt_tokens_evaluated: float
    generated_tokens: float


class Summary(BaseModel):
    """Accuracy and mean cost of one setting over some rows.

    ``cached_calls``: how many of the setting's LM calls were answered from the response
    cache (their tokens and time are not counted: the cost columns are then not a cold run's).
    ``retrieval_hit_rate``: the share of questions with a gold evidence page among the
    retrieved pages, over the rows where that is known (None: gold context, or no gold pages);
    ``given_hit_rate`` the same among the pages of the passages the answer was read from.
    ``by_question_type``: accuracy per dataset question type, over the rows that have one.
    ``official``: each official dataset metric's mean over the rows that have it (e.g.
    ``tatqa_em``, ``tatqa_f1``, ``finqa_exe``; empty when the dataset has none);
    ``official_by_answer_type`` the same per answer type.
    ``answerable``: the questions whose filings are in the corpus (every row not marked out
    of it, :attr:`~filingqa.evaluation.runner.Row.in_corpus`); ``answerable_accuracy`` the
    accuracy over them (None: there are none).
    ``prompt_tokens`` .. ``generation_seconds``: means per question of the rows' cost figures
    (:class:`~filingqa.evaluation.runner.Row`), over the rows that record them (None: none do).
    """

    questions: int
    accuracy: float
    lm_calls: float
    tokens: float
    seconds: float
    outcomes: dict[str, int]
    errors: int
    by_answer_type: dict[str, float]
    by_question_type: dict[str, float] = {}
    cached_calls: int = 0
    retrieval_hit_rate: float | None = None
    given_hit_rate: float | None = None
    official: dict[str, float] = {}
    official_by_answer_type: dict[str, dict[str, float]] = {}
    prompt_tokens: float | None = None
    prompt_tokens_evaluated: float | None = None
    generated_tokens: float | None = None
    prefill_seconds: float | None = None
    generation_seconds: float | None = None
    steps: list[StepCost] = []
    answerable: int = 0
    answerable_accuracy: float | None = None


COST_COLUMNS = (
    ("prompt/q", "prompt_tokens", ".0f"),
    ("evaluated/q", "prompt_tokens_evaluated", ".0f"),
    ("gen/q", "generated_tokens", ".0f"),
    ("prefill s/q", "prefill_seconds", ".1f"),
    ("gen s/q", "generation_seconds", ".1f"),
)
"""The per-question cost figures a row records and a summary averages: column label, field,
number format."""
COST_FIGURES = tuple(figure for _, figure, _ in COST_COLUMNS)


def summarize(rows: list[Row]) -> Summary:
    """Mean score (strict judge; 0.5 counts half), mean calls/tokens/seconds per question."""
    if not rows:
        return Summary(
            questions=0,
            accuracy=0.0,
            lm_calls=0.0,
            tokens=0.0,
            seconds=0.0,
            outcomes={},
            errors=0,
            by_answer_type={},
        )
    by_type: dict[str, list[Row]] = defaultdict(list)
    by_question: dict[str, list[float]] = defaultdict(list)
    for row in rows:
        by_type[row.answer_type].append(row)
        if row.question_type:
            by_question[row.question_type].append(row.score)
    hits = [r.gold_retrieved for r in rows if r.gold_retrieved is not None]
    given = [r.gold_given for r in rows if r.gold_given is not None]
    answerable = [r.score for r in rows if r.in_corpus is not False]
    return Summary(
        questions=len(rows),
        accuracy=statistics.mean(r.score for r in rows),
        lm_calls=statistics.mean(r.lm_calls for r in rows),
        tokens=statistics.mean(r.tokens for r in rows),
        seconds=statistics.mean(r.seconds for r in rows),
        outcomes=dict(Counter(r.outcome for r in rows)),
        errors=sum(r.error is not None for r in rows),
        by_answer_type={
            kind: statistics.mean(r.score for r in typed) for kind, typed in sorted(by_type.items())
        },
        by_question_type={t: statistics.mean(s) for t, s in sorted(by_question.items())},
        cached_calls=sum(r.cached_calls for r in rows),
        retrieval_hit_rate=statistics.mean(map(float, hits)) if hits else None,
        given_hit_rate=statistics.mean(map(float, given)) if given else None,
        official=_official_means(rows),
        official_by_answer_type={
            kind: means
            for kind, typed in sorted(by_type.items())
            if (means := _official_means(typed))
        },
        **{figure: _mean_recorded(rows, figure) for figure in COST_FIGURES},
        steps=step_costs(rows),
        answerable=len(answerable),
        answerable_accuracy=statistics.mean(answerable) if answerable else None,
    )


_ROUND = re.compile(r"\s+\d+$|\s+\(.*\)$")


def step_kind(name: str) -> str:
    """A step's name without its round or variant: ``reason 2`` → ``reason``,
    ``retrieve (question only)`` → ``retrieve``."""
    return _ROUND.sub("", name)


def step_costs(rows: list[Row]) -> list[StepCost]:
    """Where each setting's time went: every step kind's seconds, LM calls, prompt tokens
    evaluated and tokens generated per question, most seconds first."""
    totals: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0, 0.0])
    ran: dict[str, set[int]] = defaultdict(set)
    for number, row in enumerate(rows):
        for step in row.steps:
            kind = step_kind(step.name)
            total = totals[kind]
            total[0] += step.seconds
            total[1] += step.lm_calls
            total[2] += step.prompt_tokens_evaluated
            total[3] += step.generated_tokens
            ran[kind].add(number)
    n = len(rows) or 1
    costs = [
        StepCost(
            step=kind,
            questions=len(ran[kind]),
            seconds=round(seconds / n, 2),
            lm_calls=round(calls / n, 2),
            prompt_tokens_evaluated=round(evaluated / n, 1),
            generated_tokens=round(generated / n, 1),
        )
        for kind, (seconds, calls, evaluated, generated) in totals.items()
    ]
    return sorted(costs, key=lambda c: -c.seconds)


def format_step_costs(summaries: dict[str, Summary]) -> str:
    """Per setting, where the seconds went: one line per step that took any (empty when no
    setting recorded steps)."""
    lines = []
    for name, summary in summaries.items():
        spent = [c for c in summary.steps if c.seconds > 0 or c.lm_calls > 0]
        if not spent:
            continue
        lines.append(
            f"{name}: where the seconds went, per question ({summary.seconds:.1f} s in all)"
        )
        head = f"{'questions':>10}{'s/q':>8}{'calls/q':>9}{'evaluated/q':>13}{'gen/q':>8}"
        lines.append(f"  {'step':<24}{head}")
        lines += [
            f"  {c.step:<24}{c.questions:>10}{c.seconds:>8.1f}{c.lm_calls:>9.2f}"
            f"{c.prompt_tokens_evaluated:>13.0f}{c.generated_tokens:>8.0f}"
            for c in spent
        ]
    return "\n".join(lines)


def _mean_recorded(rows: list[Row], figure: str) -> float | None:
    """The mean of ``figure`` over the rows that record it; None when none does."""
    values = [getattr(row, figure) for row in rows if getattr(row, figure) is not None]
    return statistics.mean(values) if values else None


def _official_means(rows: list[Row]) -> dict[str, float]:
    by_metric: dict[str, list[float]] = defaultdict(list)
    for row in rows:
        for metric, score in row.official.items():
            by_metric[metric].append(score)
    return {metric: statistics.mean(scores) for metric, scores in sorted(by_metric.items())}


OFFICIAL_NAMES = {"tatqa_em": "EM", "tatqa_f1": "F1", "finqa_exe": "exe acc"}
"""Short column labels of the official metrics."""


def format_official(official: dict[str, float]) -> str:
    """Official metric means as ``EM 68.0% F1 70.1%`` (empty for none)."""
    return " ".join(f"{OFFICIAL_NAMES.get(k, k)} {v:.1%}" for k, v in official.items())


def format_by_answer_type(summaries: dict[str, Summary]) -> str:
    """One line per answer type and setting: the strict accuracy and, beside it, the
    official metrics over that type's rows (empty when no setting has several types)."""
    kinds = sorted({kind for s in summaries.values() for kind in s.by_answer_type})
    if len(kinds) < 2:
        return ""
    width = max(map(len, summaries), default=0)
    lines = ["by answer type (strict accuracy, official metrics):"]
    for kind in kinds:
        for name, s in summaries.items():
            if kind in s.by_answer_type:
                official = format_official(s.official_by_answer_type.get(kind, {}))
                accuracy = f"{s.by_answer_type[kind]:>6.1%}"
                lines.append(f"  {kind:<12}{name:<{width}}  {accuracy}  {official}".rstrip())
    return "\n".join(lines)


def cost_cells(summary: Summary) -> list[str]:
    """The summary's cost figures as table cells, in :data:`COST_COLUMNS` order (``-`` where
    unknown)."""
    return [
        "-" if (value := getattr(summary, figure)) is None else format(value, spec)
        for _, figure, spec in COST_COLUMNS
    ]


def _cost_columns(cells: list[str]) -> str:
    """``cells`` right-aligned, each two wider than its column's label."""
    labels = [label for label, _, _ in COST_COLUMNS]
    return "".join(f"{cell:>{len(label) + 2}}" for cell, label in zip(cells, labels, strict=True))


def _rate(rate: float | None) -> str:
    return "-" if rate is None else f"{rate:.1%}"


def format_table(summaries: dict[str, Summary]) -> str:
    """One line per setting: accuracy, LM calls, tokens and seconds per question, the cost
    figures per question (prompt tokens sent and evaluated, generated tokens, prefill and
    generation seconds), the share of questions with a gold page among the passages the
    answer was read from and among every page searched (``-`` where unknown), the
    official dataset metrics when the dataset has any, and the outcome counts (how many
    answers were verified, unverified, refused, not indexed, or ended in an error); then a
    warning for each setting some of whose calls came from the response cache, and the
    accuracy over the answerable questions of each setting some of whose questions ask about
    filings not in the corpus."""
    official = {name: format_official(s.official) for name, s in summaries.items()}
    width = max((len(text) for text in official.values()), default=0)
    official_head = f"  {'official':<{width}}" if width else ""
    names = max([18, *(len(name) + 2 for name in summaries)])
    lines = [
        f"{'setting':<{names}}{'n':>5}{'accuracy':>10}{'calls/q':>9}{'tokens/q':>10}{'s/q':>8}"
        + _cost_columns([label for label, _, _ in COST_COLUMNS])
        + f"{'gold given':>12}{'gold searched':>15}{official_head}  outcomes"
    ]
    for name, s in summaries.items():
        given, hit = (_rate(rate) for rate in (s.given_hit_rate, s.retrieval_hit_rate))
        metrics = f"  {official[name]:<{width}}" if width else ""
        outcomes = ", ".join(f"{kind} {count}" for kind, count in sorted(s.outcomes.items()))
        costs = _cost_columns(cost_cells(s))
        lines.append(
            f"{name:<{names}}{s.questions:>5}{s.accuracy:>10.1%}{s.lm_calls:>9.2f}"
            f"{s.tokens:>10.0f}{s.seconds:>8.1f}{costs}{given:>12}{hit:>15}{metrics}  {outcomes}"
        )
    lines += [
        f"note: {name}: {s.cached_calls} of its LM calls came from the response cache, so its "
        "tokens and seconds are below a first run's unless they repeat calls of this run "
        "(measure with --fresh-cache)"
        for name, s in summaries.items()
        if s.cached_calls
    ]
    lines += [
        f"note: {name}: accuracy {s.answerable_accuracy:.1%} over the {s.answerable} answerable "
        f"questions ({s.questions - s.answerable} ask about filings not in the corpus; "
        f"{s.accuracy:.1%} over all)"
        for name, s in summaries.items()
        if s.answerable_accuracy is not None and s.answerable < s.questions
    ]
    return "\n".join(lines)
