"""Which index a dataset searches, the missing-index error, and gold-page bookkeeping."""

from pathlib import Path

import pytest

from filingqa.evaluation.open_corpus import (
    IndexMissingError,
    RecordingSearch,
    default_context,
    gold_hit,
    gold_pages,
    index_built,
    index_location,
    index_spec,
    open_corpus,
    pages,
    require_index,
)
from filingqa.records.qa_record import Evidence, QARecord

from ..kit.passages import CASH_FLOW, CORPUS, MDNA, OTHER, ListSearch, RecordSearch


def record(*evidence: Evidence) -> QARecord:
    return QARecord(
        id="r",
        dataset="financebench",
        split="dev",
        question="Q?",
        answer="1",
        answer_value=1.0,
        answer_type="number",
        evidence=list(evidence),
    )


def test_gold_pages_are_one_based_and_distinct() -> None:
    rec = record(
        Evidence(doc_name="ACME_2024_10K", page=3),
        Evidence(doc_name="ACME_2024_10K", page=3, text="again"),
        Evidence(doc_name="ACME_2024_10K", page=None),
        Evidence(doc_name="ACME_2024_10K", page=0),
    )
    assert gold_pages(rec) == [("ACME_2024_10K", 4), ("ACME_2024_10K", 1)]


def test_gold_hit_is_none_without_gold_pages() -> None:
    rec = record(Evidence(doc_name="ACME_2024_10K", page=3))
    assert gold_hit(rec, [("ACME_2024_10K", 4)]) is True
    assert gold_hit(rec, [("ACME_2024_10K", 3), ("OTHER", 4)]) is False
    assert gold_hit(record(), [("ACME_2024_10K", 4)]) is None


def test_pages_keep_first_seen_order() -> None:
    assert pages([CASH_FLOW, MDNA, CASH_FLOW, OTHER]) == [
        ("ACME_2024_10K", 4),
        ("ACME_2024_10K", 2),
        ("BETA_2024_10K", 9),
    ]


def test_recording_search_passes_calls_through_and_keeps_every_result() -> None:
    inner = ListSearch(CORPUS)
    search = RecordingSearch(inner)
    first = search.search("cash flow", k=1, company="Acme", period="FY2024")
    search.search("demand", k=5)
    assert first == [CASH_FLOW]
    assert search.found == [CASH_FLOW, MDNA]
    assert inner.calls[0] == {"query": "cash flow", "k": 1, "company": "Acme", "period": "FY2024"}


@pytest.mark.parametrize(
    ("spec", "context", "corpus"),
    [
        ("financebench:dev", "retrieved", "financebench"),
        ("tatqa:dev", "gold", "tatqa:dev"),
        ("finqa:test", "gold", "finqa:test"),
    ],
)
def test_financebench_retrieves_from_one_index_for_every_split(
    spec: str, context: str, corpus: str
) -> None:
    assert default_context(spec) == context
    assert index_spec(spec) == corpus


def test_default_index_locations_follow_filingqa_index(isolated_home: Path) -> None:
    assert index_location("financebench") == isolated_home / "indexes" / "financebench"
    assert index_location("finqa:dev") == isolated_home / "indexes" / "finqa-dev"
    assert index_location("financebench", Path("/x")) == Path("/x")


def test_a_missing_index_is_one_line_naming_the_build_command(isolated_home: Path) -> None:
    with pytest.raises(IndexMissingError) as missing:
        require_index("financebench")
    message = str(missing.value)
    assert "`filingqa index --dataset financebench`" in message
    assert str(isolated_home / "indexes" / "financebench") in message
    assert "\n" not in message


def test_a_missing_given_index_names_it_in_the_fix(tmp_path: Path) -> None:
    with pytest.raises(IndexMissingError, match=r"--dataset financebench --index .*/idx`"):
        require_index("financebench", tmp_path / "idx")
    assert not index_built(tmp_path / "idx")


@pytest.fixture
def built_index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A real index of three synthetic filings; opening it uses the fake embedder."""
    from filingqa.retrieval.index.build import build_index
    from filingqa.retrieval.index.embedder import Embedder

    from ..retrieval.filings import fake_embedder, write_filings

    files = write_filings(tmp_path / "filings")
    build_index(tmp_path / "index", paths=files, embedder=fake_embedder(), progress=False)
    monkeypatch.setattr(Embedder, "load", classmethod(lambda cls, *_, **__: fake_embedder()))
    monkeypatch.setattr("filingqa.retrieval.search.pipeline.load_reranker", lambda choice: None)
    return tmp_path / "index"


def test_open_corpus_gives_full_and_plain_search_and_releases_the_index(
    built_index: Path,
) -> None:
    from filingqa.ask import DocumentSearch
    from filingqa.retrieval.search.pipeline import FilingSearch, SearchSettings

    assert index_built(built_index)
    with open_corpus("financebench:dev", built_index) as corpus:
        assert corpus.search.settings == SearchSettings()
        assert corpus.plain.settings == SearchSettings(
            filters=False, hierarchical=False, rerank=False
        )
        found = corpus.plain.search("Acme total revenue in fiscal 2023", k=3)
        assert len(found) == 3
        only = DocumentSearch(corpus.search, ["GLOBEX_2024Q2_10Q"]).search("revenue", k=3)
        assert only and {p.doc_id for p in only} == {"GLOBEX_2024Q2_10Q"}
    FilingSearch.open(built_index).close()  # released: it opens again


class _Covering:
    def search(self, query: str, *, k: int, company=None, period=None) -> list:
        return []

    def covers(self, company: str) -> bool:
        return company == "3M"


def test_recording_search_passes_coverage_through() -> None:
    assert RecordingSearch(_Covering()).covers("3M")
    assert not RecordingSearch(_Covering()).covers("Apple")
    assert RecordingSearch(FakeSearchWithoutCoverage()).covers("anyone")


class FakeSearchWithoutCoverage:
    def search(self, query: str, *, k: int, company=None, period=None) -> list:
        return []


def test_recording_search_passes_statement_records_through() -> None:
    inner = RecordSearch()
    found = RecordingSearch(inner).statement_records("Acme", ["operating_cash_flow"], ["FY2024"])
    assert [r.concept for r in found] == ["operating_cash_flow"]
    assert inner.lookups[0]["company"] == "Acme"
    none = RecordingSearch(FakeSearchWithoutCoverage())
    assert none.statement_records("Acme", ["operating_cash_flow"], ["FY2024"]) == []
