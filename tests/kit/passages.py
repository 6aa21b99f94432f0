"""A tiny synthetic open corpus, questions about it, and a search handle over a list."""

from __future__ import annotations

from filingqa.records import Passage


def passage(pid: str, text: str) -> Passage:
    """A passage whose document, page and kind its id states: ``DOC:p4:tab1`` is a table on
    page 4 of DOC, any other third part (``tex1``) a text passage."""
    doc_id, page, part = pid.split(":")
    kind = "table" if part.startswith("tab") else "text"
    return Passage(id=pid, doc_id=doc_id, page=int(page.removeprefix("p")), kind=kind, text=text)


CASH_FLOW = passage(
    "ACME_2024_10K:p4:tab1",
    "(In millions)\n| | 2024 | 2023 |\n| Operating cash flow | 812.4 | 701.9 |\n"
    "| Purchases of property and equipment | (412.6) | (355.0) |",
)
MDNA = passage(
    "ACME_2024_10K:p2:tex1", "Acme revenue grew on demand for analyzers; services were flat."
)
OTHER = passage(
    "BETA_2024_10K:p9:tab1", "(In millions)\n| | 2024 |\n| Beta operating cash flow | 95.0 |"
)
PENSIONS = passage(
    "ACME_2019_AR:p9:tab1",
    "| | 2019 | 2018 |\n|---|---|---|\n| Defined contribution schemes | 166 | 178 |\n"
    "| Defined benefit schemes | 57 | 44 |",
)
CORPUS = [MDNA, CASH_FLOW, OTHER]
QUESTION = "What was Acme's free cash flow in 2024?"
FCF = "What was free cash flow in 2024?"


class ListSearch:
    """Passages sharing a word with the query, in list order; every call is recorded.
    ``broken``: every search fails as an unreachable index would."""

    def __init__(self, passages: list[Passage] = CORPUS, broken: bool = False) -> None:
        self.passages = passages
        self.broken = broken
        self.calls: list[dict] = []

    def search(
        self, query: str, *, k: int, company: str | None = None, period: str | None = None
    ) -> list[Passage]:
        self.calls.append({"query": query, "k": k, "company": company, "period": period})
        if self.broken:
            raise ConnectionError("the index server refused the connection")
        words = set(query.lower().split())
        return [p for p in self.passages if words & set(p.text.lower().split())][:k]
