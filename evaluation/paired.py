"""Two settings compared question by question: wins, losses and the sign test."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from math import comb
from typing import TYPE_CHECKING

from pydantic import BaseModel

from filingqa.program.extraction import UNDECIDED

if TYPE_CHECKING:
    from filingqa.evaluation.runner import Row


def sign_test(wins: int, losses: int) -> float:
    """P(at least ``wins`` successes in ``wins + losses`` fair coin flips); 1.0 for none."""
    if wins < 0 or losses < 0:
        raise ValueError("wins and losses are counts")
    n = wins + losses
    return sum(comb(n, k) for k in range(wins, n + 1)) / 2**n


def paired_outcomes(baseline: Sequence[Row], candidate: Sequence[Row]) -> tuple[int, int]:
    """How many questions ``candidate`` scores higher on than ``baseline`` (wins), and lower
    (losses), rows matched by question id.

    Raises:
        ValueError: the two runs did not answer the same questions.
    """
    if {row.id for row in baseline} != {row.id for row in candidate}:
        raise ValueError("the two runs cover different questions")
    wins, losses = _wins_and_losses(baseline, candidate)
    return len(wins), len(losses)


def _wins_and_losses(
    baseline: Sequence[Row], candidate: Sequence[Row]
) -> tuple[list[Row], list[Row]]:
    """The candidate's rows scored higher than the baseline's row of the same question, and
    those scored lower (questions only one of them has are left out)."""
    old = {row.id: row.score for row in baseline}
    shared = [row for row in candidate if row.id in old]
    return [r for r in shared if r.score > old[r.id]], [r for r in shared if r.score < old[r.id]]


def withholds_yes_or_no(row: Row) -> bool:
    """Whether ``row`` answers a yes/no question without a yes or no: ``Undecided:``, a
    refusal, "not in the index", or an error."""
    return row.answer_type == "yes_no" and (
        row.outcome in ("refused", "not_indexed", "error") or row.answer.startswith(UNDECIDED)
    )


class Paired(BaseModel):
    """``candidate`` against ``baseline`` on the questions both answered: wins, losses, the
    one-sided sign test's p-value, and wins and losses per answer type.

    ``yes_no``: how many yes/no questions the pair shares; ``candidate_withheld``: the
    losses where the candidate gave no yes or no (:func:`withholds_yes_or_no`) to a yes/no
    the baseline got right; ``baseline_withheld`` the same the other way round.
    """

    baseline: str
    candidate: str
    questions: int
    wins: int
    losses: int
    p_value: float
    by_answer_type: dict[str, tuple[int, int]]
    yes_no: int = 0
    candidate_withheld: int = 0
    baseline_withheld: int = 0

    def by_type_text(self) -> str:
        """``number 2/0, span 1/1``: wins/losses per answer type (empty for one type)."""
        return ", ".join(f"{k} {won}/{lost}" for k, (won, lost) in self.by_answer_type.items())


def compare(baseline: str, candidate: str, rows: Mapping[str, Sequence[Row]]) -> Paired:
    """``rows[candidate]`` against ``rows[baseline]``, matched by question id on the
    questions both have (a run still going has fewer)."""
    baseline_ids = {row.id for row in rows[baseline]}
    shared = [row for row in rows[candidate] if row.id in baseline_ids]
    wins, losses = _wins_and_losses(rows[baseline], shared)
    kinds = sorted({row.answer_type for row in shared})
    by_type = {
        kind: (
            sum(row.answer_type == kind for row in wins),
            sum(row.answer_type == kind for row in losses),
        )
        for kind in kinds
    }
    old = {row.id: row for row in rows[baseline]}
    return Paired(
        baseline=baseline,
        candidate=candidate,
        questions=len(shared),
        wins=len(wins),
        losses=len(losses),
        p_value=sign_test(len(wins), len(losses)),
        by_answer_type=by_type if len(kinds) > 1 else {},
        yes_no=sum(row.answer_type == "yes_no" for row in shared),
        candidate_withheld=sum(withholds_yes_or_no(row) for row in losses),
        baseline_withheld=sum(withholds_yes_or_no(old[row.id]) for row in wins),
    )


def compare_all(rows: Mapping[str, Sequence[Row]]) -> list[Paired]:
    """Every setting against each one listed before it."""
    names = list(rows)
    return [compare(a, b, rows) for i, a in enumerate(names) for b in names[i + 1 :]]


def format_paired(comparisons: list[Paired]) -> str:
    """One line per pair: wins, losses and p, then wins/losses per answer type; under a pair
    that shares yes/no questions, how many yes/no each withheld that the other got right
    (empty for no pairs)."""
    if not comparisons:
        return ""
    width = max(len(f"{p.candidate} vs {p.baseline}") for p in comparisons)
    lines = [
        "paired, strict score (A vs B: A's wins and losses; p of the sign test that A is better):"
    ]
    for p in comparisons:
        kinds = p.by_type_text()
        lines.append(
            f"  {f'{p.candidate} vs {p.baseline}':<{width}}  n {p.questions:>4}  "
            f"wins {p.wins:>3}  losses {p.losses:>3}  p {p.p_value:.3f}"
            + (f"  ({kinds})" if kinds else "")
        )
        if p.yes_no:
            lines.append(
                f"    yes/no ({p.yes_no} shared) the other got right and this one withheld "
                f"(Undecided, refused, error): {p.candidate} {p.candidate_withheld}, "
                f"{p.baseline} {p.baseline_withheld}"
            )
    return "\n".join(lines)
