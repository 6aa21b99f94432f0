from filingqa.checks.citations import citation_of, cite, program_numbers, untraced_numbers
from filingqa.records import Passage


def passage(pid: str, text: str, page: int = 1, kind: str = "table") -> Passage:
    return Passage(id=pid, doc_id="D", page=page, kind=kind, text=text)


PASSAGES = [
    passage("t1", "| Net revenue | 4,186.3 | 3,902.7 |", page=3),
    passage("t2", "| Purchases of property | (412.6) | (355.0) |", page=4),
    passage("x1", "We expect capital expenditures of $380 million.", kind="text"),
]


def test_program_numbers_skip_arithmetic_constants_and_signs() -> None:
    program = "a = -412.6\nb = 355.0\nresult = (a - b) / b * 100 + 1 - 0"
    assert program_numbers(program) == {412.6, 355.0}


def test_cite_finds_the_passages_the_inputs_came_from() -> None:
    program = "capex_2024 = 412.6\ncapex_2023 = 355\nresult = capex_2024 / capex_2023"
    assert [c.passage_id for c in cite(program, PASSAGES)] == ["t2"]
    assert cite(program, PASSAGES)[0].page == 4


def test_numbers_with_thousands_separators_are_traced() -> None:
    assert [c.passage_id for c in cite("r = 4186.3\nresult = r", PASSAGES)] == ["t1"]


def test_untraced_numbers_are_reported() -> None:
    assert untraced_numbers("a = 412.6\nb = 999.9\nresult = a + b", PASSAGES) == {999.9}


def test_unparseable_program_cites_nothing() -> None:
    assert cite("result = (", PASSAGES) == []


def test_statement_rows_are_cited_as_the_table_they_were_read_from_once() -> None:
    table = Passage(id="D:p4:table1", doc_id="D", page=4, kind="table", text="OCF | 812.4")
    rows = Passage(
        id="D:p4:table1.rows",
        doc_id="D",
        page=4,
        kind="table",
        text="Operating cash flow | FY2024 | 812.4 | USD millions | D p.4",
        parent_id="D:p4:table1",
    )
    cited = cite("result = 812.4 - 412.6", [rows, table])
    assert [(c.passage_id, c.page, c.kind) for c in cited] == [("D:p4:table1", 4, "table")]
    assert citation_of(table) == cited[0]
