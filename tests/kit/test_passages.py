"""The kit's passage factory and list search handle."""

from __future__ import annotations

import pytest

from filingqa.records import Passage

from .passages import CASH_FLOW, OTHER, ListSearch, passage


@pytest.mark.parametrize(
    ("pid", "doc_id", "page", "kind"),
    [("ACME_2024_10K:p4:tab1", "ACME_2024_10K", 4, "table"), ("D:p12:tex3", "D", 12, "text")],
)
def test_a_passage_takes_its_document_page_and_kind_from_its_id(pid, doc_id, page, kind) -> None:
    expected = Passage(id=pid, doc_id=doc_id, page=page, kind=kind, text="text")
    assert passage(pid, "text") == expected


def test_list_search_returns_passages_sharing_a_word_and_records_the_call() -> None:
    search = ListSearch()
    assert search.search("beta", k=3, company="Beta") == [OTHER]
    assert search.search("operating cash flow", k=1) == [CASH_FLOW]
    assert search.calls[0] == {"query": "beta", "k": 3, "company": "Beta", "period": None}


def test_a_broken_list_search_raises_a_connection_error() -> None:
    with pytest.raises(ConnectionError):
        ListSearch(broken=True).search("cash", k=1)
