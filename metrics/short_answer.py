"""The judge's short-answer stage: yes/no, directions, names and spans decided without an LLM.

Golds that are not single figures reach this stage after the pre-check has zeroed plainly
wrong answers. It decides what word-level reading can decide, and leaves the rest (None)
to the LLM, or to the exact fallback without one:

- **polarity**: a gold opening with yes/no and an answer opening with the same word (a
  program's ``True``/``False`` read as yes/no) score 1, with or without a figure. For a
  polar question about a direction ("did the risk decrease …?"), an answer that only
  states the direction ("it decreased") says yes or no by it.
- **direction**: a question offering both ways ("improved or declined", "increase or
  decrease") is answered by the way the answer states against the gold's: the same 1, the
  opposite 0. Directions come on two axes, amount (increased/decreased) and quality
  (improved/worsened); an answer only on the quality axis to a question about the amount
  states no direction of the amount (improved wages expense may be lower) and scores 0.
- **span**: a name or short span is matched on its terms (the index's finance-aware terms:
  stemmed, stopwords dropped), the question's own terms removed.
  The answer scores 1 when it holds every term of the gold, or when it is short, its
  figures are the gold's and at least two thirds of its words are those of a gold
  sentence naming the answer ("packaging" for "a global leader in packaging …"). A gold
  of a few words is a name itself, and one listing several items needs them all: a part
  of either is left to the next stage. An answer made only of the question's own terms
  ("Net income" for "which segment had the highest net income?") scores 0 when the gold
  names something the question does not, unless the question offers the choices ("… or …").
"""

from __future__ import annotations

import re

from filingqa.metrics.category import AnswerCategory
from filingqa.metrics.numeric import POLAR_WORDS, answer_words, words
from filingqa.metrics.verdict import Stage, Verdict
from filingqa.retrieval.index.lexical import tokenize

Direction = tuple[str, int]  # (axis, sign): ("amount", +1) for "increased"

_DIRECTION_WORDS: dict[str, tuple[Direction, ...]] = {}
for _axis, _sign, _spelled in (
    (
        "amount",
        +1,
        "increase increased increases increasing rose rise rises risen grew grow "
        "grows grown higher jump jumped jumps up",
    ),
    (
        "amount",
        -1,
        "decrease decreased decreases decreasing fell fall falls fallen drop "
        "dropped drops lower down reduced shrank shrunk shrink",
    ),
    ("quality", +1, "improve improved improves improving improvement better strengthened"),
    ("quality", -1, "worsen worsened worsening worse deteriorated deteriorate weakened"),
):
    for _word in _spelled.split():
        _DIRECTION_WORDS[_word] = ((_axis, _sign),)
# "declined" moves a quantity down and, asked against "improved", a quality too.
for _word in ("decline", "declined", "declines", "declining"):
    _DIRECTION_WORDS[_word] = (("amount", -1), ("quality", -1))

_AUXILIARIES = frozenset(
    ["is", "are", "was", "were", "has", "have", "had", "did", "does", "do", "can", "could"]
)
_CLAUSES = re.compile(r"[,;:?]")
_OFFERS_CHOICES = re.compile(r"\bor\b", re.IGNORECASE)
_LIST_SEPARATORS = re.compile(r",|;|\n\s*[-•*]|\band\b")
# Words that name nothing by themselves ("total debt investments" is no answer for a gold
# "corporate bonds (82% of the total investment)"), as index terms (stemmed).
_GENERIC = frozenset(
    tokenize(
        "total net other gross amount amounts company companies year years fiscal quarter "
        "million billion thousand percent consolidated overall"
    )
)
MIN_LIST_ITEMS = 3  # a gold naming this many items separated by commas or lines is a list
MAX_SHORT_TERMS = 8  # an answer this short (in terms) may be credited by its terms alone
MIN_SENTENCE_TERMS = 5  # a shorter gold is a name itself: a part of it is left to the LLM
MAX_SPAN_GOLD_TERMS = 12  # a longer gold explains; its stray terms do not make an answer
SPAN_SHARE = 2 / 3  # of a short answer's terms the gold must hold


def short_answer_verdict(
    question: str, gold: str, prediction: str, category: AnswerCategory
) -> Verdict | None:
    """A verdict from polarity, direction or span matching; None when none decides."""
    if category == "number":
        return None
    for stage in (_polarity_verdict, _direction_verdict):
        verdict = stage(question, gold, prediction)
        if verdict is not None:
            return verdict
    if category in ("span", "explanation") and not _polarity(gold):
        return _span_verdict(question, gold, prediction)
    return None


def directions(text: str) -> set[Direction]:
    """The (axis, sign) pairs the direction words of ``text`` state."""
    return {found for word in words(text) for found in _DIRECTION_WORDS.get(word, ())}


