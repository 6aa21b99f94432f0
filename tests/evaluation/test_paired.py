import pytest

from filingqa.evaluation.paired import (
    compare,
    compare_all,
    format_paired,
    sign_test,
    withholds_yes_or_no,
)

from ..kit.data import judged_row


def rows(scores: dict[str, tuple[float, str]]):
    return [judged_row(id=q, score=s, answer_type=kind) for q, (s, kind) in scores.items()]


DIRECT = rows({"a": (0, "span"), "b": (1, "span"), "c": (0, "number"), "d": (1, "number")})
PROGRAM = rows({"a": (1, "span"), "b": (0.5, "span"), "c": (1, "number"), "d": (1, "number")})


def test_a_candidate_is_compared_question_by_question_and_per_answer_type() -> None:
    paired = compare("direct", "program", {"direct": DIRECT, "program": PROGRAM})
    assert (paired.questions, paired.wins, paired.losses) == (4, 2, 1)  # half credit loses
    assert paired.p_value == pytest.approx(sign_test(2, 1)) == pytest.approx(0.5)
    assert paired.by_answer_type == {"number": (1, 0), "span": (1, 1)}


def test_only_the_questions_both_answered_are_compared() -> None:
    partial = compare("direct", "program", {"direct": DIRECT, "program": PROGRAM[:2]})
    assert (partial.questions, partial.wins, partial.losses) == (2, 1, 1)
    assert partial.by_answer_type == {}  # one answer type: nothing to break down


def test_every_setting_is_compared_with_each_one_before_it() -> None:
    runs = {"direct": DIRECT, "pot": DIRECT, "program": PROGRAM}
    pairs = [(p.candidate, p.baseline) for p in compare_all(runs)]
    assert pairs == [("pot", "direct"), ("program", "direct"), ("program", "pot")]


def test_the_pairs_are_printed_one_per_line() -> None:
    text = format_paired(compare_all({"direct": DIRECT, "program": PROGRAM}))
    header, line = text.splitlines()
    assert header.startswith("paired, strict score")
    assert "program vs direct" in line
    assert "wins   2  losses   1  p 0.500" in line
    assert line.endswith("(number 1/0, span 1/1)")
    assert format_paired([]) == ""


YES_NO_BASE = [
    judged_row(id="y1", answer="Yes, 5%", score=1, answer_type="yes_no"),
    judged_row(id="y2", answer="No", score=1, answer_type="yes_no"),
    judged_row(id="y3", answer="", outcome="refused", score=0, answer_type="yes_no"),
    judged_row(id="n1", answer="7", score=1),
]
YES_NO_CANDIDATE = [
    judged_row(
        id="y1", answer="Undecided: no ratio", outcome="unverified", score=0, answer_type="yes_no"
    ),
    judged_row(id="y2", answer="Yes", score=0, answer_type="yes_no"),  # wrong, not withheld
    judged_row(id="y3", answer="No", score=1, answer_type="yes_no"),
    judged_row(id="n1", answer="", outcome="refused", score=0),  # not a yes/no question
]


def test_withheld_yes_no_are_counted_each_way() -> None:
    paired = compare("a", "b", {"a": YES_NO_BASE, "b": YES_NO_CANDIDATE})
    assert (paired.wins, paired.losses) == (1, 3)
    assert (paired.yes_no, paired.candidate_withheld, paired.baseline_withheld) == (3, 1, 1)


def test_withheld_yes_no_are_printed_under_their_pair_only_when_yes_no_are_shared() -> None:
    text = format_paired([compare("a", "b", {"a": YES_NO_BASE, "b": YES_NO_CANDIDATE})])
    assert text.splitlines()[2] == (
        "    yes/no (3 shared) the other got right and this one withheld "
        "(Undecided, refused, error): b 1, a 1"
    )
    assert len(format_paired(compare_all({"direct": DIRECT, "program": PROGRAM})).splitlines()) == 2


def test_not_in_the_index_withholds_a_yes_no() -> None:
    row = judged_row(id="n", answer="Not in the index: …", answer_type="yes_no")
    assert withholds_yes_or_no(row.model_copy(update={"outcome": "not_indexed"}))
    assert not withholds_yes_or_no(row)
