"""Statement records stored with the index: written at build before the ledger, added in
place to an index built without them, looked up by concept and period through the search."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from filingqa.records.search_handle import looks_up_statements, statement_records_of
from filingqa.retrieval.index.build import LEDGER_FILE, build_index, format_report
from filingqa.retrieval.index.corpus import file_corpus
from filingqa.retrieval.index.statement_store import (
    RECIPE_FILE,
    STATEMENTS_DIR,
    StatementStore,
    record_periods,
)
from filingqa.retrieval.ingest.metadata_store import MetadataStore
from filingqa.retrieval.search.pipeline import FilingSearch

from ...kit.passages import ListSearch
from ..filings import FakeEncoder, fake_embedder, write_filings

DOCS = ["ACME_2023_10K", "ACME_2024_10K", "GLOBEX_2024Q2_10Q"]


@pytest.fixture
def filings(tmp_path: Path) -> Path:
    folder = tmp_path / "filings"
    write_filings(folder)
    return folder


def figures(store: StatementStore, doc_id: str) -> list[tuple[str | None, str, float, bool]]:
    return [(r.concept, r.period, r.value, r.comparative) for r in store.read(doc_id)]


def test_the_build_stores_each_filings_records_beside_the_metadata(
    filings: Path, tmp_path: Path
) -> None:
    location = tmp_path / "index"
    report = build_index(location, paths=[filings], embedder=fake_embedder(), progress=False)
    assert report.statements == 3
    assert "records   statement records of 3 filing(s) stored" in format_report(report)
    store = StatementStore(location)
    assert store.directory == location / STATEMENTS_DIR and store.doc_ids() == DOCS
    assert figures(store, "ACME_2024_10K") == [
        ("revenue", "FY2024", 1250.0, False),
        ("revenue", "FY2023", 900.0, True),
        ("net_income", "FY2024", 140.0, False),
        ("net_income", "FY2023", 80.0, True),
    ]
    [revenue, *_] = store.read("GLOBEX_2024Q2_10Q")
    assert (revenue.company, revenue.period, revenue.page) == ("Globex Inc.", "Q2 FY2024", 2)
    assert revenue.table_id == "GLOBEX_2024Q2_10Q:p2:table1"
    assert len(store.book()) == sum(len(store.read(d)) for d in DOCS)


def test_records_are_written_before_the_ledger_marks_a_filing_done(
    filings: Path, tmp_path: Path
) -> None:
    location = tmp_path / "index"
    killer = fake_embedder(FakeEncoder(fail_on_call=2))
    with pytest.raises(KeyboardInterrupt):
        build_index(location, paths=[filings], embedder=killer, progress=False, flush_passages=1)
    assert len((location / LEDGER_FILE).read_text().splitlines()) == 1
    assert StatementStore(location).doc_ids() == ["ACME_2023_10K"]
    resumed = build_index(location, paths=[filings], embedder=fake_embedder(), progress=False)
    assert (resumed.resumed, resumed.indexed, resumed.statements) == (1, 2, 2)
    assert StatementStore(location).doc_ids() == DOCS


def test_an_index_built_without_records_gets_them_in_place(filings: Path, tmp_path: Path) -> None:
    location = tmp_path / "index"
    build_index(location, paths=[filings], embedder=fake_embedder(), progress=False)
    before = {doc: figures(StatementStore(location), doc) for doc in DOCS}
    shutil.rmtree(location / STATEMENTS_DIR)  # as an older build left it
    (location / STATEMENTS_DIR).mkdir()
    StatementStore(location).write("ACME_2023_10K", [])  # one filing already has its own
    encoder = FakeEncoder()
    again = build_index(location, paths=[filings], embedder=fake_embedder(encoder), progress=False)
    assert (again.indexed, again.resumed, again.written, again.statements) == (0, 3, 0, 2)
    assert encoder.calls == 0  # nothing embedded
    store = StatementStore(location)
    assert store.doc_ids() == DOCS and store.read("ACME_2023_10K") == []
    assert {doc: figures(store, doc) for doc in DOCS[1:]} == {doc: before[doc] for doc in DOCS[1:]}
    third = build_index(location, paths=[filings], embedder=fake_embedder(), progress=False)
    assert third.statements == 0  # nothing left to add


def test_records_read_by_another_recipe_are_read_again_in_place(
    filings: Path, tmp_path: Path
) -> None:
    location = tmp_path / "index"
    build_index(location, paths=[filings], embedder=fake_embedder(), progress=False)
    store = StatementStore(location)
    assert store.current()
    before = {doc: figures(store, doc) for doc in DOCS}
    store.write("ACME_2024_10K", [])  # what an older recipe made of it
    (store.directory / RECIPE_FILE).write_text("1\n")
    assert not StatementStore(location).current()
    encoder = FakeEncoder()
    again = build_index(location, paths=[filings], embedder=fake_embedder(encoder), progress=False)
    assert (again.indexed, again.statements, encoder.calls) == (0, 3, 0)
    store = StatementStore(location)
    assert store.current() and {doc: figures(store, doc) for doc in DOCS} == before
    third = build_index(location, paths=[filings], embedder=fake_embedder(), progress=False)
    assert third.statements == 0


def test_records_of_ready_passages_or_a_memory_index_are_not_stored(filings: Path) -> None:
    [item] = [i for i in file_corpus([filings]).items if i.doc_id == "ACME_2024_10K"]
    assert [r.concept for r in item.statement_records(None)][:2] == ["revenue", "revenue"]
    report = build_index(":memory:", paths=[filings], embedder=fake_embedder(), progress=False)
    assert report.statements == 0 and report.indexed == 3


@pytest.fixture
def search(filings: Path, tmp_path: Path) -> FilingSearch:
    build_index(tmp_path / "index", paths=[filings], embedder=fake_embedder(), progress=False)
    return FilingSearch.open(tmp_path / "index", reranker=None, embedder=fake_embedder())


def test_the_search_looks_records_up_by_concept_and_period(search: FilingSearch) -> None:
    assert looks_up_statements(search) and search.statements is not None
    found = search.statement_records("ACME", ["revenue"], ["fiscal 2023"])
    assert [(r.doc_id, r.value, r.comparative) for r in found] == [
        ("ACME_2023_10K", 1000.0, False),  # the filing reporting the year first
        ("ACME_2024_10K", 900.0, True),  # then a later filing's comparative column
    ]
    earlier = search.statement_records("Acme Corporation", ["net_income"], ["FY2022"])
    assert [(r.doc_id, r.period, r.comparative) for r in earlier] == [
        ("ACME_2023_10K", "FY2022", True)  # held only as a comparative column
    ]
    quarter = search.statement_records("GBX", ["revenue", "net_income"], ["Q2 2024"])
    assert [(r.concept, r.value) for r in quarter] == [("revenue", 333.3), ("net_income", 45.5)]
    assert search.statement_records("Initech", ["revenue"], ["FY2024"]) == []
    search.close()


def test_a_periods_prior_year_is_looked_up_with_it(search: FilingSearch) -> None:
    found = statement_records_of(search, "ACME", ["net_income"], ["FY2024"], prior=True)
    assert found is not None
    assert [(r.period, r.doc_id, r.value) for r in found] == [
        ("FY2024", "ACME_2024_10K", 140.0),
        ("FY2023", "ACME_2023_10K", 100.0),
        ("FY2023", "ACME_2024_10K", 80.0),
    ]
    assert search.with_settings(rerank=False).statements is search.statements
    search.close()


def test_an_index_without_records_finds_none(filings: Path, tmp_path: Path) -> None:
    build_index(tmp_path / "index", paths=[filings], embedder=fake_embedder(), progress=False)
    shutil.rmtree(tmp_path / "index" / STATEMENTS_DIR)
    search = FilingSearch.open(tmp_path / "index", reranker=None, embedder=fake_embedder())
    assert search.statements is None
    assert search.statement_records("ACME", ["revenue"], ["FY2024"]) == []
    search.close()
    assert statement_records_of(ListSearch(), "Acme", ["revenue"], ["FY2024"]) is None


def test_period_labels_follow_the_companys_calendar(filings: Path) -> None:
    metadata = file_corpus([filings]).metadata
    assert isinstance(metadata, MetadataStore)
    assert record_periods(metadata, "Acme Corporation", ["FY2024"], prior=True) == [
        "FY2024",
        "FY2023",
    ]
    assert record_periods(None, "Acme", ["Q2 FY2024", "the first half of 2024"]) == [
        "Q2 FY2024",
        "H1 FY2024",
    ]
    assert record_periods(None, "Acme", ["nine months of 2024", "CY2023"]) == [
        "9M FY2024",
        "FY2023",
    ]
