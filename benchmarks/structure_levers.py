"""Which of the structure search's levers gain on a slice? Each change paired against the start.

The structure search (``optimizers/structure_search.py``) compares its candidates on a few
dev questions at first; this measures chosen candidates on many questions of a committed
*tuning* slice, to decide the search's space and rungs. Every structure answers every
question over its gold context, question by question (the evidence is read once per
question when the engine reuses the KV prefix), with one LM response cache for the run, as
in the compile's search: a structure's requests that equal the start's are answered from
it, so s/question is the time beyond the start's. Worked examples come from the pool the
compile derives (``--pool``), without the measured questions' contexts.

Rows go to ``<out>/<structure>.jsonl`` as they finish (a rerun resumes); prints, and writes
to ``<out>/results.json``, each structure's accuracy, LM calls, tokens and s/question, and
its wins, losses and one-sided sign-test p against the start.

    python benchmarks/structure_levers.py --out DIR [--slice tatqa-dev-tuning]
        [--where tatqa_answer_type=arithmetic] [--limit 60] [--lm local]
        [--structures "samples=5;examples_per_question=2;loop=never"]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import dspy

from filingqa.artifacts.worked_examples import POOL_FILE, read_pool
from filingqa.core.cache import use_fresh_dspy_cache
from filingqa.datasets import load_dataset
from filingqa.evaluation.command import select_records
from filingqa.evaluation.paired import compare, format_paired
from filingqa.evaluation.slices.committed import load_slice, select_slice
from filingqa.evaluation.summary import format_table, summarize
from filingqa.lm.backbone import get_lm
from filingqa.metrics.judge import StrictJudge
from filingqa.optimizers.compile_data import held_out_contexts
from filingqa.optimizers.structure_search import Structure, answer_by_question
from filingqa.optimizers.worked_example_pool import stored_pool
from filingqa.program.worked_examples import WorkedExamples
from filingqa.records import QARecord

DEFAULT_STRUCTURES = (
    "samples=5;examples_per_question=1;examples_per_question=2;loop=never;loop=always"
)


def parse_structure(text: str) -> Structure:
    """``samples=5,loop=never`` → the start with those options changed.

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
    return Structure.model_validate(changes)


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lm", default="local")
    parser.add_argument("--dataset", default="tatqa:dev")
    parser.add_argument("--slice", default="tatqa-dev-tuning")
    parser.add_argument("--where", default="tatqa_answer_type=arithmetic", help="key=value,...")
    parser.add_argument("--limit", type=int, default=60)
    parser.add_argument("--structures", default=DEFAULT_STRUCTURES, help="';'-separated changes")
    parser.add_argument("--pool", default="tatqa:dev", help="comma-separated pool sources")
    parser.add_argument("--data-dir", type=Path, default=None)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()

    where = dict(pair.split("=", 1) for pair in args.where.split(",") if pair)
    structures = [Structure(), *map(parse_structure, args.structures.split(";"))]
    records = tuning_questions(args.dataset, args.slice, where, args.limit, args.data_dir)
    args.out.mkdir(parents=True, exist_ok=True)
    examples = None
    if any(s.examples_per_question for s in structures):
        examples = worked_examples(args.pool.split(","), records, args.out, args.data_dir)
    contexts = len({d for r in records for d in r.documents})
    print(f"{len(records)} questions ({contexts} contexts) of {args.slice} where {where}")
    lm = get_lm(args.lm)
    use_fresh_dspy_cache()
    started = time.perf_counter()
    with dspy.context(lm=lm):
        programs = {s.key: s.build(examples) for s in structures}
        rows = answer_by_question(programs, records, judge=StrictJudge(lm=None), rows_dir=args.out)
    summaries = {name: summarize(answered) for name, answered in rows.items()}
    start = Structure().key
    paired = [compare(start, name, rows) for name in rows if name != start]
    print(format_table(summaries))
    print(format_paired(paired))
    report = {
        "slice": args.slice,
        "where": where,
        "question_ids": [r.id for r in records],
        "lm": args.lm,
        "wall_seconds": round(time.perf_counter() - started, 1),
        "summaries": {name: s.model_dump() for name, s in summaries.items()},
        "paired": [p.model_dump() for p in paired],
    }
    (args.out / "results.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
