"""Which of the structure search's levers gain on a slice? Each change paired against the start.

The structure search (``optimizers/structure_search.py``) compares its candidates on a few
dev questions at first; this measures chosen candidates on many questions of a committed
*tuning* slice, to decide the search's space and rungs. Every structure answers every
question, over its gold context or (``--context retrieved``) searching the dataset's index,
question by question (the evidence is read once per question when the engine reuses the KV
prefix), with one LM response cache for the run, as in the compile's search: a structure's
requests that equal the start's are answered from it. So each structure's costs are shown
twice: as measured (the time beyond the start's) and priced cold (a step answered from the
cache priced at the start's same step on the same question). Worked examples come from the
pool the compile derives (``--pool``), without the measured questions' contexts.

Rows go to ``<out>/<structure>.jsonl`` as they finish (a rerun resumes); prints, and writes
to ``<out>/results.json``, each structure's accuracy, LM calls, tokens, s/question, prompt
tokens evaluated, tokens generated and gold page retrieved (over an index), measured and
priced cold, where the seconds went per step, and its wins, losses and one-sided sign-test
p against the start.

    python benchmarks/structure_levers.py --out DIR [--slice tatqa-dev-tuning]
        [--where tatqa_answer_type=arithmetic] [--limit 60] [--lm local]
        [--structures "samples=5;examples_per_question=2;loop=never"]
    python benchmarks/structure_levers.py --out DIR --dataset financebench:dev \
        --slice financebench-dev-tuning --where "" --context retrieved --judge-lm local \
        --structures "curation=false;query_writing=false;hypotheses=1;decompose=false"
        [--start "k=5,hypotheses=1"]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import time
from pathlib import Path

import dspy

from filingqa.artifacts.worked_examples import POOL_FILE, read_pool
from filingqa.core.cache import use_fresh_dspy_cache
from filingqa.datasets import load_dataset
from filingqa.evaluation.command import select_records
from filingqa.evaluation.modes import Mode, gold_program, searching_program
from filingqa.evaluation.open_corpus import open_corpus
from filingqa.evaluation.paired import compare, format_paired
from filingqa.evaluation.runner import Row
from filingqa.evaluation.slices.committed import load_slice, select_slice
from filingqa.evaluation.summary import format_step_costs, format_table, summarize
from filingqa.lm.backbone import get_lm
from filingqa.metrics.judge import StrictJudge
from filingqa.optimizers.compile_data import held_out_contexts
from filingqa.optimizers.cost_selection import priced_rows
from filingqa.optimizers.structure_search import (
    ModeOf,
    Structure,
    answer_by_question,
)
from filingqa.optimizers.worked_example_pool import stored_pool
from filingqa.program.financial_qa import FinancialQA
from filingqa.program.worked_examples import WorkedExamples
from filingqa.records import QARecord

DEFAULT_STRUCTURES = (
    "samples=5;examples_per_question=1;examples_per_question=2;loop=never;loop=always"
)


def parse_structure(text: str, base: Structure | None = None) -> Structure:
    """``samples=5,loop=never`` → ``base`` (default: the uncompiled program's structure) with
    those options changed.

    Raises:
        ValueError: not ``name=value`` pairs of :class:`Structure`'s options.
    """
    changes = {}
    for pair in filter(None, (p.strip() for p in text.split(","))):
        name, sep, value = pair.partition("=")
        if not sep or name not in Structure.model_fields:
            options = ", ".join(Structure.model_fields)
            raise ValueError(f"{pair!r} is not option=value; options: {options}")
        changes[name] = value
    return Structure.model_validate((base or Structure()).model_dump() | changes)


def tuning_questions(
    dataset: str, slice_name: str, where: dict[str, str], limit: int, data_dir: Path | None
) -> list[QARecord]:
    """The slice's questions matching ``where``, in dataset order, without the contexts no
    draw may use (report slices, the benchmark), the first ``limit``."""
    records = select_slice(
        load_dataset(dataset, data_dir=data_dir), load_slice(slice_name, dataset=dataset)
    )
    held_out = held_out_contexts(dataset, data_dir)
    records = [r for r in select_records(records, where) if not set(r.documents) & held_out]
    if not records:
        raise ValueError(f"no question of {slice_name} matches {where}")
    return records[:limit]


def worked_examples(
    sources: list[str], measured: list[QARecord], out: Path, data_dir: Path | None
) -> WorkedExamples | None:
    """The compile's pool of ``sources`` without the measured questions' contexts (derived
    once into ``<out>/worked_examples.json``); None when no program reproduces its gold."""
    used = {d for r in measured for d in r.documents}
    stored = stored_pool(out / POOL_FILE, sources, exclude_documents=used, data_dir=data_dir)
    print(f"{len(stored.programs)} worked examples in the pool")
    return read_pool(stored, data_dir) if stored.programs else None


def priced_cold(rows: dict[str, list[Row]], start: str) -> dict[str, list[Row]]:
    """Each structure's rows with their costs priced cold against the start's rows."""
    return {
        name: [
            row.model_copy(update=cost.model_dump())
            for row, cost in zip(answered, priced_rows(answered, rows[start]), strict=True)
        ]
        for name, answered in rows.items()
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lm", default="local")
    parser.add_argument("--dataset", default="tatqa:dev")
    parser.add_argument("--slice", default="tatqa-dev-tuning")
    parser.add_argument("--where", default="tatqa_answer_type=arithmetic", help="key=value,...")
    parser.add_argument("--limit", type=int, default=60)
    parser.add_argument("--structures", default=DEFAULT_STRUCTURES, help="';'-separated changes")
    parser.add_argument(
        "--start",
        default="",
        help="the structure each change is made to and paired against, as option=value pairs "
        "(default: the uncompiled program's), e.g. a compiled artifact's open-corpus structure",
    )
    parser.add_argument("--pool", default="tatqa:dev", help="comma-separated pool sources")
    parser.add_argument("--context", choices=("gold", "retrieved"), default="gold")
    parser.add_argument("--index", type=Path, default=None, help="default: the dataset's")
    parser.add_argument("--judge-lm", default=None, help="LM judge for non-numeric golds")
    parser.add_argument("--data-dir", type=Path, default=None)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()

    where = dict(pair.split("=", 1) for pair in args.where.split(",") if pair)
    first = parse_structure(args.start)
    structures = [first, *(parse_structure(t, first) for t in args.structures.split(";"))]
    records = tuning_questions(args.dataset, args.slice, where, args.limit, args.data_dir)
    args.out.mkdir(parents=True, exist_ok=True)
    examples = None
    if any(s.examples_per_question for s in structures):
        examples = worked_examples(args.pool.split(","), records, args.out, args.data_dir)
    contexts = len({d for r in records for d in r.documents})
    print(f"{len(records)} questions ({contexts} contexts) of {args.slice} where {where}")
    lm = get_lm(args.lm)
    judge = StrictJudge(lm=get_lm(args.judge_lm) if args.judge_lm else None)
    use_fresh_dspy_cache()
    started = time.perf_counter()
    with dspy.context(lm=lm), contextlib.ExitStack() as stack:
        mode_of: ModeOf = gold_program
        if args.context == "retrieved":
            corpus = stack.enter_context(open_corpus(args.dataset, args.index))

            def mode_of(program: FinancialQA) -> Mode:
                return searching_program(corpus, program)

        programs = {s.key: s.build(examples) for s in structures}
        rows = answer_by_question(
            programs, records, judge=judge, rows_dir=args.out, mode_of=mode_of
        )
    start = first.key
    measured = {name: summarize(answered) for name, answered in rows.items()}
    cold = {name: summarize(answered) for name, answered in priced_cold(rows, start).items()}
    paired = [compare(start, name, rows) for name in rows if name != start]
    print("measured (a structure's requests equal to the start's came from the cache):")
    print(format_table(measured))
    print("priced cold (cached steps at the start's cost on the same question):")
    print(format_table(cold))
    print(format_step_costs(cold))
    print(format_paired(paired))
    report = {
        "dataset": args.dataset,
        "slice": args.slice,
        "where": where,
        "context": args.context,
        "start": start,
        "question_ids": [r.id for r in records],
        "lm": args.lm,
        "judge_lm": args.judge_lm,
        "wall_seconds": round(time.perf_counter() - started, 1),
        "summaries": {name: s.model_dump() for name, s in measured.items()},
        "priced_cold": {name: s.model_dump() for name, s in cold.items()},
        "paired": [p.model_dump() for p in paired],
    }
    (args.out / "results.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
