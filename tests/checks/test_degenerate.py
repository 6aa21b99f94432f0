"""Degenerate answers: echoes of the request's wording, and repetition."""

import pytest

from filingqa.checks.degenerate import degenerate, echoes, repetition

QUOTE_INSTRUCTIONS = (
    "Answer by copying the shortest words of the evidence that answer the question: a\n"
    "figure as printed (with its $ or %), a name, a date or a phrase. Copy them exactly; do\n"
    "not explain."
)
COT_INSTRUCTIONS = (
    "Answer a question about a filing from the evidence in a sentence or two, using the\n"
    'filing\'s own figures and words. Say "not stated in the evidence" if it is not there.'
)
WORDING = [QUOTE_INSTRUCTIONS, COT_INSTRUCTIONS, "words copied exactly from the evidence"]


def test_an_answer_echoing_a_field_description_is_degenerate() -> None:
    echo = "a figure as printed (with its $ or %), a name, a date or a phrase"
    assert echoes(echo, WORDING) == "a figure as printed with its or a name a date or a phrase"
    assert "repeats the request's wording" in (degenerate(echo, WORDING) or "")
    assert echoes("Answer: words copied exactly from the evidence.", WORDING) is not None


@pytest.mark.parametrize(
    "answer",
    [
        "Not stated in the evidence.",  # a reply the wording prescribes
        "812.4",
        "a name",  # too short to tell from an answer
        "Revenue grew on demand for analyzers, a figure the filing states as printed.",
        "the straight-line method over the estimated useful lives",
    ],
)
def test_an_answer_is_not_an_echo(answer: str) -> None:
    assert degenerate(answer, WORDING) is None


def test_a_phrase_repeated_over_and_over_is_degenerate() -> None:
    assert repetition(" ".join(["Apple"] * 30)) == "apple"
    assert repetition("Apple Inc., " * 30) == "apple inc"
    assert "over and over" in (degenerate("iPhone; " + "Apple; " * 12) or "")


@pytest.mark.parametrize(
    "answer",
    [
        "iPhone; Mac; iPad; Wearables, Home and Accessories; Services",
        "; ".join(f"{n} million" for n in range(1, 12)),  # figures and their scale words
        "Revenue grew as the company sold more; the company sold more because demand grew.",
    ],
)
def test_a_list_or_a_sentence_is_not_repetition(answer: str) -> None:
    assert repetition(answer) is None
