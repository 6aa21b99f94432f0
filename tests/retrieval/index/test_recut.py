"""An index cut and embedded for its embedder's window, and re-cut in place when that changes."""

from __future__ import annotations

from pathlib import Path

import pytest

from filingqa.retrieval.index.build import build_index
from filingqa.retrieval.index.corpus import file_corpus
from filingqa.retrieval.index.filters import SearchFilters
from filingqa.retrieval.index.passage_index import PassageIndex, stored_embedder
from filingqa.retrieval.index.passage_recipe import HEADER_RECIPE, LEGACY

from ..filings import FakeEncoder, count_pieces, fake_embedder, windowed_embedder, write_filings

WINDOW = 80
DOCS = ("ACME_2023_10K", "ACME_2024_10K", "GLOBEX_2024Q2_10Q")


@pytest.fixture
def filings(tmp_path: Path) -> Path:
    folder = tmp_path / "filings"
    write_filings(folder)
    return folder


def expected_ids(filings: Path, window: int = WINDOW) -> set[str]:
    budget = windowed_embedder(window=window).passage_recipe().budget
    corpus = file_corpus([filings])
    return {p.id for item in corpus.items for p in item.ingest(budget).passages}


def test_passages_fit_the_window_under_their_header(filings: Path, tmp_path: Path) -> None:
    encoder = FakeEncoder()
    build_index(
        tmp_path / "index",
        paths=[filings],
        embedder=windowed_embedder(encoder, WINDOW),
        progress=False,
    )
    with PassageIndex.open(tmp_path / "index", windowed_embedder(window=WINDOW)) as index:
        assert index.stored_recipe["header"] == HEADER_RECIPE
        assert not index.recuts()
        hits = index.search("revenue net income", k=100)
    assert {h.passage.id for h in hits} <= expected_ids(filings)
    text_hits = [h for h in hits if h.passage.kind == "text"]
    assert any(h.passage.parent_id for h in text_hits)  # long text was cut into several
    assert all(count_pieces(h.passage.text) <= WINDOW - 2 for h in text_hits)
    assert all(not h.passage.text.startswith("Acme Corporation ·") for h in hits)  # shown bare
    assert encoder.texts and all(t.split("\n")[0].count(" · ") >= 2 for t in encoder.texts)
    assert any(t.startswith("Acme Corporation · 10-K · FY2023") for t in encoder.texts)


def test_an_index_of_bare_passages_is_recut_in_place(filings: Path, tmp_path: Path) -> None:
    location = tmp_path / "index"
    bare = build_index(location, paths=[filings], embedder=fake_embedder(), progress=False)
    with PassageIndex.open(location, fake_embedder()) as index:
        assert index.stored_recipe == LEGACY.describe()
    recut = build_index(
        location, paths=[filings], embedder=windowed_embedder(window=WINDOW), progress=False
    )
    assert (recut.indexed, recut.resumed) == (3, 0)
    assert recut.passages > bare.passages
    wanted = expected_ids(filings)
    with PassageIndex.open(location, windowed_embedder(window=WINDOW)) as index:
        assert index.stored_recipe["header"] == HEADER_RECIPE
        assert index.count() == len(wanted) == recut.passages  # nothing of the old cut is left
        found = {h.passage.id for h in index.search("revenue", k=500)}
    assert found <= wanted
    again = build_index(
        location, paths=[filings], embedder=windowed_embedder(window=WINDOW), progress=False
    )
    assert (again.indexed, again.resumed, again.written) == (0, 3, 0)


def test_an_interrupted_recut_resumes(filings: Path, tmp_path: Path) -> None:
    location = tmp_path / "index"
    build_index(location, paths=[filings], embedder=fake_embedder(), progress=False)
    killer = windowed_embedder(FakeEncoder(fail_on_call=2), WINDOW)
    with pytest.raises(KeyboardInterrupt):
        build_index(location, paths=[filings], embedder=killer, progress=False, flush_passages=1)
    resumed = build_index(
        location, paths=[filings], embedder=windowed_embedder(window=WINDOW), progress=False
    )
    assert resumed.resumed == 1 and resumed.indexed == 2
    wanted = expected_ids(filings)
    with PassageIndex.open(location, windowed_embedder(window=WINDOW)) as index:
        assert index.count() == len(wanted)
        for doc_id in DOCS:
            own = sum(1 for i in wanted if i.startswith(doc_id + ":"))
            assert index.count(SearchFilters(doc_ids=doc_id)) == own


def test_the_index_names_its_embedder(filings: Path, tmp_path: Path) -> None:
    location = tmp_path / "index"
    assert stored_embedder(location) is None and stored_embedder(":memory:") is None
    build_index(location, paths=[filings], embedder=windowed_embedder(), progress=False)
    assert stored_embedder(location) == "fake-bag-of-words"
