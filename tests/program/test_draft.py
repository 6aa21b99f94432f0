"""A draft's support, the feedback a revision is given, and its computed numbers."""

from __future__ import annotations

from filingqa.checks.answer_checks import CheckReport
from filingqa.program.draft import Draft
from filingqa.program.verification import Verdict

from ..kit.passages import CASH_FLOW

CLEAN = CheckReport(problems=[], untraced=[])


def verdict(kind: str, reasons: list[str], missing: str = "") -> Verdict:
    return Verdict(verdict=kind, reasons=reasons, missing=missing, checks=CLEAN)


def draft(answer: str = "399.8", **fields: object) -> Draft:
    return Draft(path="pot", answer=answer, passages=[CASH_FLOW], **fields)


def test_support_ranks_accepted_over_clean_over_flagged_over_empty() -> None:
    accepted = draft(verdict=verdict("ACCEPT", []))
    flagged = draft(problems=["numbers not found in the evidence: 999.9"])
    supports = [d.support() for d in (accepted, draft(), flagged, draft(answer=""))]
    assert supports == [3, 2, 1, 0]
    assert accepted.accepted and not draft(verdict=verdict("REJECT", ["wrong year"])).accepted


def test_feedback_is_the_reasons_else_what_is_missing() -> None:
    assert draft(verdict=verdict("REJECT", ["wrong year", "no capex"])).feedback() == (
        "wrong year; no capex"
    )
    assert draft(verdict=verdict("REJECT", [], missing="2023 capex")).feedback() == "2023 capex"
    assert draft().feedback() == ""


def test_a_revision_repeats_only_the_same_program_over_the_same_evidence() -> None:
    first = draft(program="result = 812.4 - 412.6")
    assert draft(program="result = 812.4 - 412.6").repeats(first)
    assert not draft(program="result = 812.4 - 355.0").repeats(first)
    assert not Draft(path="pot", answer="399.8", program=first.program, passages=[]).repeats(first)


def test_computed_numbers_include_a_dicts_numbers_but_not_flags() -> None:
    assert draft(value={"2024": 399.8, "2023": 346, "grew": True}).computed() == [399.8, 346.0]
    assert draft(value="n/a").computed() == []


def test_computed_numbers_include_derived_figures_but_not_written_ones() -> None:
    program = (
        "assets = 7453\nliabilities = 5175.0\nworking = assets - liabilities\nresult = working > 0"
    )
    derived = draft(value=True, program=program, figures=[7453.0, 5175.0, 2278.0])
    assert derived.computed() == [2278.0]
