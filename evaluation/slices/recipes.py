"""The recipes of the committed evaluation slices (``evaluation/slices/*.json``): one tuning
and one report slice per dataset split, dealt by :mod:`~filingqa.evaluation.slices.making`.

- ``tatqa:dev``: by context (a table with its paragraphs), stratified by TAT-QA answer type;
  the contexts of the first-100 arithmetic benchmark are tuning contexts; each slice holds
  at least 100 arithmetic, 50 span, 50 multi-span and 10 count questions; the other
  contexts are in neither slice (a reserve).
- ``financebench:dev``: by company; the report slice holds at least half of the questions,
  the tuning slice every other company; counted by question type.
- ``finqa:dev_sample200``: by context (a filing page); the report slice holds at least half
  of the questions, the tuning slice the rest; counted by gold-program steps (1, 2, 3+).
"""

from __future__ import annotations

from pathlib import Path

from filingqa.datasets import load_dataset
from filingqa.datasets.question_types import question_type
from filingqa.evaluation.slices.making import ALL_QUESTIONS, SliceRecipe
from filingqa.records import QARecord

BENCHMARK_SPEC = "tatqa:dev"
BENCHMARK_SIZE = 100
MADE_WITH = "benchmarks/make_slices.py"
SEED = 0
TATQA_QUOTAS = {"arithmetic": 100, "span": 50, "multi-span": 50, "count": 10}
HALF_OF_FINANCEBENCH_DEV = {ALL_QUESTIONS: 50}
HALF_OF_FINQA_DEV_SAMPLE = {ALL_QUESTIONS: 100}


def first_document(record: QARecord) -> str:
    """The record's context: its (only) document."""
    return record.documents[0]


def program_steps(record: QARecord) -> str:
    """``1 step``, ``2 steps`` or ``3+ steps``: the length of the FinQA gold program."""
    steps = question_type(record)
    return steps if steps in ("1 step", "2 steps") else "3+ steps"


def recipes(data_dir: Path | None) -> list[SliceRecipe]:
    """The recipes of the committed slices."""
    return [
        SliceRecipe(
            made_with=MADE_WITH,
            dataset=BENCHMARK_SPEC,
            group_by="context (a TAT-QA table with its paragraphs)",
            group_of=first_document,
            stratum_by="TAT-QA answer type",
            stratum_of=lambda r: r.meta["tatqa_answer_type"],
            seed=SEED,
            report_quotas=TATQA_QUOTAS,
            tuning_quotas=TATQA_QUOTAS,
            tuning_first=benchmark_contexts(data_dir),
            tuning_first_why=f"contexts of the first {BENCHMARK_SIZE} arithmetic questions "
            "(the benchmark)",
        ),
        SliceRecipe(
            made_with=MADE_WITH,
            dataset="financebench:dev",
            group_by="company",
            group_of=lambda r: r.meta["company"],
            stratum_by="FinanceBench question type",
            stratum_of=lambda r: r.meta["question_type"],
            seed=SEED,
            report_quotas=HALF_OF_FINANCEBENCH_DEV,
        ),
        SliceRecipe(
            made_with=MADE_WITH,
            dataset="finqa:dev_sample200",
            group_by="context (a FinQA filing page)",
            group_of=first_document,
            stratum_by="gold-program steps",
            stratum_of=program_steps,
            seed=SEED,
            report_quotas=HALF_OF_FINQA_DEV_SAMPLE,
        ),
    ]


def benchmark_contexts(data_dir: Path | None = None) -> frozenset[str]:
    """The documents (TAT-QA table ids) of the first 100 arithmetic ``tatqa:dev`` questions."""
    records = load_dataset(BENCHMARK_SPEC, data_dir=data_dir)
    arithmetic = [r for r in records if r.meta.get("tatqa_answer_type") == "arithmetic"]
    return frozenset(d for r in arithmetic[:BENCHMARK_SIZE] for d in r.documents)
