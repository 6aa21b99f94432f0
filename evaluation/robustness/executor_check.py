"""The executor check: the gold programs of FinQA (its DSL), TAT-QA (its derivations) and
ConvFinQA (its turns' programs), translated to Python and run in the sandbox, scored
against the gold by the strict judge (no LM) and by the official metrics; a disagreement
is assigned its likely cause."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from filingqa.datasets import finqa as finqa_module
from filingqa.datasets import load_dataset
from filingqa.datasets.convfinqa import turn_program_to_python
from filingqa.datasets.finqa import finqa_program_to_python
from filingqa.datasets.parsing import format_number
from filingqa.datasets.tatqa import tatqa_derivation_to_python
from filingqa.metrics.finqa_official import finqa_execution_match
from filingqa.metrics.judge import StrictJudge
from filingqa.metrics.tatqa_official import tatqa_score
from filingqa.records import QARecord
from filingqa.sandbox import run_python
from filingqa.sandbox.outcome import Answer

TATQA_DECIMALS = 2
TARGET = 0.98  # the share of gold programs the judge must agree with


@dataclass
class Check:
    """One gold program run and judged."""

    dataset: str
    id: str
    question: str
    program: str
    gold: str
    code: str | None = None
    got: Answer | None = None
    score: float = 0.0
    reason: str = ""
    official: bool = False
    cause: str | None = None
    missed_by: str = ""


def finqa_records(root: Path) -> list[QARecord]:
    """Every FinQA record of a split stored in the original format (with programs)."""
    records = []
    for split, paths in finqa_module.LOADER.splits(root).items():
        if not any(path.name.endswith(finqa_module.TATLLM_SUFFIX) for path in paths):
            records += load_dataset(f"finqa:{split}", root)
    return records


def tatqa_records(root: Path) -> list[QARecord]:
    """Every TAT-QA dev arithmetic question."""
    return [
        r for r in load_dataset("tatqa:dev", root) if r.meta["tatqa_answer_type"] == "arithmetic"
    ]


def as_prediction(value: object) -> str:
    """An executed value as answer text (bools as FinQA's yes/no)."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int | float):
        return format_number(float(value))
    return "" if value is None else str(value)


def execute(check: Check, translate: Callable[[], str]) -> bool:
    """Translate and run ``check``'s program; on failure set its cause and return False."""
    try:
        check.code = translate()
    except ValueError as error:
        check.cause = f"translation error: {error}"
        return False
    outcome = run_python(check.code)
    if not outcome.ok:
        check.cause = f"execution error: {outcome.error.kind if outcome.error else '?'}"
        return False
    check.got = outcome.value
    return True


def check_finqa(record: QARecord, judge: StrictJudge) -> Check:
    """Run and judge one FinQA original-format record against ``exe_ans``."""
    gold = as_prediction(record.answer_value)
    check = Check("finqa", record.id, record.question, record.gold_program or "", gold)
    table = record.context.tables[0].rows if record.context else []
    if execute(check, lambda: finqa_program_to_python(check.program, table)):
        prediction = as_prediction(check.got)
        verdict = judge.judge(
            record.question, gold, prediction, answer_type=record.answer_type, scale=""
        )
        check.score, check.reason = verdict.score, verdict.reason
        check.official = finqa_execution_match(record.meta["exe_ans"], prediction)
    return check


def check_tatqa(record: QARecord, judge: StrictJudge) -> Check:
    """Run and judge one TAT-QA arithmetic derivation against the stated answer and scale."""
    check = Check("tatqa", record.id, record.question, record.gold_program or "", record.answer)
    if execute(check, lambda: tatqa_derivation_to_python(check.program, record.scale)):
        prediction = as_prediction(check.got)
        verdict = judge.judge(
            record.question,
            record.answer,
            prediction,
            answer_type=record.answer_type,
            scale=record.scale,
            unit=record.unit,
        )
        check.score, check.reason = verdict.score, verdict.reason
        rounded = round(float(check.got), TATQA_DECIMALS)  # type: ignore[arg-type]
        assert record.answer_value is not None
        score = tatqa_score(
            record.answer_value, record.scale, rounded, record.scale, answer_type="arithmetic"
        )
        check.official = score.exact_match == 1.0
    return check


def check_convfinqa(record: QARecord, judge: StrictJudge) -> Check:
    """Run and judge one ConvFinQA turn's program against the turn's answer."""
    check = Check("convfinqa", record.id, record.question, record.gold_program or "", record.answer)
    if execute(check, lambda: turn_program_to_python(check.program)):
        prediction = as_prediction(check.got)
        verdict = judge.judge(
            record.question, record.answer, prediction, answer_type=record.answer_type, scale=""
        )
        check.score, check.reason = verdict.score, verdict.reason
        assert not isinstance(record.answer_value, list)
        check.official = finqa_execution_match(record.answer_value, prediction)
    return check


def assign_cause(check: Check) -> str | None:
    """Why the judge or the official metric disagrees with the gold (None if neither does).

    Failures to translate or run keep their own cause; otherwise the executed value is
    compared with the gold at the gold's stated precision after a sign flip, a ×100 /
    ÷100 (percent vs fraction) or a ×1000 / ÷1000 (scale) shift.
    """
    if check.cause or (check.score == 1.0 and check.official):
        return check.cause
    gold, got = _number(check.gold), _number(check.got)
    if gold is None or got is None:
        return "gold annotation inconsistency: yes/no differs from the program's comparison"
    decimals = _decimals(check.gold)

    def matches(factor: float) -> bool:
        shifted = got * factor
        return round(shifted, decimals) == round(gold, decimals) or math.isclose(shifted, gold)

    if matches(1):
        return "rounding: gold stated at a lower precision than the official metric compares"
    if matches(-1):
        return "gold annotation inconsistency: sign"
    if matches(100) or matches(0.01):
        return "percent-vs-fraction: gold stated as a fraction though its scale is percent"
    if matches(1000) or matches(0.001):
        return "scale: gold a thousandfold off"
    return "gold annotation inconsistency: the program does not give the stated answer"


def _number(value: object) -> float | None:
    if isinstance(value, bool) or value is None:
        return None
    try:
        return float(value)  # type: ignore[arg-type]
    except ValueError:
        return None


def _decimals(text: str) -> int:
    return len(text.partition(".")[2]) if "." in text else 0


def missed_by(check: Check) -> str:
    """Which scorer rejected the result: ``judge``, ``official``, ``both`` or ``""``."""
    judge_miss, official_miss = check.score != 1.0, not check.official
    return {(True, True): "both", (True, False): "judge", (False, True): "official"}.get(
        (judge_miss, official_miss), ""
    )


def summarise(checks: list[Check]) -> dict[str, float | int]:
    """Count, judge agreement and official-metric agreement of one dataset's checks."""
    count = len(checks)
    agree = sum(c.score == 1.0 for c in checks)
    official = sum(c.official for c in checks)
    return {
        "count": count,
        "agree": agree,
        "agreement": agree / count if count else 0.0,
        "official_agree": official,
        "official_accuracy": official / count if count else 0.0,
    }


def report(summaries: dict[str, dict[str, float | int]], misses: list[Check]) -> str:
    """The printed report: per-dataset figures, then every miss with its cause."""
    official_names = {"finqa": "official execution accuracy", "tatqa": "official exact match"}
    lines = []
    for name, s in summaries.items():
        status = "ok" if s["agreement"] >= TARGET else f"BELOW {TARGET:.0%}"
        lines.append(
            f"{name}: judge agreement {s['agree']}/{s['count']} = {s['agreement']:.2%} ({status}); "
            f"{official_names[name]} {s['official_agree']}/{s['count']} = "
            f"{s['official_accuracy']:.2%}"
        )
    lines.append(f"\nmisses (judge or official metric): {len(misses)}")
    for c in misses:
        lines.append(
            f"- [{c.dataset}] {c.id}\n    program: {c.program}\n    gold: {c.gold}   got: "
            f"{as_prediction(c.got)}   judge: {c.score:g}   official: {c.official}   "
            f"missed by: {c.missed_by}\n"
            f"    cause: {c.cause}"
        )
    return "\n".join(lines)
