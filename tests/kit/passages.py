"""A tiny synthetic open corpus, questions about it, a search handle over a list and what
such a handle holds, and one that also looks statement records up."""

from __future__ import annotations

from filingqa.core.numbers import parse_number
from filingqa.records import Document, Passage
from filingqa.records.search_handle import HeldCompany, Holdings
from filingqa.records.statements import StatementBook, StatementRecord
from filingqa.retrieval.index.statement_store import record_periods
from filingqa.retrieval.ingest.metadata import parse_doc_name


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


def held(*doc_ids: str) -> Holdings:
    """Holdings of the filings ``doc_ids`` (``ACME_2024_10K``, ``ACME_2024Q2_10Q``): each
    company named by its key in title case (``Acme``) with the key as its alias, its fiscal
    years ending in December."""
    documents: dict[str, list[Document]] = {}
    for doc_id in doc_ids:
        name = parse_doc_name(doc_id)
        if name is None:
            raise ValueError(f"not a COMPANY_PERIOD_FORM name: {doc_id}")
        company = name.company_key.title()
        documents.setdefault(company, []).append(
            Document(
                doc_id=doc_id,
                company=company,
                doc_type=name.doc_type,
                fiscal_year=name.year,
                fiscal_quarter=name.quarter,
            )
        )
    return Holdings(
        companies=[
            HeldCompany(name=company, aliases=[company.upper()], documents=docs)
            for company, docs in documents.items()
        ]
    )


class ListSearch:
    """Passages sharing a word with the query, in list order; every call is recorded.
    ``broken``: every search fails as an unreachable index would. ``holdings``: what it
    tells it holds (None: it cannot tell, as a handle without the method)."""

    def __init__(
        self,
        passages: list[Passage] = CORPUS,
        broken: bool = False,
        holdings: Holdings | None = None,
    ) -> None:
        self.passages = passages
        self.broken = broken
        self.held = holdings
        self.calls: list[dict] = []

    def holdings(self) -> Holdings | None:
        """What the list holds, as given."""
        return self.held

    def search(
        self, query: str, *, k: int, company: str | None = None, period: str | None = None
    ) -> list[Passage]:
        self.calls.append({"query": query, "k": k, "company": company, "period": period})
        if self.broken:
            raise ConnectionError("the index server refused the connection")
        words = set(query.lower().split())
        return [p for p in self.passages if words & set(p.text.lower().split())][:k]


def statement_record(
    concept: str,
    period: str,
    printed: str,
    *,
    line_item: str,
    page: int = 4,
    doc_id: str = "ACME_2024_10K",
    comparative: bool = False,
) -> StatementRecord:
    """A cash-flow statement figure of Acme in USD millions, printed on ``page`` of
    ``doc_id`` in the page's first table."""
    fiscal_year = int(period.removeprefix("FY"))
    value = parse_number(printed)
    assert value is not None, printed
    return StatementRecord(
        company="Acme",
        statement="cash_flow",
        line_item=line_item,
        concept=concept,
        period=period,
        span="year",
        fiscal_year=fiscal_year,
        value=value.magnitude,
        printed=printed,
        scale="millions",
        doc_id=doc_id,
        page=page,
        table_id=f"{doc_id}:p{page}:table1",
        comparative=comparative,
    )


OPERATING_CASH_FLOW = statement_record(
    "operating_cash_flow", "FY2024", "812.4", line_item="Operating cash flow", page=54
)
CAPEX = statement_record(
    "capital_expenditure",
    "FY2024",
    "(412.6)",
    line_item="Purchases of property and equipment",
    page=54,
)


class RecordSearch(ListSearch):
    """A :class:`ListSearch` that also looks statement records up, as an index holding them
    does (periods read under a December calendar); every look-up is recorded."""

    def __init__(
        self,
        passages: list[Passage] = CORPUS,
        records: list[StatementRecord] | None = None,
        holdings: Holdings | None = None,
    ) -> None:
        super().__init__(passages, holdings=holdings)
        self.book = StatementBook(records if records is not None else [OPERATING_CASH_FLOW, CAPEX])
        self.lookups: list[dict] = []

    def statement_records(
        self, company: str, concepts: list[str], periods: list[str], *, prior: bool = False
    ) -> list[StatementRecord]:
        self.lookups.append(
            {"company": company, "concepts": concepts, "periods": periods, "prior": prior}
        )
        labels = record_periods(None, company, periods, prior)
        return [r for c in concepts for label in labels for r in self.book.find(company, c, label)]
