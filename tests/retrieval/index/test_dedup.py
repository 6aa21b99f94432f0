"""Near-duplicate boilerplate removal by word-shingle Jaccard."""

from __future__ import annotations

import zlib

from filingqa.retrieval.index.dedup import dedup, jaccard, normalise, shingles

NOTICE = (
    "This report contains forward-looking statements within the meaning of the Private "
    "Securities Litigation Reform Act of 1995 that involve risks and uncertainties."
)


def test_normalise_drops_punctuation_and_thousands_commas() -> None:
    assert normalise("Net sales: $1,234.5 (up 4%)") == ["net", "sales", "1234.5", "up", "4"]


def test_shingles_of_short_and_long_texts() -> None:
    assert shingles("net sales") == {zlib.crc32(b"net sales")}
    assert shingles("") == frozenset()
    assert shingles("a b c d", size=3) == {zlib.crc32(b"a b c"), zlib.crc32(b"b c d")}
    assert shingles("Net  sales, $1,200") == shingles("net sales 1200")


def test_jaccard() -> None:
    a, b = frozenset({1, 2}), frozenset({2, 3})
    assert jaccard(a, b) == 1 / 3
    assert jaccard(frozenset(), frozenset()) == 0.0


def test_dedup_keeps_the_best_ranked_copy_of_boilerplate() -> None:
    ranked = [
        ("p1", NOTICE),
        ("p2", "Net sales were $1,200 million in 2019."),
        ("p3", NOTICE.replace("This report", "This Annual Report")),
        ("p4", NOTICE),
    ]
    kept = dedup(ranked, lambda item: shingles(item[1]))
    assert [pid for pid, _ in kept] == ["p1", "p2"]


def test_dedup_keeps_rows_that_differ_in_their_figures() -> None:
    ranked = [
        ("a", "Revenue: 2019: 1,200; 2018: 1,100; 2017: 1,000"),
        ("b", "Revenue: 2019: 7,300; 2018: 6,900; 2017: 6,100"),
    ]
    assert [pid for pid, _ in dedup(ranked, lambda item: shingles(item[1]))] == ["a", "b"]
    restated = [ranked[0], ("c", "Revenue: 2019: 1,200; 2018: 1,100; 2017: 1,001")]
    assert len(dedup(restated, lambda item: shingles(item[1]))) == 2  # Jaccard 4/6
    assert [pid for pid, _ in dedup(restated, lambda item: shingles(item[1]), threshold=0.6)] == [
        "a"
    ]
