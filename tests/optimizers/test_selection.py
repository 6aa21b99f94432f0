"""Keeping the compiled program only on a paired dev win, or a cost saving without a loss, that
its confirmation holds."""

import pytest

from filingqa.evaluation.paired import sign_test
from filingqa.evaluation.runner import Row
from filingqa.optimizers.selection import confirm, select_program

from ..kit.data import judged_row


def _rows(scores: list[float], seconds: float = 1.0) -> list[Row]:
    return [judged_row(id=f"q{i}", score=score, seconds=seconds) for i, score in enumerate(scores)]


def test_sign_test_is_the_binomial_tail() -> None:
    assert sign_test(0, 0) == 1.0
    assert sign_test(4, 0) == pytest.approx(1 / 16)
    assert sign_test(5, 1) == pytest.approx(7 / 64)
    assert sign_test(0, 3) == 1.0
    with pytest.raises(ValueError):
        sign_test(-1, 2)


def test_a_clear_paired_win_keeps_the_compiled_program() -> None:
    before = _rows([0, 0, 0, 0, 1, 1])
    after = _rows([1, 1, 1, 1, 1, 1])
    chosen = select_program(before, after, max_p_value=0.1)
    assert chosen.kept == "compiled"
    assert (chosen.wins, chosen.losses, chosen.p_value) == (4, 0, 0.0625)
    assert "compiled wins 4, loses 0" in chosen.describe()


def test_a_win_by_noise_keeps_the_uncompiled_program() -> None:
    # 0.60 against 0.55 on 40 questions: 3 wins and 1 loss is no evidence
    before = _rows([1] * 22 + [0] * 18)
    after = _rows([0] + [1] * 21 + [1, 1, 1] + [0] * 15)
    assert sum(r.score for r in after) / 40 == 0.6
    chosen = select_program(before, after, max_p_value=0.1)
    assert chosen.kept == "uncompiled" and (chosen.wins, chosen.losses) == (3, 1)
    assert select_program(before, after, max_p_value=1.0).kept == "compiled"


def test_a_tie_or_a_loss_never_keeps_the_compiled_program() -> None:
    rows = _rows([1, 0, 1])
    assert select_program(rows, rows, max_p_value=1.0).kept == "uncompiled"
    worse = _rows([0, 0, 1])
    assert select_program(rows, worse, max_p_value=1.0).kept == "uncompiled"


def test_a_cheaper_compiled_program_not_told_worse_goes_on() -> None:
    before = _rows([1, 1, 0, 0, 1, 0], seconds=10.0)
    after = _rows([1, 0, 1, 0, 1, 0], seconds=5.0)  # one won, one lost, half the seconds
    chosen = select_program(before, after, max_p_value=0.1)
    assert chosen.kept == "compiled" and not chosen.won_dev
    assert chosen.seconds == {"uncompiled": 10.0, "compiled": 5.0}
    assert "at 5.0 vs 10.0 s/q" in chosen.describe()


def test_a_cheaper_compiled_program_told_worse_or_cheaper_by_noise_does_not() -> None:
    before = _rows([1, 1, 1, 1, 0, 0], seconds=10.0)
    worse = _rows([0, 0, 0, 0, 0, 0], seconds=1.0)  # four lost: p 0.0625
    assert select_program(before, worse, max_p_value=0.1).kept == "uncompiled"
    noise = _rows([1, 1, 1, 1, 0, 0], seconds=9.6)  # within 5% of 10 s
    assert select_program(before, noise, max_p_value=0.1).kept == "uncompiled"


def test_runs_over_different_questions_are_refused() -> None:
    with pytest.raises(ValueError, match="different questions"):
        select_program(_rows([1, 1]), _rows([1]), max_p_value=0.1)


def test_dev_alone_says_whether_the_compiled_program_won() -> None:
    assert select_program(_rows([0, 0, 0, 0]), _rows([1, 1, 1, 1]), 0.1).won_dev
    assert not select_program(_rows([0, 0, 0, 1]), _rows([1, 1, 1, 0]), 0.1).won_dev


def test_a_confirmation_the_compiled_program_loses_keeps_the_uncompiled_one() -> None:
    before = _rows([1, 1, 1, 1, 0, 0], seconds=2.0)
    after = _rows([0, 0, 0, 0, 0, 0], seconds=1.0)  # cheaper, and told worse
    confirmed = confirm(before, after, max_p_value=0.1)
    assert confirmed.kept == "uncompiled"
    assert (confirmed.wins, confirmed.losses, confirmed.questions) == (0, 4, 6)
    assert confirmed.accuracy == {"uncompiled": 0.6667, "compiled": 0.0}  # rounded
    assert "keeps the uncompiled" in confirmed.describe()


def test_a_tied_confirmation_keeps_the_cheaper_program() -> None:
    before = _rows([1, 1, 0, 0, 1, 0], seconds=2.0)
    costlier = _rows([1, 1, 1, 0, 1, 0], seconds=5.0)  # one win: not told better
    assert confirm(before, costlier, max_p_value=0.1).kept == "uncompiled"
    cheaper = _rows([1, 0, 0, 0, 1, 0], seconds=1.0)  # one loss: not told worse
    confirmed = confirm(before, cheaper, max_p_value=0.1)
    assert confirmed.kept == "compiled" and confirmed.seconds["compiled"] == 1.0


def test_a_tied_confirmation_at_the_same_cost_keeps_the_more_accurate_program() -> None:
    before = _rows([1, 1, 0, 0, 1, 0], seconds=0.13)
    after = _rows([1, 1, 1, 0, 1, 0], seconds=0.14)  # one win, and the clock's noise dearer
    assert confirm(before, after, max_p_value=0.1).kept == "compiled"
    equal = _rows([1, 1, 0, 0, 1, 0], seconds=0.12)
    assert confirm(before, equal, max_p_value=0.1).kept == "compiled"  # then the cheaper


def test_a_costlier_program_told_better_on_the_confirmation_is_kept() -> None:
    before = _rows([0, 0, 0, 0, 1, 1], seconds=1.0)
    after = _rows([1, 1, 1, 1, 1, 1], seconds=3.0)
    confirmed = confirm(before, after, max_p_value=0.1)
    assert confirmed.kept == "compiled" and (confirmed.wins, confirmed.losses) == (4, 0)
    assert confirm(before, after, max_p_value=0.05).kept == "uncompiled"  # p = 1/16


def test_a_confirmation_needs_questions() -> None:
    with pytest.raises(ValueError, match="no confirmation questions"):
        confirm([], [], max_p_value=0.1)
