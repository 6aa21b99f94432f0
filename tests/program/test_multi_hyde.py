import json

import dspy
import pytest

from filingqa.program.multi_hyde import MultiHydeRetriever
from filingqa.records import Passage

from ..kit.passages import passage


def p(n: int) -> Passage:
    return passage(f"D:p{n}:tex1", f"passage {n}")


class FixedSearch:
    def __init__(self, results: dict[str, list[int]]) -> None:
        self.results = results
        self.queries: list[str] = []

    def search(self, query, *, k, company=None, period=None):
        self.queries.append(query)
        return [p(n) for n in self.results.get(query.split("\n")[0], [])][:k]


REWRITE = {"company": "3M", "period": "FY2018", "variants": ["purchases of PP&E", "capex"]}
HYDE = {
    "hypotheses": [
        {"query": "cash flow statement", "passage": "Purchases of property (1,577)"},
        {"query": "MD&A capital spending", "passage": "Capital spending was $1.6 billion."},
    ]
}


def retrieve(scripted_lm, search, hypotheses: int, question: str = "capex"):
    replies = [json.dumps(REWRITE)] + ([json.dumps(HYDE)] if hypotheses else [])
    lm = scripted_lm(replies)
    with dspy.context(lm=lm, adapter=dspy.JSONAdapter()):
        return MultiHydeRetriever(hypotheses=hypotheses, k=3)(question, search)


def test_each_query_searches_separately_and_results_are_fused(scripted_lm) -> None:
    search = FixedSearch(
        {
            "What was 3M's capex?": [1, 2],
            "purchases of PP&E": [2, 3],
            "capex": [2],
            "cash flow statement": [3, 2],
            "MD&A capital spending": [4],
        }
    )
    found = retrieve(scripted_lm, search, 2, "What was 3M's capex?")
    assert len(search.queries) == 5
    assert [x.page for x in found.passages] == [2, 3, 1]  # in 4 lists, then 2, then 1 (top 3)
    assert (found.company, found.period) == ("3M", "FY2018")
    assert found.queries[-1] == "MD&A capital spending\nCapital spending was $1.6 billion."


def test_zero_hypotheses_is_the_ablation_without_hyde(scripted_lm) -> None:
    search = FixedSearch({"capex": [1]})
    found = retrieve(scripted_lm, search, 0)
    assert search.queries == ["capex", "purchases of PP&E"]  # the duplicate variant is dropped
    assert [x.page for x in found.passages] == [1]


def test_invalid_settings_are_rejected() -> None:
    with pytest.raises(ValueError):
        MultiHydeRetriever(hypotheses=-1)
