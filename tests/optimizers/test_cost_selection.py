"""The cost-aware rule: among the structures the paired test cannot tell from the most
accurate, the cheapest is kept; a structure the test tells apart is not."""

from __future__ import annotations

import pytest

from filingqa.lm.trace import Step
from filingqa.optimizers.cost_selection import (
    SAME_COST_SECONDS,
    SAME_COST_SHARE,
    TIE_P_VALUE,
    cheapest_tied,
    gold_pages_of,
    gold_pages_paired,
    same_cost,
)

from ..kit.data import judged_row


def answered(scores: list[float], seconds: float, hit: bool | list[bool] | None = None):
    hits = hit if isinstance(hit, list) else [hit] * len(scores)
    return [
        judged_row(id=f"q{n}", score=score, seconds=seconds, gold_retrieved=found)
        for n, (score, found) in enumerate(zip(scores, hits, strict=True))
    ]


def test_the_cheaper_of_two_tied_structures_is_kept() -> None:
    rows = {
        "start": answered([1, 1, 0, 1, 0, 1], 140.0, hit=True),
        "curation=false": answered([1, 0, 0, 1, 1, 1], 60.0, hit=True),  # 1 won, 1 lost
    }
    verdicts = {c.key: c for c in cheapest_tied(rows, "start")}
    assert verdicts["curation=false"].verdict == "kept"
    assert verdicts["start"].verdict == "tied"
    assert verdicts["curation=false"].seconds == 60.0 and verdicts["start"].gold_hit == 1.0


def test_of_tied_structures_costing_the_same_the_more_accurate_is_kept() -> None:
    assert (SAME_COST_SECONDS, SAME_COST_SHARE) == (0.5, 0.05)
    rows = {
        "start": answered([1, 1, 0, 1, 0, 1], 60.0, hit=True),
        "samples=5": answered([1, 1, 1, 1, 0, 1], 61.9, hit=True),  # within 5% of k=5
        "k=5": answered([1, 1, 0, 1, 0, 1], 59.0, hit=True),  # as accurate as the start
    }
    verdicts = {c.key: c.verdict for c in cheapest_tied(rows, "start")}
    assert verdicts == {"samples=5": "kept", "start": "tied", "k=5": "tied"}
    rows["samples=5"] = answered([1, 1, 1, 1, 0, 1], 62.0, hit=True)  # 5.1% dearer than k=5
    rows["k=5"] = answered([1, 1, 0, 1, 0, 1], 58.9, hit=True)
    verdicts = {c.key: c.verdict for c in cheapest_tied(rows, "start")}
    assert verdicts == {"samples=5": "tied", "start": "tied", "k=5": "kept"}


def test_same_cost_allows_half_a_second_or_a_twentieth() -> None:
    assert same_cost(0.6, 0.13) and not same_cost(0.64, 0.13)
    assert same_cost(105.0, 100.0) and not same_cost(105.1, 100.0)


def test_the_better_of_two_the_test_tells_apart_is_kept_however_much_it_costs() -> None:
    rows = {
        "start": answered([1, 1, 1, 1, 0, 1], 140.0),
        "query_writing=false": answered([0, 0, 0, 0, 0, 1], 40.0),  # lost 4, won none: p 0.0625
    }
    verdicts = {c.key: c for c in cheapest_tied(rows, "start")}
    assert (verdicts["start"].verdict, verdicts["query_writing=false"].verdict) == (
        "kept",
        "worse",
    )
    assert (verdicts["query_writing=false"].wins, verdicts["query_writing=false"].losses) == (0, 4)


def test_at_a_p_value_bar_of_1_the_most_accurate_is_kept_and_every_other_told_worse() -> None:
    rows = {
        "start": answered([1, 1, 0, 1], 140.0, hit=True),
        "curation=false": answered([1, 1, 0, 0], 60.0, hit=True),
    }
    verdicts = {c.key: c.verdict for c in cheapest_tied(rows, "start", max_p_value=1.0)}
    assert verdicts == {"start": "kept", "curation=false": "worse"}


def test_losses_the_sign_test_cannot_call_are_a_tie() -> None:
    assert TIE_P_VALUE == 0.1
    rows = {
        "start": answered([1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0], 100.0),
        "k=5": answered([0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0], 80.0),  # 3 lost, none won: p 0.125
    }
    assert [c.key for c in cheapest_tied(rows, "start") if c.verdict == "kept"] == ["k=5"]


