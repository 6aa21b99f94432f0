"""Reciprocal-rank fusion: the math, weights, duplicates and deterministic ties."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from filingqa.retrieval.index.fusion import Fused, reciprocal_rank_fusion, rrf_term


def test_single_list_keeps_order_with_reciprocal_scores() -> None:
    fused = reciprocal_rank_fusion([["a", "b", "c"]], k=60)
    assert [f.key for f in fused] == ["a", "b", "c"]
    assert [f.score for f in fused] == pytest.approx([1 / 61, 1 / 62, 1 / 63])
    assert fused[1].ranks == (2,)


def test_item_in_both_lists_sums_its_terms_and_wins() -> None:
    fused = reciprocal_rank_fusion([["a", "b"], ["c", "b"]], k=1)
    assert fused[0] == Fused("b", 1 / 3 + 1 / 3, (2, 2))
    assert {f.key: f.ranks for f in fused}["c"] == (None, 1)


def test_weights_scale_each_list() -> None:
    fused = reciprocal_rank_fusion([["a"], ["b"]], k=0, weights=[1.0, 3.0])
    assert [(f.key, f.score) for f in fused] == [("b", 3.0), ("a", 1.0)]


def test_zero_weight_list_adds_nothing_but_its_ranks_are_kept() -> None:
    fused = reciprocal_rank_fusion([["a", "b"], ["b"]], k=60, weights=[1.0, 0.0])
    assert [f.key for f in fused] == ["a", "b"]
    assert fused[1].score == pytest.approx(rrf_term(2))
    assert fused[1].ranks == (2, 1)


def test_repeated_key_counts_once_at_its_best_position() -> None:
    fused = reciprocal_rank_fusion([["a", "b", "a"]], k=60)
    assert [(f.key, f.ranks) for f in fused] == [("a", (1,)), ("b", (2,))]
    assert fused[0].score == pytest.approx(1 / 61)


def test_ties_break_by_best_rank_then_list_order() -> None:
    # x: ranks (1, 3), y: (3, 1) -> equal scores; both best rank 1; x holds it in list 0.
    # z: (2, 2) -> score 2/62 differs slightly from 1/61 + 1/63, so it is placed by score.
    fused = reciprocal_rank_fusion([["x", "z", "y"], ["y", "z", "x"]], k=60)
    by_key = {f.key: f for f in fused}
    assert by_key["x"].score == pytest.approx(by_key["y"].score)
    keys = [f.key for f in fused]
    assert keys.index("x") < keys.index("y")
    # equal score and equal best rank, the other way round
    assert [f.key for f in reciprocal_rank_fusion([["q"], ["p"]])] == ["q", "p"]


def test_empty_inputs() -> None:
    assert reciprocal_rank_fusion([]) == []
    assert reciprocal_rank_fusion([[], []]) == []


@pytest.mark.parametrize(
    ("k", "weights"),
    [(-1, None), (60, [1.0]), (60, [1.0, -0.5])],
)
def test_invalid_parameters_raise(k: int, weights: list[float] | None) -> None:
    with pytest.raises(ValueError):
        reciprocal_rank_fusion([["a"], ["b"]], k=k, weights=weights)


@given(
    st.lists(st.lists(st.integers(0, 30), max_size=20), max_size=4),
    st.integers(0, 100),
)
def test_fused_is_sorted_complete_and_order_independent_of_hashing(
    rankings: list[list[int]], k: int
) -> None:
    fused = reciprocal_rank_fusion(rankings, k=k)
    assert {f.key for f in fused} == {key for ranking in rankings for key in ranking}
    scores = [f.score for f in fused]
    assert scores == sorted(scores, reverse=True)
    relabelled = reciprocal_rank_fusion([[f"k{key}" for key in r] for r in rankings], k=k)
    assert [f"k{f.key}" for f in fused] == [f.key for f in relabelled]
