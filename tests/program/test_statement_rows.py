"""Evidence from statement records: over a handle that looks them up, a question about a
company's figures for a named period reads them as labelled rows ahead of the passages and
cites the statement page; switched off, or over gold context, nothing sent changes."""

from __future__ import annotations

import dspy
import pytest

from filingqa.program.evidence_gatherer import row_concepts
from filingqa.program.final_answer import FinalAnswer
from filingqa.program.financial_qa import FinancialQA

from ..kit.lm import FakeEngine, Rule, marker_lm
from ..kit.passages import (
    CAPEX,
    CASH_FLOW,
    MDNA,
    OPERATING_CASH_FLOW,
    OTHER,
    ListSearch,
    RecordSearch,
    held,
    passage,
    statement_record,
)
from ..kit.replies import AMBIGUITY, DECIDE, FORM, NO_AMBIGUITY, QUOTE, WRITE, fenced

HELD = held("ACME_2024_10K", "BETA_2024_10K")
PLAIN = {"decompose": False, "query_writing": False, "curation": False}  # no LM in the search
QUESTION = "What was Acme's free cash flow in FY2024?"
FREE_CASH_FLOW: list[Rule] = [(AMBIGUITY, NO_AMBIGUITY), (WRITE, fenced("result = 812.4 - 412.6"))]
OCF_ROW = "Operating cash flow | FY2024 | 812.4 | USD millions | ACME_2024_10K p.54"
CAPEX_ROW = (
    "Capital expenditure: Purchases of property and equipment | FY2024 | (412.6) | "
    "USD millions | ACME_2024_10K p.54"
)


def run(
    rules: list[Rule], question: str, search: ListSearch | None = None, **inputs: object
) -> tuple[FinalAnswer, FakeEngine]:
    options = {**PLAIN, **inputs.pop("options", {})}  # type: ignore[dict-item]
    lm = marker_lm(rules)
    with dspy.context(lm=lm, adapter=dspy.JSONAdapter()):
        final = FinancialQA(**options)(question=question, search=search, **inputs).final  # type: ignore[arg-type]
    return final, lm.engine


def program_request(engine: FakeEngine) -> str:
    [prompt] = [p for p in engine.prompts if WRITE in p]
    return prompt


def test_the_reader_gets_the_labelled_rows_before_the_passages() -> None:
    search = RecordSearch([MDNA, CASH_FLOW, OTHER], holdings=HELD)
    no_written = {"statement_programs": False}  # the LM writes the program, reading the rows
    final, engine = run(FREE_CASH_FLOW, QUESTION, search, options=no_written)
    assert search.lookups == [
        {
            "company": "Acme",
            "concepts": ["operating_cash_flow", "capital_expenditure"],
            "periods": ["FY2024"],
            "prior": False,
        }
    ]
    prompt = program_request(engine)
    rows = (
        "Cash flow statement figures (in millions; item | period | value | unit | filing page):\n"
    )
    rows += f"{OCF_ROW}\n{CAPEX_ROW}"
    assert rows in prompt
    assert prompt.index(rows) < prompt.index(CASH_FLOW.text)
    assert final.evidence[0].id == "ACME_2024_10K:p54:table1.rows"
    assert final.value == pytest.approx(399.8)
    [step] = [s for s in final.trace.steps if s.name == "statement rows"]
    assert step.note == "2 row(s): ACME_2024_10K p.54"


def test_a_figure_taken_from_a_row_is_cited_at_the_statement_page() -> None:
    search = RecordSearch([MDNA], holdings=HELD)  # no retrieved passage holds the figures
    final, _ = run(FREE_CASH_FLOW, QUESTION, search)
    assert final.outcome == "answered" and final.value == pytest.approx(399.8)
    assert [(c.doc, c.page, c.passage_id, c.kind) for c in final.citations] == [
        ("ACME_2024_10K", 54, "ACME_2024_10K:p54:table1", "table")  # the statement table
    ]
    assert final.answer == "399.8 million"  # the rows state their scale


def test_the_questions_own_formula_is_looked_up_not_the_catalogues() -> None:
    question = (
        "What was Acme's FY2024 free cash flow? "
        "Define free cash flow as operating cash flow minus dividends paid."
    )
    assert row_concepts(question) == (["operating_cash_flow", "dividends_paid"], [])
    dividends = statement_record(
        "dividends_paid", "FY2024", "(120.0)", line_item="Dividends paid", page=54
    )
    search = RecordSearch([MDNA], holdings=HELD, records=[OPERATING_CASH_FLOW, dividends])
    rules: list[Rule] = [(AMBIGUITY, NO_AMBIGUITY), (WRITE, fenced("result = 812.4 - 120.0"))]
    final, engine = run(rules, question, search)
    assert final.value == pytest.approx(692.4)
    [lookup] = search.lookups
    assert lookup["concepts"] == ["operating_cash_flow", "dividends_paid"]
    assert "capital_expenditure" not in lookup["concepts"]
    assert "Dividends paid | FY2024 | (120.0) | USD millions" in program_request(engine)