def test_the_most_accurate_wins_over_a_cheaper_one_four_questions_behind_it() -> None:
    rows = {
        "start": answered([0, 0, 0, 0, 1, 1], 100.0),
        "samples=5": answered([1, 1, 1, 1, 1, 1], 300.0),  # the most accurate
        "decompose=false": answered([0, 0, 0, 0, 1, 1], 90.0),  # four lost against it: worse
    }
    verdicts = cheapest_tied(rows, "start")
    assert [(c.key, c.verdict) for c in verdicts] == [
        ("samples=5", "kept"),
        ("decompose=false", "worse"),
        ("start", "worse"),
    ]


def test_a_cheaper_search_that_misses_two_gold_pages_more_is_not_a_tie() -> None:
    rows = {
        "start": answered([1, 0, 0, 1], 140.0, hit=[True, True, True, False]),
        "query_writing=false": answered([1, 0, 0, 1], 60.0, hit=[True, False, False, False]),
        "k=5": answered([1, 0, 0, 1], 70.0, hit=[True, False, True, False]),
        "hypotheses=1": answered([1, 0, 0, 1], 90.0, hit=[True, False, True, True]),
    }
    verdicts = {c.key: c for c in cheapest_tied(rows, "start")}
    missed = {key: (c.gold_found, c.gold_missed, c.verdict) for key, c in verdicts.items()}
    assert missed["query_writing=false"] == (0, 2, "worse")  # against hypotheses=1
    assert missed["k=5"] == (0, 1, "kept")  # one page of slack, and the cheapest tied
    assert missed["hypotheses=1"] == (0, 0, "tied")  # the best: as many pages, cheaper
    assert missed["start"] == (1, 1, "tied")
    assert "gold pages 1 found, 1 missed" in verdicts["start"].describe()


def test_gold_pages_are_paired_only_where_both_recorded_one() -> None:
    start = answered([1, 1, 1], 1.0, hit=[True, False, True])
    other = [*answered([1, 1], 1.0, hit=[False, True]), judged_row(id="q2", score=1.0)]
    assert gold_pages_paired(gold_pages_of(start), gold_pages_of(other)) == (1, 1)


def test_pages_from_more_first_searches_decide_the_page_parity_when_given() -> None:
    rows = {
        "start": answered([1, 0, 1], 100.0, hit=True),
        "query_writing=false": answered([1, 0, 1], 30.0, hit=True),  # no page missed here
    }
    searched = {
        "start": {"q0": True, "q1": True, "s3": True, "s4": True, "s5": None},
        "query_writing=false": {"q0": True, "q1": True, "s3": False, "s4": False, "s5": True},
    }
    by_rows = {c.key: c for c in cheapest_tied(rows, "start")}
    by_pages = {c.key: c for c in cheapest_tied(rows, "start", searched)}
    assert by_rows["query_writing=false"].verdict == "kept"
    assert by_pages["query_writing=false"].verdict == "worse"  # missed s3, s4 (s5: none known)
    assert by_pages["start"].verdict == "kept"
    assert (by_pages["query_writing=false"].gold_missed, by_pages["start"].gold_hit) == (2, 1.0)
    described = by_pages["query_writing=false"].describe()
    assert "gold pages 0 found, 2 missed of 5 first searches" in described
    with pytest.raises(ValueError, match="no gold pages of"):
        cheapest_tied(rows, "start", {"start": searched["start"]})


def test_a_step_answered_from_the_cache_is_priced_at_the_starts() -> None:
    start = [
        judged_row(id="q", seconds=100.0, steps=[Step(name="curate", lm_calls=1, tokens=900,
                                                      seconds=60.0)])
    ]  # fmt: skip
    same = [
        judged_row(id="q", seconds=0.5, steps=[Step(name="curate", lm_calls=1, tokens=0,
                                                     seconds=0.1)])
    ]  # fmt: skip
    verdicts = {c.key: c for c in cheapest_tied({"start": start, "x": same}, "start")}
    assert verdicts["x"].seconds == pytest.approx(60.4)


def test_structures_must_answer_the_same_questions() -> None:
    with pytest.raises(ValueError, match="different questions"):
        cheapest_tied({"start": answered([1], 1.0), "x": answered([1, 1], 1.0)}, "start")
