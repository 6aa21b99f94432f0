"""The form an answer takes, guessed from the question's wording alone (no LM, no dataset label).

A computed number (a change, an average, a ratio) is worked out by a program; a looked-up
number or a span is quoted from the evidence; a list is several quotes; a count is the
number of quoted items, unless it counts figures past a threshold ("how many years did net
income exceed $30,000?"), which is computed; a yes/no question is decided by a figure or
passage; an explanation is a short answer in words. The guess is *confident* when the
wording says so outright ("how many segments …", "… in 2019 and 2018 respectively",
"why …"); otherwise a typed signature may decide
(:class:`~filingqa.signatures.decide_answer_form.DecideAnswerForm`).

Two wordings also shape how a computed answer is stated: a question that asks for a
direction ("improved or declined?") wants the word with the figure, and one that asks which
item or year wins ("which segment had the highest growth?") wants its name.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict

from filingqa.checks.metric_catalogue.naming import metrics_named
from filingqa.records.answer_form import AnswerForm, Asks
from filingqa.router.rule import ReasoningPath, RoutingDecision

_EXPLANATION = re.compile(
    r"^\s*(why\b|explain|describe|summari[sz]e|discuss|how (does|do|did|has|have|is|are|was|were)"
    r" .*\b(affect|impact|change|manage|define|determine|estimate|calculate|present|recogni[sz]e"
    r"|account)|what (drove|caused|led to|contributed|explains)|what (is|was|were|are) the "
    r"(main |key |primary )?(reasons?|drivers?|causes?|factors?|risks?)\b)",
    re.IGNORECASE,
)
_COUNTED = (
    r"types?|categories|category|items?|components?|countries|country|regions?|assumptions?|"
    r"segments?|plans?|classes|class|products?|businesses|subsidiaries|markets?|elements?"
)
_COUNT = re.compile(rf"\bhow many (\w+ ){{0,2}}?({_COUNTED})\b", re.IGNORECASE)
_COUNT_PAST_FIGURE = re.compile(
    r"\bhow many\b.*\b(exceed\w*|above|below|more than|less than|greater than|lower than"
    r"|higher than|over|under)\s+(\w+\s+){0,3}?[$€£]?\d",
    re.IGNORECASE,
)
_DIRECTION = re.compile(
    r"\b(improve[ds]?|decline[ds]?|increase[ds]?|decrease[ds]?|rise|rose|fall|fell|grow|grew|"
    r"worsen(ed)?|deteriorate[ds]?|strengthen(ed)?|weaken(ed)?|up|down|higher|lower)\b"
    r"\s+or\s+(\w+\s+)?\b(improve[ds]?|decline[ds]?|increase[ds]?|decrease[ds]?|fall|fell|"
    r"drop(ped)?|worsen(ed)?|deteriorate[ds]?|weaken(ed)?|down|lower|stay(ed)? the same|"
    r"remain(ed)? (flat|stable|the same))\b",
    re.IGNORECASE,
)
_CHOICE = re.compile(
    r"^\s*(in |for |during )?(which|what) (\w+[ -]?){1,4}\b(is|was|were|are|has|had|have|did|"
    r"does|shows?|showed|saw|recorded|reported|brought|generated)\b.*\b(highest|largest|lowest|"
    r"smallest|most|least|biggest|greatest|higher|larger|lower|smaller|greater|better|worse|more|"
    r"less|best|worst)\b"
    r"|\bwhich\b.*\b(highest|largest|lowest|smallest|most|least|biggest|greatest|best|worst)\b"
    r"|\b(highest|largest|lowest|smallest|biggest|greatest|best|worst)\b.*\b(which|what) (year|"
    r"segment|region|category|quarter|product|business|division)\b",
    re.IGNORECASE,
)
# A leading phrase before the question proper: "As of Q2'2023, is …", "For Pfizer, which …",
# "Looking at VaR, did …"
_LEADING_PHRASE = re.compile(
    r"^\s*(?:(?:as of|for|in|during|among|according to|based on|basing|when|with|taking|"
    r"in agreement with|looking at|considering|regarding|given|using|judging (?:by|from)|"
    r"focusing on|on the basis of|relative to|compared (?:to|with))\b"
    r"(?!\s+(?:which|what|how)\b)[^,?]{0,100},\s*)+",
    re.IGNORECASE,
)
_YES_NO = re.compile(
    r"^\s*(is|are|was|were|does|do|did|has|have|had|can|could|will|would|should|may)\b",
    re.IGNORECASE,
)
_COMPUTED = re.compile(
    r"\b(change[ds]?|growth|grew|increase[ds]?|decrease[ds]?|ratio|proportion|percentage|"
    r"percent|share of|average|mean|difference|differ|cagr|compound|sum|combined|altogether|"
    r"margin|turnover|return on|year[- ]over[- ]year|yoy|rate of)\b|%",
    re.IGNORECASE,
)
_TREND = re.compile(
    r"\b(drop(s|ped)?|declin(e|es|ed|ing)|fall(s|en|ing)?|fell|ris(e|es|en|ing)|rose|"
    r"improv(e|es|ed|ing)|deteriorat(e|es|ed|ing)|grow(s|n|ing)?|grew)\b",
    re.IGNORECASE,
)
_TOTAL = re.compile(r"\btotal\b", re.IGNORECASE)
_YEAR = re.compile(r"\b(?:fy\s?)?(?:19|20)\d\d\b", re.IGNORECASE)
_LIST = re.compile(
    r"\brespective(ly)?\b|^\s*(in |for )?(which|what) (years|periods|dates|quarters)\b"
    r"|\bwhat (are|were) the (\w+ ){0,3}(types|components|items|regions|countries|categories|"
    r"segments|products|factors|assumptions|elements|sources|classes|markets|businesses)\b"
    r"|\bwhat (financial )?items\b|\blist (the|all)\b",
    re.IGNORECASE,
)
_LOOKED_UP = re.compile(
    r"^\s*(what (is|was|were|are)|how much (\([^)]*\) )?(is|was|were|did|does)|how many \w+)\b",
    re.IGNORECASE,
)
_HOW_MANY = re.compile(r"\s*how (many|much)\b", re.IGNORECASE)
_FIGURE_WORD = re.compile(
    r"\b(amount|value|revenues?|sales|income|expenses?|costs?|assets?|liabilit(y|ies)|equity|"
    r"cash|debt|capex|capital expenditures?|profit|loss|earnings|ebitda|eps|dividends?|balance|"
    r"price|shares|tax|provision|reserve|goodwill|payments?|receivables?|payables?|inventor(y|"
    r"ies)|rate|yield|volatility|headcount|employees)\b",
    re.IGNORECASE,
)


class FormGuess(BaseModel):
    """A guessed answer form, whether the wording settles it, and what a computed answer
    must state."""

    model_config = ConfigDict(frozen=True)

    form: AnswerForm
    confident: bool
    asks: Asks = "value"
    reason: str


def guess_answer_form(question: str) -> FormGuess:
    """The answer form ``question``'s wording points to; see the module docstring."""
    question = _LEADING_PHRASE.sub("", question)
    asks = _asks(question)
    if _EXPLANATION.search(question):
        return FormGuess(form="explanation", confident=True, reason="asks why or how")
    if _COUNT_PAST_FIGURE.search(question):
        return FormGuess(
            form="computed", confident=True, reason="counts figures past a threshold: compute it"
        )
    if _COUNT.search(question):
        return FormGuess(form="count", confident=True, reason="asks how many items")
    if asks == "direction":
        return FormGuess(
            form="computed", confident=True, asks=asks, reason="asks a direction: compute it"
        )
    if asks == "choice":
        return FormGuess(
            form="computed", confident=True, asks=asks, reason="asks which one wins: compare"
        )
    if _LIST.search(question):
        return FormGuess(form="list", confident=True, reason="asks for several items or years")
    if _YES_NO.search(question):
        return FormGuess(form="yes_no", confident=True, reason="a yes/no question")
    if _COMPUTED.search(question):
        return FormGuess(form="computed", confident=True, reason="names a computation")
    if (_LOOKED_UP.search(question) and _FIGURE_WORD.search(question)) or _HOW_MANY.match(question):
        several = len({m.group(0)[-4:] for m in _YEAR.finditer(question)}) > 1
        if _TOTAL.search(question) or several:
            return FormGuess(form="computed", confident=False, reason="a total, or several years")
        return FormGuess(form="looked_up", confident=False, reason="asks for a stated figure")
    return FormGuess(form="span", confident=False, reason="asks for something stated")


def _asks(question: str) -> Asks:
    if _DIRECTION.search(question):
        return "direction"
    if _CHOICE.search(question):
        return "choice"
    return "value"


PATHS: dict[AnswerForm, ReasoningPath] = {
    "computed": "pot",
    "looked_up": "quote",
    "span": "quote",
    "list": "quote",
    "count": "quote",
    "yes_no": "decide",
    "explanation": "cot",
}
"""The reasoning path each answer form takes."""


def with_form(route: RoutingDecision, form: AnswerForm, asks: Asks, why: str) -> RoutingDecision:
    """``route`` sent down the path of ``form``, saying ``why``."""
    return route.model_copy(
        update={
            "path": PATHS[form],
            "form": form,
            "asks": asks,
            "reason": f"{route.reason}; answer form {form} ({why})",
        }
    )


def names_computation(question: str) -> bool:
    """Whether ``question`` names a computation (a ratio, a change, a margin …), a trend
    (improving, a drop) or a metric of the catalogue (working capital): a yes/no question
    about one is decided by a computed comparison."""
    asked = _LEADING_PHRASE.sub("", question)
    return bool(_COMPUTED.search(asked) or _TREND.search(asked) or metrics_named(asked))