def test_an_average_of_one_period_looks_the_prior_period_up_too() -> None:
    own = [
        statement_record("total_assets", "FY2024", "2,000.0", line_item="Total assets", page=52),
        statement_record(
            "total_assets",
            "FY2023",
            "1,800.0",
            line_item="Total assets",
            page=50,
            doc_id="ACME_2023_10K",
        ),
    ]
    comparative = statement_record(  # the FY2023 balance as the FY2024 10-K prints it
        "total_assets", "FY2023", "1,790.0", line_item="Total assets", page=52, comparative=True
    )
    search = RecordSearch(
        [MDNA],
        holdings=held("ACME_2023_10K", "ACME_2024_10K"),
        records=[comparative, *own],
    )
    rules: list[Rule] = [(AMBIGUITY, NO_AMBIGUITY), (WRITE, fenced("result = 1900.0"))]
    _, engine = run(rules, "What were Acme's average total assets in FY2024?", search)
    assert [lookup["prior"] for lookup in search.lookups] == [False, True]
    prompt = program_request(engine)
    current = "Total assets | FY2024 | 2,000.0 | USD millions | ACME_2024_10K p.52"
    prior = "Total assets | FY2023 | 1,800.0 | USD millions | ACME_2023_10K p.50"
    assert prompt.index(current) < prompt.index(prior)
    assert "1,790.0" not in prompt  # one row a period: the filing reporting it


@pytest.mark.parametrize(
    "question",
    [
        "What drove Acme's free cash flow?",  # no period
        "What did Acme say about demand in FY2024?",  # no figure
    ],
)
def test_a_question_naming_no_period_or_figure_looks_nothing_up(question: str) -> None:
    search = RecordSearch([MDNA, CASH_FLOW], holdings=HELD)
    final, _ = run(FREE_CASH_FLOW, question, search)
    assert search.lookups == []
    assert "statement rows" not in [s.name for s in final.trace.steps]


def test_switched_off_the_requests_are_what_a_handle_without_records_gets() -> None:
    without_records = ListSearch([MDNA, CASH_FLOW, OTHER], holdings=HELD)
    _, plain = run(FREE_CASH_FLOW, QUESTION, without_records)
    for options in ({"statement_rows": False}, {}):
        search = RecordSearch([MDNA, CASH_FLOW, OTHER], holdings=HELD)
        final, engine = run(FREE_CASH_FLOW, QUESTION, search, options=options)
        if options:
            assert engine.prompts == plain.prompts
            assert search.lookups == []
            assert "statement rows" not in [s.name for s in final.trace.steps]
        else:
            assert engine.prompts != plain.prompts


def test_gold_context_is_unchanged_by_records_and_the_switch() -> None:
    prompts = []
    for on in (True, False):
        search = RecordSearch(holdings=HELD)
        final, engine = run(
            FREE_CASH_FLOW,
            QUESTION,
            search,
            passages=[CASH_FLOW],
            options={"statement_rows": on},
        )
        assert search.lookups == [] and final.value == pytest.approx(399.8)
        prompts.append(engine.prompts)
    _, without = run(FREE_CASH_FLOW, QUESTION, passages=[CASH_FLOW])
    assert prompts[0] == prompts[1] == without.prompts


def test_a_figure_the_records_settle_is_computed_without_the_lm_writing_a_program() -> None:
    search = RecordSearch([MDNA], holdings=HELD)
    final, engine = run(FREE_CASH_FLOW, QUESTION, search)
    assert engine.count(WRITE) == 0
    assert final.value == pytest.approx(399.8)
    [step] = [s for s in final.trace.steps if s.name == "statement program"]
    assert "capital_expenditure = 412.6  # Purchases of property and equipment" in step.note
    assert "free_cash_flow = operating_cash_flow - capital_expenditure" in step.note
    _, asked = run(FREE_CASH_FLOW, QUESTION, search, options={"statement_programs": False})
    assert asked.count(WRITE) == 1  # switched off, the LM writes it


@pytest.mark.parametrize(("decision", "answer"), [("yes", "No. Computed:"), ("no", "No. It fell.")])
def test_a_direction_is_decided_by_the_records_comparison(decision: str, answer: str) -> None:
    earlier = [
        statement_record("operating_cash_flow", "FY2023", "900.0", line_item="Operating cash flow"),
        statement_record(
            "capital_expenditure", "FY2023", "(300.0)", line_item="Purchases of property"
        ),
    ]
    search = RecordSearch([MDNA], holdings=HELD, records=[OPERATING_CASH_FLOW, CAPEX, *earlier])
    decided = {"deciding": "399.8", "decision": decision, "reason": "It fell."}
    rules: list[Rule] = [(AMBIGUITY, NO_AMBIGUITY), (DECIDE, decided)]
    question = "Did Acme's free cash flow improve in FY2024?"
    final, engine = run(rules, question, search, options={"answer_forms": "decide"})
    assert [lookup["prior"] for lookup in search.lookups] == [False, True]
    assert engine.count(WRITE) == 0
    assert final.path == "decide" and final.value is False  # 399.8 against 600.0
    assert final.answer.startswith(answer)  # the LM's yes cannot contradict the computation


def test_a_stated_figure_the_records_hold_is_computed_not_quoted() -> None:
    table = passage(  # a row stating the figure: the form is decided looked-up, quote path
        "ACME_2024_10K:p54:table1", "(In millions)\n| | 2024 |\n| Capital expenditures | (412.6) |"
    )
    search = RecordSearch([table, MDNA], holdings=HELD)
    rules: list[Rule] = [
        (AMBIGUITY, NO_AMBIGUITY),
        (FORM, {"form": "looked_up"}),
        (QUOTE, {"quote": "(412.6)"}),
    ]
    question = "What were Acme's FY2024 capital expenditures, in USD billions?"
    final, engine = run(rules, question, search, options={"answer_forms": "decide"})
    [route] = [s.note for s in final.trace.steps if s.name == "route"]
    assert route.startswith("quote")
    assert final.path == "pot" and engine.count(QUOTE) == 0
    assert final.value == pytest.approx(0.4126)  # the row's millions, in the billions asked
