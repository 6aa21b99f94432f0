"""Passage signals: computed once from the text, stored in the payload and read back."""

from __future__ import annotations

import json

from filingqa.retrieval.index.dedup import shingles
from filingqa.retrieval.index.lexical import term_id, tokenize
from filingqa.retrieval.index.signals import from_payload, passage_signals, to_payload
from filingqa.retrieval.vocabulary import lexicon

TEXT = (
    "Segment revenue was $1,250.0 million in Q2 FY2024 and 1,250.0 million in fiscal 2023; "
    "net sales grew 4% and revenue grew."
)


def test_signals_are_what_the_lexicon_and_tokenizer_read_from_the_text() -> None:
    signals = passage_signals(TEXT)
    terms = tokenize(TEXT)
    assert signals.length == len(terms)
    assert dict(zip(signals.terms, signals.counts, strict=True)) == {
        t: terms.count(t) for t in terms
    }
    assert signals.years == lexicon.years(TEXT) == {2023, 2024}
    assert signals.quarters == lexicon.quarters(TEXT) == {(2024, 2)}
    assert signals.metrics == lexicon.metric_terms(TEXT) != frozenset()
    assert signals.granularity == lexicon.granularity(TEXT) == "segment"
    assert signals.shingles == shingles(TEXT)


def test_words_numbers_and_term_counts() -> None:
    signals = passage_signals(TEXT)
    assert "revenu" in signals.words() and "1250" not in signals.words()
    assert signals.numbers() == {"1250": 2, "2024": 1, "2023": 1, "4": 1}  # fy2024 -> 2024
    tf, length = signals.term_counts()
    assert tf[term_id("revenu")] == 2 and length == signals.length


def test_payload_is_one_json_string_and_lossless() -> None:
    signals = passage_signals(TEXT)
    payload = to_payload(signals)
    assert json.loads(payload)["years"] == [2023, 2024]
    assert from_payload(payload) == signals
    assert from_payload(None) is None
