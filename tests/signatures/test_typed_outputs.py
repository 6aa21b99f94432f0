"""Each step's signature parses typed outputs from a JSON reply (as the local LM gives)."""

import json

import dspy
import pytest
from dspy.adapters.json_adapter import _get_structured_outputs_response_format
from pydantic import ValidationError

from filingqa.signatures.ambiguity import (
    AggregateInterpretations,
    AmbiguityReport,
    DetectAmbiguity,
    Interpretation,
)
from filingqa.signatures.cot import AnswerFromEvidence
from filingqa.signatures.curate import CurateEvidence
from filingqa.signatures.decompose import Decompose, SubQuestion
from filingqa.signatures.hyde import (
    HypotheticalPassage,
    WriteHypotheticalPassages,
    write_hypothetical_passages,
)
from filingqa.signatures.review import ReviewRefusal
from filingqa.signatures.rewrite import RewriteQuery
from filingqa.signatures.verify import RefineQuestions, VerifyAnswer

from ..kit.replies import ambiguity_report


def run(scripted_lm, signature, reply: dict, **inputs) -> dspy.Prediction:
    lm = scripted_lm([json.dumps(reply)])
    with dspy.context(lm=lm, adapter=dspy.JSONAdapter()):
        return dspy.Predict(signature)(**inputs)


def test_decompose_gives_ordered_typed_steps(scripted_lm) -> None:
    reply = {
        "steps": [
            {"question": "AMD quick assets FY2022?", "kind": "retrieval"},
            {"question": "AMD current liabilities FY2022?", "kind": "retrieval"},
            {"question": "Quick ratio FY2022", "kind": "computation", "formula": "ratio"},
        ]
    }
    steps = run(scripted_lm, Decompose, reply, question="Did AMD's quick ratio improve?").steps
    assert [s.kind for s in steps] == ["retrieval", "retrieval", "computation"]
    assert steps[0].formula == "lookup"
    assert steps[2] == SubQuestion(
        question="Quick ratio FY2022", kind="computation", formula="ratio"
    )


def test_unknown_formula_family_is_rejected() -> None:
    with pytest.raises(ValidationError):
        SubQuestion(question="Average margin", kind="computation", formula="mean")


def test_rewrite_gives_variants_company_and_period(scripted_lm) -> None:
    reply = {
        "company": "3M",
        "period": "FY2018",
        "variants": ["purchases of property, plant and equipment 2018"],
    }
    out = run(scripted_lm, RewriteQuery, reply, question="What was 3M's FY2018 capex?")
    assert (out.company, out.period) == ("3M", "FY2018")
    assert out.variants == ["purchases of property, plant and equipment 2018"]


def test_hyde_gives_query_passage_pairs(scripted_lm) -> None:
    reply = {
        "hypotheses": [
            {"query": "capex cash flow statement", "passage": "Purchases of PP&E (1,577)"},
            {"query": "MD&A capital spending", "passage": "Capital spending was $1.6 billion."},
        ]
    }
    out = run(scripted_lm, WriteHypotheticalPassages, reply, question="3M capex?", count=2)
    assert all(isinstance(h, HypotheticalPassage) for h in out.hypotheses)
    assert len(out.hypotheses) == 2


def test_hyde_bounded_to_its_count_closes_the_list_under_the_grammar() -> None:
    signature = write_hypothetical_passages(2)
    schema = _get_structured_outputs_response_format(signature).model_json_schema()
    field = schema["properties"]["hypotheses"]
    listed = schema["$defs"][field["$ref"].rsplit("/", 1)[1]]
    assert (listed["type"], listed["minItems"], listed["maxItems"]) == ("array", 1, 2)
    assert signature.instructions == WriteHypotheticalPassages.instructions


def test_hyde_bounded_still_reads_a_longer_list_from_an_api_backbone(scripted_lm) -> None:
    pair = {"query": "capex cash flow statement", "passage": "Purchases of PP&E (1,577)"}
    out = run(scripted_lm, write_hypothetical_passages(1), {"hypotheses": [pair, pair]})
    assert len(out.hypotheses) == 2
    assert out.hypotheses[:1] == [HypotheticalPassage(**pair)]
    assert [h.query for h in out.hypotheses] == [pair["query"]] * 2