def _polarity(text: str) -> str | None:
    """``yes`` or ``no`` when ``text`` opens with it (``True``/``False`` read as yes/no)."""
    found = answer_words(text)
    return found[0] if found and found[0] in POLAR_WORDS else None


def _polarity_verdict(question: str, gold: str, prediction: str) -> Verdict | None:
    """1 when the answer says the gold's yes/no, or states the direction that means it."""
    wanted = _polarity(gold)
    if wanted is None:
        return None
    said = _polarity(prediction) or _implied_polarity(question, prediction)
    if said is None:
        return None
    if said != wanted:
        return _decided(0, f"the answer says '{said}', the gold '{wanted}'", "polarity")
    return _decided(1, f"the answer says '{said}', as the gold does", "polarity")


def _implied_polarity(question: str, prediction: str) -> str | None:
    """Yes/no implied by a direction answering a polar question about a direction."""
    if not _is_polar(question):
        return None
    asked, stated = directions(question), directions(prediction)
    axes = {axis for axis, _ in asked}
    stated = {(axis, sign) for axis, sign in stated if axis in axes}
    if not asked or len({sign for _, sign in stated}) != 1:
        return None
    return "yes" if stated <= asked else "no"


def _is_polar(question: str) -> bool:
    """Whether a clause of ``question`` opens with an auxiliary ("Looking at VaR, did …")."""
    clauses = (words(clause) for clause in _CLAUSES.split(question))
    return any(found and found[0] in _AUXILIARIES for found in clauses)


def _direction_verdict(question: str, gold: str, prediction: str) -> Verdict | None:
    """The answer's way against the gold's, for a question offering both ways."""
    asked = directions(question)
    both_ways = {axis for axis, sign in asked if (axis, -sign) in asked}
    if not both_ways:
        return None
    axis = "amount" if "amount" in both_ways else "quality"
    wanted = {sign for ax, sign in directions(gold) if ax == axis}
    if len(wanted) != 1:
        return None
    stated = directions(prediction)
    said = {sign for ax, sign in stated if ax == axis}
    if not said:
        if axis == "amount" and stated:
            reason = "asked whether the amount rose or fell, the answer says better or worse"
            return _decided(0, reason, "direction")
        return None
    if said != wanted:
        return _decided(0, f"the answer moves the {axis} the other way from the gold", "direction")
    return _decided(1, f"the answer moves the {axis} the way the gold does", "direction")


def _span_verdict(question: str, gold: str, prediction: str) -> Verdict | None:
    """1 when the answer holds the gold's terms, or a short answer's words are the gold
    sentence's."""
    asked, written = set(tokenize(question)), tokenize(gold)
    gold_terms = {term for term in written if term not in asked}
    answer_terms = [term for term in tokenize(prediction) if term not in asked]
    if not any(term.isalpha() for term in written) or not gold_terms:
        return None  # figures alone are the numeric and exact stages' (scales matter)
    if not answer_terms:
        return _repeated_question(question, gold_terms, prediction)
    if gold_terms <= set(answer_terms):
        return _decided(1, "the answer states every term of the gold", "span")
    answer_words = [term for term in answer_terms if term.isalpha() and term not in _GENERIC]
    figures_held = all(term in gold_terms for term in answer_terms if not term.isalpha())
    if not (
        answer_words
        and figures_held
        and len(answer_terms) <= MAX_SHORT_TERMS
        and len(written) >= MIN_SENTENCE_TERMS
        and len(gold_terms) <= MAX_SPAN_GOLD_TERMS
        and not _is_list(gold)
    ):
        return None
    held = sum(term in gold_terms for term in answer_words)
    if held >= SPAN_SHARE * len(answer_words):
        reason = f"{held} of the answer's {len(answer_words)} words are the gold's"
        return _decided(1, reason, "span")
    return None


def _repeated_question(question: str, gold_terms: set[str], prediction: str) -> Verdict | None:
    """0 for an answer of the question's own terms when the gold names words the question
    lacks and offers no choices; None otherwise."""
    names = {term for term in gold_terms if term.isalpha() and term not in _GENERIC}
    if not tokenize(prediction) or not names or _OFFERS_CHOICES.search(question):
        return None
    return _decided(0, "the answer only repeats the question's words", "span")


def _is_list(gold: str) -> bool:
    """Whether the gold names several items (commas, semicolons, ``and`` or bullet lines)."""
    return len(_LIST_SEPARATORS.split(gold)) >= MIN_LIST_ITEMS


def _decided(score: float, reason: str, stage: Stage) -> Verdict:
    return Verdict(score=score, reason=f"{stage}: {reason}", stage=stage)
