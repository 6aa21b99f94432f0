"""The search pipeline: question-derived scopes, widening, hierarchy, reranker features."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any, cast

import pytest

from filingqa.records.documents import Passage
from filingqa.records.search_handle import SearchHandle
from filingqa.retrieval.index.build import build_index
from filingqa.retrieval.index.filters import SearchFilters
from filingqa.retrieval.index.passage_index import PassageIndex
from filingqa.retrieval.ingest.metadata_store import MetadataStore
from filingqa.retrieval.search.hit_scores import dense_scores
from filingqa.retrieval.search.pipeline import (
    FilingSearch,
    RankedPassage,
    SearchSettings,
    load_reranker,
)
from filingqa.retrieval.search.rerank import Reranker
from filingqa.retrieval.search.rerank_features import Candidate

from ..filings import fake_embedder, windowed_embedder, write_filings


def docs(ranked: Sequence[RankedPassage]) -> set[str]:
    return {r.passage.doc_id for r in ranked}


def test_it_is_the_programs_search_handle(search: FilingSearch) -> None:
    handle: SearchHandle = search
    passages = handle.search("Acme revenue in fiscal 2024", k=2)
    assert len(passages) == 2 and all(isinstance(p, Passage) for p in passages)


def test_hits_carry_both_lists_scores(search: FilingSearch) -> None:
    [hit] = search.index.search("total revenue", 1)
    assert hit.dense_rank == hit.sparse_rank == 1
    assert hit.dense_score is not None and 0 < hit.dense_score <= 1
    assert hit.sparse_score is not None and hit.sparse_score > 0


def test_company_and_period_in_the_question_pick_the_filing(search: FilingSearch) -> None:
    ranked = search.ranked("What was Acme's total revenue in fiscal 2023?", k=3)
    assert docs(ranked) == {"ACME_2023_10K"}
    assert ranked[0].passage.kind == "table" and "1,000.0" in ranked[0].passage.text
    assert ranked[0].why[0] == "scope: Acme Corporation, period filings ACME_2023_10K"
    assert ranked[0].document is not None and ranked[0].document.ticker == "ACME"


def test_ticker_and_quarter_resolve_too(search: FilingSearch) -> None:
    ranked = search.ranked("GBX revenue for the second quarter of 2024", k=2)
    assert docs(ranked) == {"GLOBEX_2024Q2_10Q"}


def test_arguments_name_company_and_period(search: FilingSearch) -> None:
    ranked = search.ranked("total revenue", k=3, company="Acme Corp", period="FY2024")
    assert docs(ranked) == {"ACME_2024_10K"}
    assert search.ranked("total revenue", k=3, company="Unknown Co")[0].why[0] == (
        "scope: all filings"
    )


def test_company_without_period_keeps_to_its_filings(search: FilingSearch) -> None:
    ranked = search.ranked("How did Acme describe liquidity?", k=4)
    assert docs(ranked) <= {"ACME_2023_10K", "ACME_2024_10K"}
    assert ranked[0].why[0] == "scope: Acme Corporation, all filings"


def test_a_narrow_scope_with_too_few_hits_widens(search: FilingSearch) -> None:
    ranked = search.with_settings(spread=0).ranked("Globex revenue in Q2 2024", k=6)
    scopes = [r.why[0] for r in ranked]
    assert scopes[:3] == ["scope: Globex Inc., period filings GLOBEX_2024Q2_10Q"] * 3
    assert scopes[3:] == ["scope: all filings"] * 3  # the 10-Q has three passages


def test_filters_off_searches_everything(search: FilingSearch) -> None:
    ranked = search.with_settings(filters=False).ranked("Acme total revenue fiscal 2023", k=6)
    assert len(docs(ranked)) >= 2
    assert all(r.why[0] == "scope: all filings" for r in ranked)


def test_explicit_doc_ids_restrict_without_widening(search: FilingSearch) -> None:
    ranked = search.ranked("revenue", k=10, doc_ids=["GLOBEX_2024Q2_10Q"])
    assert docs(ranked) == {"GLOBEX_2024Q2_10Q"} and len(ranked) == 3
    assert search.ranked("revenue", k=10, doc_ids=[]) == []


def test_hierarchical_search_goes_deeper_in_the_top_documents(search: FilingSearch) -> None:
    narrow = search.with_settings(filters=False, candidates=2, documents=1)
    flat = narrow.with_settings(hierarchical=False).ranked("total revenue and net income", k=8)
    deep = narrow.ranked("total revenue and net income", k=8)
    assert len(flat) == 2 and len(deep) > 2
    added = [r for r in deep if r.why[0] == "scope: within the top documents"]
    assert added and len(docs(added)) == 1
    assert all("document #1 of the top documents" in r.why for r in added)


def test_every_candidate_gets_both_scores(search: FilingSearch, built: Path) -> None:
    query = "employees liquidity cash"
    ranked = search.with_settings(filters=False, candidates=3, hierarchical=False).ranked(
        query, k=6
    )
    truth = {h.passage.id: h.sparse_score for h in search.index.search(query, 50, mode="sparse")}
    missed = [r for r in ranked if r.sparse_rank is None]
    assert missed, "a passage found by the dense list only"
    for r in ranked:
        assert r.dense_score is not None and r.sparse_score is not None
        assert r.sparse_score == pytest.approx(truth.get(r.passage.id, 0.0), rel=1e-3, abs=1e-4)


def test_a_cosine_computed_at_search_time_is_the_one_the_index_stored(tmp_path: Path) -> None:
    """A candidate a dense list missed gets its cosine computed from what the index embedded
    (header line and text), as the listed candidates' stored vectors give theirs."""
    files = write_filings(tmp_path / "filings")
    build_index(tmp_path / "index", paths=files, embedder=windowed_embedder(), progress=False)
    query = "employees liquidity cash"
    search = FilingSearch.open(tmp_path / "index", reranker=None, embedder=windowed_embedder())
    try:
        hits = search.index.search(query, 500, mode="dense")
        passages = [h.passage for h in hits]
        documents = [
            search.metadata.document(p.doc_id) if search.metadata else None for p in passages
        ]
        embedded = search.index.embedded_texts(passages, documents)
        computed = dense_scores(search.index.embedder, query, [None] * len(hits), embedded)
        bare = dense_scores(
            search.index.embedder, query, [None] * len(hits), [p.text for p in passages]
        )
    finally:
        search.close()
    assert all(d is not None for d in documents)
    assert computed == pytest.approx([h.dense_score for h in hits], abs=1e-5)
    assert bare != pytest.approx(computed, abs=1e-3), "the header changes these cosines"


