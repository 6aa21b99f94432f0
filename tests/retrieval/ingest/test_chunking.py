"""Text chunks: ~512 estimated tokens, sentence boundaries, small overlap."""

from __future__ import annotations

import itertools

from filingqa.retrieval.ingest.chunking import chunk_text, estimate_tokens


def _sentences(count: int) -> list[str]:
    return [
        f"Sentence number {i} describes revenue of ${i},000 in fiscal 2024." for i in range(count)
    ]


def test_estimate_counts_words_punctuation_and_long_words() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens("Net revenue") == 2
    assert estimate_tokens("$4,186.3") == 6  # $ 4 , 186 . 3
    assert estimate_tokens("internationalization") == 3


def test_short_text_is_one_chunk() -> None:
    assert chunk_text("One paragraph.\n\nAnother one.") == ["One paragraph.\n\nAnother one."]


def test_empty_text_has_no_chunks() -> None:
    assert chunk_text("  \n\n ") == []


def test_long_text_splits_on_sentences_under_the_budget_with_overlap() -> None:
    text = " ".join(_sentences(120))
    chunks = chunk_text(text, max_tokens=120, overlap_tokens=30)
    assert len(chunks) > 3
    assert all(estimate_tokens(c) <= 120 for c in chunks)
    assert all(c.endswith("fiscal 2024.") for c in chunks)
    for before, after in itertools.pairwise(chunks):
        last = before.rsplit("Sentence number", 1)[1]
        assert after.startswith("Sentence number" + last)


def test_every_sentence_is_kept_in_order() -> None:
    sentences = _sentences(80)
    chunks = chunk_text(" ".join(sentences), max_tokens=100, overlap_tokens=0)
    assert " ".join(chunks) == " ".join(sentences)


def test_paragraph_breaks_are_kept_inside_a_chunk() -> None:
    chunks = chunk_text("First paragraph here.\n\nSecond paragraph here.", max_tokens=100)
    assert chunks == ["First paragraph here.\n\nSecond paragraph here."]


def test_abbreviations_do_not_end_sentences() -> None:
    text = "Sales in the U.S. grew. Acme Inc. reported gains. " * 30
    chunks = chunk_text(text, max_tokens=40, overlap_tokens=0)
    assert all(not c.endswith(("U.S.", "Inc.")) for c in chunks)


def test_a_sentence_longer_than_the_budget_is_cut_into_windows() -> None:
    text = " ".join(["word"] * 1000)
    chunks = chunk_text(text, max_tokens=100, overlap_tokens=0)
    assert len(chunks) == 10
    assert all(estimate_tokens(c) <= 100 for c in chunks)


def test_chunks_fit_a_budget_counted_by_another_counter() -> None:
    def letters(text: str) -> int:  # a stricter count than the estimate
        return sum(ch.isalnum() for ch in text)

    text = " ".join(f"Sentence number {i} says something." for i in range(30))
    chunks = chunk_text(text, max_tokens=60, overlap_tokens=0, count=letters)
    assert len(chunks) > len(chunk_text(text, max_tokens=60, overlap_tokens=0))
    assert all(letters(c) <= 60 for c in chunks)
    assert " ".join(chunks) == text  # no overlap: every sentence once, in order
