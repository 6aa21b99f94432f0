"""TAT-QA exact match and numeracy-focused F1, scoring the answer and its scale together.

Behaviour, after the TAT-QA metric:

* Answers are normalized per whitespace token: a token that is a number (``$1,496.5``,
  ``(12.6)``, ``-22.22%``) becomes its signed value rounded to 4 decimals; other tokens are
  lower-cased with punctuation and articles dropped. ``%`` is a unit marker here: whether
  a number is a percentage is carried by the scale, which is compared separately.
* Exact match: the normalized answers are equal (as multisets for multi-span answers).
* F1: each answer item is a bag of tokens; predicted and gold items are aligned one to one
  so that the summed F1 is largest, and the sum is divided by the larger item count.
  A gold item holding numbers gets F1 0 unless the predicted item shares one of them.
  For ``arithmetic`` and ``count`` answers F1 equals exact match.
* Scale: when the gold holds a number (or is arithmetic/count), a predicted scale that
  differs from the gold scale makes both scores 0. Blank answer items are ignored.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from filingqa.core.numbers import parse_number

NUMERIC_ANSWER_TYPES = frozenset({"arithmetic", "count"})
ARTICLES = frozenset({"a", "an", "the"})

TatqaAnswer = str | float | int | Sequence[str | float | int]

_PUNCTUATION = re.compile(f"[{re.escape(string.punctuation)}‘’“”–—]")


@dataclass(frozen=True, slots=True)
class TatqaScore:
    """Exact match and F1 of one answer (or their means over many)."""

    exact_match: float
    f1: float


@dataclass(frozen=True, slots=True)
class _Token:
    text: str
    is_number: bool


def _normalize_token(raw: str) -> _Token | None:
    number = parse_number(raw.strip(",;:"))
    if number is not None:
        return _Token(repr(round(number.magnitude, 4) + 0.0), is_number=True)
    word = _PUNCTUATION.sub("", raw.lower())
    return _Token(word, is_number=False) if word and word not in ARTICLES else None


def _tokens(item: str) -> list[_Token]:
    normalized = (_normalize_token(raw) for raw in item.split())
    return [token for token in normalized if token is not None]


def _item_text(item: str | float | int) -> str:
    """An answer item as text; numbers in positional notation (never ``1e-05``)."""
    return item if isinstance(item, str) else format(float(item), "f")


def _items(answer: TatqaAnswer) -> list[list[_Token]]:
    """The answer's items (one for a scalar), normalized; blank items dropped."""
    raw = [answer] if isinstance(answer, str | int | float) else list(answer)
    items = [_tokens(_item_text(item)) for item in raw]
    return [tokens for tokens in items if tokens]


def _bag_f1(predicted: list[_Token], gold: list[_Token]) -> float:
    """Bag-of-words F1 of two items, 0 when the gold's numbers are all missing."""
    gold_numbers = {token.text for token in gold if token.is_number}
    predicted_numbers = {token.text for token in predicted if token.is_number}
    if gold_numbers and not gold_numbers & predicted_numbers:
        return 0.0
    gold_bag, predicted_bag = {t.text for t in gold}, {t.text for t in predicted}
    common = len(gold_bag & predicted_bag)
    if common == 0:
        return 0.0
    precision, recall = common / len(predicted_bag), common / len(gold_bag)
    return 2 * precision * recall / (precision + recall)


def _best_alignment(scores: list[list[float]]) -> float:
    """Largest total score of a one-to-one matching of rows to columns (bitmask DP)."""
    rows, columns = len(scores), len(scores[0]) if scores else 0
    if rows > columns:
        return _best_alignment([list(column) for column in zip(*scores, strict=True)])
    best: dict[int, float] = {0: 0.0}
    for row in scores:
        step: dict[int, float] = {}
        for used, total in best.items():
            for column, score in enumerate(row):
                if not used >> column & 1:
                    key = used | 1 << column
                    step[key] = max(step.get(key, 0.0), total + score)
        best = step
    return max(best.values(), default=0.0)


def _exact(predicted: list[list[_Token]], gold: list[list[_Token]]) -> bool:
    def canonical(items: list[list[_Token]]) -> list[str]:
        return sorted(" ".join(token.text for token in item) for item in items)

    return canonical(predicted) == canonical(gold)


def tatqa_score(
    gold_answer: TatqaAnswer,
    gold_scale: str | None,
    prediction: TatqaAnswer | None,
    predicted_scale: str | None = "",
    answer_type: str | None = None,
) -> TatqaScore:
    """Score one TAT-QA prediction (a string, a number or a list of spans) and its scale."""
    gold = _items(gold_answer)
    predicted = _items(prediction) if prediction is not None else []
    if not gold or not predicted:
        return TatqaScore(exact_match=0.0, f1=0.0)
    numeric = answer_type in NUMERIC_ANSWER_TYPES or any(t.is_number for item in gold for t in item)
    if numeric and (gold_scale or "").strip().lower() != (predicted_scale or "").strip().lower():
        return TatqaScore(exact_match=0.0, f1=0.0)
    exact_match = float(_exact(predicted, gold))
    if answer_type in NUMERIC_ANSWER_TYPES:
        return TatqaScore(exact_match=exact_match, f1=exact_match)
    scores = [[_bag_f1(p, g) for p in predicted] for g in gold]
    return TatqaScore(
        exact_match=exact_match, f1=_best_alignment(scores) / max(len(gold), len(predicted))
    )


def tatqa_mean(scores: Iterable[TatqaScore]) -> TatqaScore:
    """Mean exact match and mean F1 (zeros for no scores)."""
    collected = list(scores)
    if not collected:
        return TatqaScore(exact_match=0.0, f1=0.0)
    count = len(collected)
    return TatqaScore(
        exact_match=sum(score.exact_match for score in collected) / count,
        f1=sum(score.f1 for score in collected) / count,
    )