def test_a_bare_index_is_scored_on_bare_text(search: FilingSearch) -> None:
    passages = [h.passage for h in search.index.search("net income", 3, mode="dense")]
    documents = [search.metadata.document(p.doc_id) if search.metadata else None for p in passages]
    assert search.index.embedded_texts(passages, documents) == [p.text for p in passages]


def _trained(embedder: str | None) -> Reranker:
    """A reranker that counts as trained (it never scores here), learned over ``embedder``."""
    return Reranker(cast(Any, object()), embedder=embedder)


def test_a_reranker_that_learned_another_encoders_cosines_is_flagged(
    search: FilingSearch,
) -> None:
    with pytest.warns(UserWarning, match=r"learned the cosines of all-MiniLM-L6-v2\+tuned-1"):
        search.with_reranker(_trained("all-MiniLM-L6-v2+tuned-1"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        search.with_reranker(_trained(search.index.embedder.name))
        search.with_reranker(_trained(None))  # its training recorded no encoder
        search.with_reranker(Reranker(embedder="another"))  # untrained: the fused order


def test_modes_and_settings_are_validated(search: FilingSearch) -> None:
    bm25 = search.with_settings(mode="bm25", filters=False).ranked("net income", k=3)
    assert all(r.dense_rank is None and r.sparse_rank for r in bm25)
    dense = search.with_settings(mode="dense", filters=False).ranked("net income", k=3)
    assert all(r.sparse_rank is None and r.dense_rank for r in dense)
    with pytest.raises(ValueError):
        search.with_settings(candidates=0)
    with pytest.raises(ValueError, match="k must be"):
        search.ranked("revenue", k=0)
    assert search.settings == SearchSettings()


class RecordingReranker(Reranker):
    """Reverses the fused order and records what it was asked."""

    def __init__(self) -> None:
        super().__init__(dedup_threshold=None, promote_k=None)
        self.companies: Sequence[str] | None = None
        self.candidates: list[Candidate] = []

    def rerank(self, query, candidates, *, companies=None, info=None):
        self.companies, self.candidates = companies, list(candidates)
        return list(reversed(candidates))


def test_reranker_gets_features_and_companies(built: Path) -> None:
    reranker = RecordingReranker()
    search = FilingSearch.open(built, reranker=reranker, embedder=fake_embedder())
    try:
        ranked = search.ranked("Acme net income in fiscal 2024", k=2)
        fused = search.with_settings(rerank=False).ranked("Acme net income in fiscal 2024", k=5)
    finally:
        search.close()
    assert reranker.companies == ["Acme Corporation", "ACME"]
    assert [c.fused_rank for c in reranker.candidates] == list(range(1, 6))
    assert all(c.page_rank is not None for c in reranker.candidates if c.sparse_score)
    assert ranked[0].passage.id == fused[-1].passage.id
    assert any(w.startswith("reranked from #5 to #1") for w in ranked[0].why)


def test_a_small_filtered_scope_is_ranked_whole(built: Path) -> None:
    reranker = RecordingReranker()
    search = FilingSearch.open(built, reranker=reranker, embedder=fake_embedder())
    question = "Acme net income in fiscal 2024"
    try:
        search.with_settings(candidates=1).ranked(question, k=1)
        whole = {c.passage.id for c in reranker.candidates}
        stored = search.index.count(SearchFilters(doc_ids=["ACME_2024_10K"]))
        search.with_settings(candidates=1, exhaustive=0).ranked(question, k=1)
        cut = reranker.candidates
        search.with_settings(candidates=1, exhaustive=stored - 1).ranked(question, k=1)
        too_big = reranker.candidates
    finally:
        search.close()
    assert len(whole) == stored > 1 and {p.split(":")[0] for p in whole} == {"ACME_2024_10K"}
    assert len(cut) == len(too_big) == 1


def test_spread_puts_the_best_passage_of_each_page_first(search: FilingSearch) -> None:
    question = "Acme revenue net income cash employees risks in fiscal 2024"
    spread = search.with_settings(spread=3).ranked(question, k=4)
    pages = [r.passage.page for r in spread]
    assert len(set(pages[:3])) == min(3, len(set(pages)))


def test_missing_reranker_warns_and_search_still_works(built: Path, tmp_path: Path) -> None:
    with pytest.warns(UserWarning, match="no trained reranker"):
        reranker = load_reranker(tmp_path / "nowhere")
    assert reranker is not None and not reranker.trained
    search = FilingSearch(
        PassageIndex.open(built, fake_embedder()), MetadataStore.load(built), reranker
    )
    try:
        assert search.search("Acme revenue fiscal 2024", k=1)[0].doc_id == "ACME_2024_10K"
    finally:
        search.close()


def test_index_without_metadata_warns_and_searches_unfiltered(tmp_path: Path) -> None:
    files = write_filings(tmp_path / "filings")
    with PassageIndex.open(tmp_path / "bare", fake_embedder()) as index:
        build_index(index, paths=files, progress=False)  # an open index: no metadata saved
    with pytest.warns(UserWarning, match="no document metadata"):
        search = FilingSearch.open(tmp_path / "bare", reranker=None, embedder=fake_embedder())
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            ranked = search.ranked("Acme total revenue fiscal 2023", k=6)
        assert ranked[0].why[0] == "scope: all filings" and len(docs(ranked)) >= 2
    finally:
        search.close()


def test_companies_named_in_text(built: Path) -> None:
    store = MetadataStore.load(built)
    assert store.companies_in("Did acme's margin beat GBX's?") == [
        "Acme Corporation",
        "Globex Inc.",
    ]
    assert store.companies_in("the gbx ratio") == []  # a short alias must be in capitals
    assert store.companies_in("GbX's margin") == ["Globex Inc."]  # or with two of them
    assert store.companies_in("Gbx margin") == []
    assert store.companies_in("Globex Inc. vs ACME") == ["Globex Inc.", "Acme Corporation"]


def test_the_shipped_reranker_is_the_default_on_a_fresh_home(isolated_home) -> None:
    from filingqa.retrieval.search.pipeline import load_reranker

    reranker = load_reranker("default")
    assert reranker is not None and reranker.trained
