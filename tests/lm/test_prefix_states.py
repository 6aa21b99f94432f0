"""Saved contexts: which one a prompt resumes from, and what is kept."""

from __future__ import annotations

import pytest

from filingqa.lm.prefix_states import (
    MIN_SHARED_TOKENS,
    PrefixStates,
    SavedContext,
    shared_prefix,
)

EVIDENCE = tuple(range(1000, 1400))  # a 400-token evidence block
OTHER = tuple(range(5000, 5100))


def context(*parts: tuple[int, ...], state: bytes = b"kv") -> SavedContext:
    tokens: tuple[int, ...] = tuple(token for part in parts for token in part)
    return SavedContext(tokens=tokens, state=state * len(tokens))


def test_shared_prefix_counts_leading_equal_tokens() -> None:
    assert shared_prefix([1, 2, 3], [1, 2, 4, 5]) == 2
    assert shared_prefix([], [1]) == 0
    assert shared_prefix([1, 2], [1, 2]) == 2


def test_a_prompt_resumes_from_the_saved_context_sharing_its_evidence() -> None:
    states = PrefixStates()
    question = context(EVIDENCE, (1, 2, 3))
    states.add(question)
    states.add(context(OTHER))  # a search query in between
    prompt = [*EVIDENCE, 7, 8]
    assert states.best(prompt, live=list(OTHER)) is question


def test_the_live_context_wins_when_it_shares_as_much() -> None:
    states = PrefixStates()
    states.add(context(EVIDENCE, (1,)))
    prompt = [*EVIDENCE, 2]
    assert states.best(prompt, live=[*EVIDENCE, 3]) is None


def test_a_changed_evidence_block_resumes_at_most_up_to_the_change() -> None:
    states = PrefixStates()
    states.add(context(EVIDENCE, (1,)))
    changed = list(EVIDENCE)
    changed[250] = 9  # one token of the evidence differs
    best = states.best([*changed, 1], live=[])
    assert best is not None
    assert shared_prefix(best.tokens, [*changed, 1]) == 250  # llama.cpp keeps only these
    changed[10] = 9
    assert states.best([*changed, 1], live=[]) is None  # under MIN_SHARED_TOKENS


def test_short_contexts_are_not_kept() -> None:
    states = PrefixStates()
    states.add(context(tuple(range(MIN_SHARED_TOKENS - 1))))
    assert states.saved == []


def test_a_context_replaces_the_ones_it_extends_and_the_oldest_go() -> None:
    states = PrefixStates(limit=2)
    first = context(EVIDENCE)
    states.add(first)
    longer = context(EVIDENCE, (1, 2))
    states.add(longer)
    assert states.saved == [longer]
    other = context(OTHER)
    states.add(other)
    third = context(tuple(range(7000, 7100)))
    states.add(third)
    assert states.saved == [third, other]


def test_the_capacity_bounds_the_bytes_kept() -> None:
    one = context(EVIDENCE)
    states = PrefixStates(limit=4, capacity_bytes=one.size + 10)
    states.add(one)
    newer = context(OTHER, OTHER)
    states.add(newer)
    assert states.saved == [newer]
    assert states.size <= states.capacity_bytes


def test_at_least_one_state() -> None:
    with pytest.raises(ValueError):
        PrefixStates(limit=0)
