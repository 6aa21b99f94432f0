import pytest

from filingqa.evaluation.failure_classes import classify
from filingqa.evaluation.runner import Row

from ..kit.data import judged_row


def row(answer: str, gold: str = "25.5", score: float = 0.0, **extra) -> Row:
    fields = {"question": "What was the change?", "gold": gold, "answer": answer}
    return judged_row(score=score, **fields, **extra)


def test_correct_answers_have_no_failure() -> None:
    assert classify(row("25.5", score=1.0)) is None


@pytest.mark.parametrize(
    ("answer", "extra", "label", "why"),
    [
        ("", {}, "A", "no usable answer"),
        ("x", {"outcome": "error", "error": "AdapterParseError: no code"}, "A", "AdapterParse"),
        ("The figure is not stated in the filing.", {}, "A", "refused"),
        # how the 1.5B model words it, and a refused outcome whatever its wording
        (
            "The evidence does not provide any information about 3M's capex.",
            {"gold_retrieved": True},
            "A",
            "refused although a gold page was retrieved",
        ),
        ("Capex is unclear from these pages.", {"outcome": "refused"}, "A", "refused"),
        ("0.255", {}, "A", "wrong scale"),
        ("Revenue 100, cost 74.5, so 25.5 and then 30", {}, "A", "among other numbers"),
        ("26.3", {}, "B", "within 5%"),
        ("-25.5", {}, "F", "opposite sign"),
        ("41.0", {}, "F", "not the gold"),
        ("27", {"gold_retrieved": False}, "E", "retrieved"),
        ("Not in the index: …", {"outcome": "not_indexed", "in_corpus": False}, "E", "not in"),
        ("Not in the index: …", {"outcome": "not_indexed", "in_corpus": True}, "A", "indexed"),
    ],
)
def test_automatic_classes(answer: str, extra: dict, label: str, why: str) -> None:
    failure = classify(row(answer, **extra))
    assert failure is not None
    assert failure.label == label
    assert why in failure.why


def test_non_numeric_wrong_answer_is_semantic() -> None:
    failure = classify(row("the Americas", gold="Europe"))
    assert failure is not None and failure.label == "F"


def test_manual_classes_win() -> None:
    failure = classify(row("41.0"), {"q1": "C"})
    assert failure is not None
    assert (failure.label, failure.name, failure.why) == (
        "C",
        "dataset truth error",
        "assigned by hand",
    )
