"""The router: which path a question takes (PoT or CoT) and whether it needs the full loop.

Until ``filingqa compile`` trains the LightGBM router, :func:`route_by_rule` stands in;
:func:`fixed_router` sends every question the same way (the router's calibration runs, and a
compiled program measured without any router). Every decision says who made it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Literal

from pydantic import BaseModel

from filingqa.records.answer_form import AnswerForm, Asks

_COMPUTATION = re.compile(
    r"\b(change|growth|grew|increase|decrease|ratio|margin|percent(age)?|average|total|"
    r"sum|difference|cagr|rate|per share|how (much|many)|what (was|is|were|are) the (amount|"
    r"value)|turnover|return on|days)\b|%",
    re.IGNORECASE,
)
_TEXTUAL = re.compile(
    r"^\s*(why|explain|describe|what (drove|caused|are the (main|key|primary) (risks|drivers|"
    r"reasons))|which|who|does|did|is|are|was|were|has|have)\b",
    re.IGNORECASE,
)
_COMPARISON = re.compile(
    r"\b(compare|compared|versus|vs\.?|improve[ds]?|worsen|from \d{4} to \d{4}|between)\b",
    re.IGNORECASE,
)
_YEAR = re.compile(r"\b(?:FY\s?)?(?:19|20)\d\d\b")


ReasoningPath = Literal["pot", "cot", "quote", "decide"]
"""How a draft is made: a program, words, quotes from the evidence, a yes/no decision."""


class RoutingDecision(BaseModel):
    """The path for one question, and who decided it; with answer forms on, the form the
    answer takes and what a computed answer must state
    (:mod:`~filingqa.router.answer_form_guess`)."""

    path: ReasoningPath
    full_loop: bool
    source: Literal["rule", "lightgbm", "fixed"]
    reason: str
    form: AnswerForm | None = None
    asks: Asks = "value"


def route_by_rule(question: str) -> RoutingDecision:
    """A keyword rule standing in for the trained router.

    PoT when the question asks for a figure or a computation (numbers are computed in the
    sandbox, never by the LM); CoT for why/describe/which and yes-no questions without a
    computation word. The full loop when the question compares or spans several periods.
    """
    computes = bool(_COMPUTATION.search(question))
    textual = bool(_TEXTUAL.search(question)) and not computes
    years = {match.group(0)[-4:] for match in _YEAR.finditer(question)}
    full_loop = bool(_COMPARISON.search(question)) or len(years) > 1
    path: Literal["pot", "cot"] = "cot" if textual else "pot"
    reason = (
        f"rule: {'textual' if textual else 'figure or computation'} question"
        f"{', comparison or several periods' if full_loop else ''}"
    )
    return RoutingDecision(path=path, full_loop=full_loop, source="rule", reason=reason)


def fixed_router(full_loop: bool, why: str) -> Callable[[str], RoutingDecision]:
    """A router that always (or never) takes the full loop, saying ``why``; the path (PoT or
    CoT) stays the rule's."""

    def route(question: str) -> RoutingDecision:
        return RoutingDecision(
            path=route_by_rule(question).path,
            full_loop=full_loop,
            source="fixed",
            reason=f"{why}: {'full loop' if full_loop else 'single pass'} for every question",
        )

    return route


LoopPolicy = Literal["rule", "never", "always"]
"""When the verify-revise loop runs: as :func:`route_by_rule` says, on no question, or on
every one (a compiled structure's choice)."""


def loop_router(policy: LoopPolicy) -> Callable[[str], RoutingDecision]:
    """The router that carries out ``policy`` (the path stays the keyword rule's)."""
    if policy == "rule":
        return route_by_rule
    return fixed_router(policy == "always", f"structure: loop {policy}")
