"""The no-LLM fallback for golds the numeric stage does not decide: normalized matching."""

from __future__ import annotations

import re
import unicodedata

from filingqa.metrics.category import AnswerCategory
from filingqa.metrics.numeric import BOOLEAN_POLARITY, POLAR_WORDS
from filingqa.metrics.verdict import Verdict

ARTICLES = frozenset({"a", "an", "the"})
# Words that carry no content of their own: a part of the gold holding only these is no answer.
FUNCTION_WORDS = frozenset(
    [
        "and",
        "or",
        "of",
        "to",
        "in",
        "on",
        "at",
        "by",
        "for",
        "from",
        "with",
        "as",
        "its",
        "their",
        "his",
        "her",
        "our",
        "is",
        "are",
        "was",
        "were",
        "be",
    ]
)
PART_SHARE = 2 / 3  # of the gold's content words a contiguous part must hold for half credit

_TOKEN = re.compile(r"[0-9]+(?:[.,][0-9]+)*%?|[^\W_]+")


def normalize_tokens(text: str) -> list[str]:
    """Lower-cased word and number tokens of ``text``, punctuation and articles dropped."""
    folded = unicodedata.normalize("NFKC", text).lower()
    return [token for token in _TOKEN.findall(folded) if token not in ARTICLES]


def _contains(haystack: list[str], needle: list[str]) -> bool:
    """Whether ``needle`` occurs in ``haystack`` as a contiguous run of tokens."""
    width = len(needle)
    return any(haystack[i : i + width] == needle for i in range(len(haystack) - width + 1))


def content_words(tokens: list[str]) -> list[str]:
    """The tokens that are not function words."""
    return [token for token in tokens if token not in FUNCTION_WORDS]


def holds_most_of(gold_tokens: list[str], pred_tokens: list[str]) -> bool:
    """Whether the prediction is a contiguous run of the gold's tokens holding at least
    ``PART_SHARE`` of the gold's content words ("modified retrospective" of "the modified
    retrospective method")."""
    gold_content = content_words(gold_tokens)
    if not pred_tokens or not gold_content or not _contains(gold_tokens, pred_tokens):
        return False
    return len(content_words(pred_tokens)) >= PART_SHARE * len(gold_content)


def without_stated_scale(tokens: list[str], scale: str | None) -> list[str]:
    """``tokens`` without the gold's ``scale`` word (``thousand``) where it follows a number:
    a figure that states the gold's scale is the gold's figure."""
    if not scale:
        return tokens
    words = {scale.lower(), f"{scale.lower()}s"}
    return [
        token
        for i, token in enumerate(tokens)
        if not (token in words and i and tokens[i - 1][0].isdigit())
    ]


def exact_verdict(
    gold: str, prediction: str, category: AnswerCategory, scale: str | None = None
) -> Verdict:
    """1 when the normalized gold equals or occurs in the prediction; 0.5 (never 1) when the
    prediction is a contiguous part of the gold holding two thirds of its content words;
    else 0. The gold's ``scale`` word after a figure is not counted, in either (``73,260
    thousand`` for the gold ``73,260`` in thousands).

    For a yes/no gold with more than its polarity, a prediction agreeing on the polarity
    alone (an opening "True"/"False" read as yes/no) gets 0.5: the supporting detail cannot
    be checked without an LLM.
    """
    gold_tokens = without_stated_scale(normalize_tokens(gold), scale)
    pred_tokens = without_stated_scale(normalize_tokens(prediction), scale)
    if not gold_tokens:
        return Verdict(score=0, reason="empty gold answer; nothing to match", stage="exact")
    if _contains(pred_tokens, gold_tokens):
        return Verdict(
            score=1, reason="no LLM: normalized gold found in the prediction", stage="exact"
        )
    if category != "yes_no" and holds_most_of(gold_tokens, pred_tokens):
        reason = "no LLM: the prediction is a contiguous part of the gold with most of its words"
        return Verdict(score=0.5, reason=reason, stage="exact")
    polarity = gold_tokens[0]
    said = [BOOLEAN_POLARITY.get(token, token) for token in pred_tokens[:1]]
    if category == "yes_no" and polarity in POLAR_WORDS and said == [polarity]:
        reason = f"no LLM: polarity '{polarity}' agrees; the supporting detail is unchecked"
        return Verdict(score=0.5, reason=reason, stage="exact")
    return Verdict(
        score=0, reason="no LLM: normalized gold not found in the prediction", stage="exact"
    )
