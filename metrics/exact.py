"""The no-LLM fallback for golds the numeric stage does not decide: normalized matching."""

from __future__ import annotations

import re
import unicodedata

from filingqa.metrics.category import AnswerCategory
from filingqa.metrics.numeric import BOOLEAN_POLARITY, POLAR_WORDS
from filingqa.metrics.verdict import Verdict

ARTICLES = frozenset({"a", "an", "the"})

_TOKEN = re.compile(r"[0-9]+(?:[.,][0-9]+)*%?|[^\W_]+")


def normalize_tokens(text: str) -> list[str]:
    """Lower-cased word and number tokens of ``text``, punctuation and articles dropped."""
    folded = unicodedata.normalize("NFKC", text).lower()
    return [token for token in _TOKEN.findall(folded) if token not in ARTICLES]


def _contains(haystack: list[str], needle: list[str]) -> bool:
    """Whether ``needle`` occurs in ``haystack`` as a contiguous run of tokens."""
    width = len(needle)
    return any(haystack[i : i + width] == needle for i in range(len(haystack) - width + 1))


def exact_verdict(gold: str, prediction: str, category: AnswerCategory) -> Verdict:
    """1 when the normalized gold equals or occurs in the prediction, else 0.

    For a yes/no gold with more than its polarity, a prediction agreeing on the polarity
    alone (an opening "True"/"False" read as yes/no) gets 0.5: the supporting detail cannot
    be checked without an LLM.
    """
    gold_tokens, pred_tokens = normalize_tokens(gold), normalize_tokens(prediction)
    if not gold_tokens:
        return Verdict(score=0, reason="empty gold answer; nothing to match", stage="exact")
    if _contains(pred_tokens, gold_tokens):
        return Verdict(
            score=1, reason="no LLM: normalized gold found in the prediction", stage="exact"
        )
    polarity = gold_tokens[0]
    said = [BOOLEAN_POLARITY.get(token, token) for token in pred_tokens[:1]]
    if category == "yes_no" and polarity in POLAR_WORDS and said == [polarity]:
        reason = f"no LLM: polarity '{polarity}' agrees; the supporting detail is unchecked"
        return Verdict(score=0.5, reason=reason, stage="exact")
    return Verdict(
        score=0, reason="no LLM: normalized gold not found in the prediction", stage="exact"
    )