def test_curate_gives_ids_answerability_and_a_complementary_query(scripted_lm) -> None:
    reply = {
        "keep": [2, 5],
        "answerable": False,
        "missing": "current liabilities for 2022",
        "complementary_query": "AMD total current liabilities December 2022",
    }
    inputs = {"evidence": "...", "question": "Quick ratio?", "passage_list": "1. page 3, table"}
    out = run(scripted_lm, CurateEvidence, reply, **inputs)
    assert out.keep == [2, 5]
    assert out.answerable is False
    assert out.complementary_query.startswith("AMD total current liabilities")


def test_ambiguity_report_with_readings_parses(scripted_lm) -> None:
    reply = ambiguity_report(
        "qualifier",
        "'did best' has no measure",
        {
            "by revenue growth": "Which category grew revenue most?",
            "by revenue": "Which category had the most revenue?",
        },
    )
    report = run(scripted_lm, DetectAmbiguity, reply, question="Which category did best?").report
    assert report.kind == "qualifier"
    assert [i.axis for i in report.interpretations] == ["by revenue growth", "by revenue"]


def test_ambiguity_validator_rejects_a_single_interpretation() -> None:
    one = [Interpretation(axis="by revenue", question="Which category had most revenue?")]
    with pytest.raises(ValidationError, match="at least two interpretations"):
        AmbiguityReport(kind="terminology", interpretations=one)


def test_ambiguity_parse_fails_on_a_single_interpretation(scripted_lm) -> None:
    reply = {
        "report": {
            "kind": "terminology",
            "interpretations": [{"axis": "total", "question": "Total working capital?"}],
        }
    }
    with pytest.raises(Exception, match="at least two interpretations"):
        run(scripted_lm, DetectAmbiguity, reply, question="Working capital?")


def test_unambiguous_report_drops_stray_readings() -> None:
    stray = [Interpretation(axis="by revenue", question="Which segment had most revenue?")]
    assert AmbiguityReport(kind="none", interpretations=stray).interpretations == []


def test_aggregate_cot_verify_refine_and_review_parse(scripted_lm) -> None:
    assert (
        run(
            scripted_lm,
            AggregateInterpretations,
            {"answer": "By revenue: Computing; By growth: Appliances."},
            question="Best category?",
            readings=["by revenue: Computing", "by growth: Appliances"],
        ).answer
        == "By revenue: Computing; By growth: Appliances."
    )
    cot = run(
        scripted_lm,
        AnswerFromEvidence,
        {"reasoning": "The MD&A says so.", "answer": "Yes"},
        question="Q?",
        evidence="E",
    )
    assert cot.answer == "Yes"
    verdict = run(
        scripted_lm,
        VerifyAnswer,
        {"reasons": ["2021 figure used"], "missing": "", "verdict": "REJECT"},
        question="Q?",
        evidence="E",
        answer="5",
        working="result = 5",
        checks="all inputs found in the evidence",
    )
    assert (verdict.verdict, verdict.reasons) == ("REJECT", ["2021 figure used"])
    refine = run(
        scripted_lm,
        RefineQuestions,
        {"queries": ["AMD inventories 2022"]},
        question="Q?",
        missing="inventories",
        tried=["AMD quick ratio"],
    )
    assert refine.queries == ["AMD inventories 2022"]
    review = run(
        scripted_lm,
        ReviewRefusal,
        {"decision": "answer", "answer": "Yes, per the MD&A."},
        question="Q?",
        evidence="E",
        draft="Cannot determine.",
    )
    assert review.decision == "answer"


def test_verdict_outside_the_enum_fails_to_parse(scripted_lm) -> None:
    with pytest.raises(Exception):  # noqa: B017 - DSPy raises its AdapterParseError
        run(
            scripted_lm,
            VerifyAnswer,
            {"reasons": [], "missing": "", "verdict": "MAYBE"},
            question="Q?",
            evidence="E",
            answer="5",
            working="",
            checks="",
        )
