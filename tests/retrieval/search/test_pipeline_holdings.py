"""What the search pipeline tells it holds: the index's companies and their filings."""

from __future__ import annotations

from pathlib import Path

from filingqa.checks.holdings import CompanyScope, NotIndexed, check_holdings
from filingqa.records.search_handle import holdings_of
from filingqa.retrieval.index.passage_index import PassageIndex
from filingqa.retrieval.ingest.metadata_store import MetadataStore
from filingqa.retrieval.search.pipeline import FilingSearch

from ..filings import fake_embedder


def test_the_index_tells_its_companies_filings_forms_and_periods(search: FilingSearch) -> None:
    holdings = holdings_of(search)
    assert holdings is not None and holdings is search.holdings()  # read once
    companies = {c.name: c for c in holdings.companies}
    assert set(companies) == {"Acme Corporation", "Globex Inc."}
    acme, globex = companies["Acme Corporation"], companies["Globex Inc."]
    assert (acme.aliases, globex.aliases) == (["ACME"], ["GBX", "GLOBEX"])  # ticker, name key
    assert [(d.doc_id, d.doc_type, d.fiscal_year) for d in acme.documents] == [
        ("ACME_2023_10K", "10k", 2023),
        ("ACME_2024_10K", "10k", 2024),
    ]
    [quarterly] = globex.documents
    assert (quarterly.doc_id, quarterly.doc_type) == ("GLOBEX_2024Q2_10Q", "10q")
    assert (quarterly.fiscal_year, quarterly.fiscal_quarter) == (2024, 2)
    assert (acme.year_end_month, acme.year_end_day, acme.naming) == (12, 31, "end_year")


def test_the_rule_reads_the_index_holdings(search: FilingSearch) -> None:
    holdings = search.holdings()
    assert holdings is not None
    ruling = check_holdings("What was GBX's revenue for the second quarter of 2024?", holdings)
    assert isinstance(ruling, CompanyScope) and ruling.company == "Globex Inc."
    assert isinstance(check_holdings("What was Initech's revenue in 2024?", holdings), NotIndexed)
    assert isinstance(check_holdings("What was Acme's revenue in 2019?", holdings), NotIndexed)


def test_a_filing_without_passages_is_not_held(built: Path, tmp_path: Path) -> None:
    store = MetadataStore.load(built)
    with PassageIndex.open(tmp_path / "empty", fake_embedder()) as index:
        holdings = FilingSearch(index, store, reranker=None).holdings()
    assert holdings is not None and holdings.companies == []


def test_without_metadata_the_index_cannot_tell(built: Path) -> None:
    search = FilingSearch.open(built, reranker=None, embedder=fake_embedder())
    try:
        assert FilingSearch(search.index, None, None).holdings() is None
    finally:
        search.close()
