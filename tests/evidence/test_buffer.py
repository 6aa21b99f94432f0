import pytest

from filingqa.evidence.buffer import EvidenceBuffer
from filingqa.records import Passage


def passage(pid: str, size: int = 10) -> Passage:
    return Passage(id=pid, doc_id="D", page=1, kind="text", text="x" * size)


def test_highest_priority_first_and_earlier_wins_ties() -> None:
    buffer = EvidenceBuffer(capacity_chars=1000)
    buffer.add([passage("a"), passage("b")], priority=0.5)
    buffer.add([passage("c")], priority=1.0)
    assert [p.id for p in buffer.passages()] == ["c", "a", "b"]


def test_a_passage_added_again_keeps_its_higher_priority_and_appears_once() -> None:
    buffer = EvidenceBuffer(capacity_chars=1000)
    buffer.add([passage("a"), passage("b")], priority=0.5)
    buffer.add([passage("b")], priority=0.9)
    buffer.add([passage("b")], priority=0.1)
    assert [p.id for p in buffer.passages()] == ["b", "a"]
    assert len(buffer) == 2
    assert "b" in buffer


def test_capacity_drops_lower_priority_passages_that_do_not_fit() -> None:
    buffer = EvidenceBuffer(capacity_chars=25)
    buffer.add([passage("big", 20)], priority=1.0)
    buffer.add([passage("too-big", 10), passage("small", 5)], priority=0.5)
    assert [p.id for p in buffer.passages()] == ["big", "small"]


def test_the_top_passage_is_kept_even_if_larger_than_capacity() -> None:
    buffer = EvidenceBuffer(capacity_chars=5)
    buffer.add([passage("huge", 50)], priority=1.0)
    assert [p.id for p in buffer.passages()] == ["huge"]


def test_capacity_must_be_positive() -> None:
    with pytest.raises(ValueError):
        EvidenceBuffer(capacity_chars=0)
