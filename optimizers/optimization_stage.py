"""The optimization stage of ``filingqa compile``: the structure search
(:func:`search_structure`) or a DSPy prompt optimizer of the registry
(:func:`optimize_prompts`). Either writes the compiled program (``optimized.json``) and its
log (``optimizer.json``); a rerun loads them instead of optimizing again. An interrupted
prompt optimizer reruns, its LM calls answered from DSPy's on-disk cache; an interrupted
search resumes from its candidates' rows (``search/``).
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import dspy
from dspy.utils.usage_tracker import UsageTracker

from filingqa.artifacts.worked_examples import POOL_FILE, read_pool
from filingqa.evaluation.runner import read_rows
from filingqa.metrics.dspy_metric import JudgeMetric
from filingqa.optimizers import compile_data
from filingqa.optimizers.compile_records import Optimization, OptimizerLog
from filingqa.optimizers.compile_stages import EVAL_DIR, CompileRun, student
from filingqa.optimizers.optimizer_registry import OptimizerInputs, prompt_optimizer
from filingqa.optimizers.structure_search import Structure, StructureSearch
from filingqa.optimizers.worked_example_pool import stored_pool
from filingqa.program.financial_qa import FinancialQA
from filingqa.program.worked_examples import WorkedExamples

OPTIMIZED_FILE = "optimized.json"
OPTIMIZER_FILE = "optimizer.json"
SEARCH_DIR = "search"


def _finished(out: Path) -> OptimizerLog | None:
    """The log of an optimization an earlier run finished in ``out``, else None."""
    program, log = out / OPTIMIZED_FILE, out / OPTIMIZER_FILE
    return OptimizerLog.read(log) if program.exists() and log.exists() else None


def _keep(out: Path, program: FinancialQA, log: OptimizerLog) -> None:
    program.save(str(out / OPTIMIZED_FILE))
    log.write(out / OPTIMIZER_FILE)


def optimize_prompts(run: CompileRun) -> Optimization:
    """The settings' DSPy optimizer's FinancialQA (its PoT module compiled, or all of it),
    metric the strict judge; the teacher (else the backbone) bootstraps and proposes.

    Raises:
        RuntimeError: the optimizer was cancelled (ctrl-C inside DSPy's evaluation).
    """
    s, out, qa = run.settings, run.out, FinancialQA()
    done = _finished(out)
    if done is not None:
        qa.load(str(out / OPTIMIZED_FILE))
        return Optimization(program=qa, log=done)
    optimizer = prompt_optimizer(s.optimizer)
    inputs = OptimizerInputs(
        trainset=[compile_data.to_example(r, s.target) for r in run.plan.train],
        devset=[compile_data.to_example(r, s.target) for r in run.plan.dev],
        metric=JudgeMetric(run.judge_lm),
        lm=run.lm,
        teacher_lm=run.teacher_lm,
    )
    tracker = UsageTracker()
    started = time.perf_counter()
    with dspy.context(usage_tracker=tracker):
        try:
            compiled = optimizer.compile(s, student(s.target), inputs)
        except Exception as problem:
            if "cancelled" not in str(problem):
                raise
            raise RuntimeError(
                f"optimizer stopped ({problem}); rerun the same command to resume "
                "(LM calls made so far are cached)"
            ) from problem
    if s.target == "pot":
        qa.pot.load_state(compiled.dump_state())
    else:
        qa.load_state(compiled.dump_state())
    log = OptimizerLog(
        candidates=optimizer.candidate_scores(compiled),
        lm_calls=sum(len(entries) for entries in tracker.usage_data.values()),
        seconds=round(time.perf_counter() - started, 1),
    )
    _keep(out, qa, log)
    return Optimization(program=qa, log=log)


def search_structure(run: CompileRun) -> Optimization:
    """The structure search's pick over the dev draw, with the worked examples of the
    settings' pool (:func:`worked_examples`); the start structure's rows are the dev score
    before's."""
    out = run.out
    pool = worked_examples(run)
    _seed_search(out)
    done = _finished(out)
    if done is not None and done.structure is not None:
        qa = done.structure.build(pool)
        qa.load(str(out / OPTIMIZED_FILE))
        qa.structure = done.structure
        return Optimization(program=qa, log=done, worked_examples=pool)
    search = StructureSearch(
        judge=run.judge,
        rows_dir=out / SEARCH_DIR,
        first_rung=run.settings.first_rung,
        eta=run.settings.eta,
        worked_examples=pool,
        progress=run.progress,
        say=run.say,
    )
    qa = search.compile(FinancialQA(), valset=run.plan.dev)
    start = _start_rows(out)  # the dev score before, counted there
    paths = [path for path in (out / SEARCH_DIR).glob("*.jsonl") if path != start]
    rows = [row for path in paths for row in read_rows(path)]
    log = OptimizerLog(
        candidates=[x.accuracy for x in search.scored],
        structures=list(search.scored),
        costs=search.verdicts,
        structure=qa.structure,
        rows=str(search.rows_of(qa.structure).relative_to(out)),
        lm_calls=sum(r.lm_calls - r.cached_calls for r in rows),
        seconds=round(sum(r.seconds for r in rows), 1),  # every run's, when resumed
    )
    run.say(f"    picked {qa.structure.key}")
    _keep(out, qa, log)
    return Optimization(program=qa, log=log, worked_examples=pool)


def worked_examples(run: CompileRun) -> WorkedExamples | None:
    """The worked examples of the settings' pool sources, without the dev, confirmation and
    calibration questions' contexts (derived once into ``worked_examples.json``); None
    without sources or when no program reproduces its gold."""
    sources = run.settings.pool
    if not sources:
        return None
    path = run.out / POOL_FILE
    if not path.exists():
        run.say(f"    worked examples: the gold programs of {', '.join(sources)}")
    asked = [*run.plan.dev, *run.plan.confirm, *run.plan.calibration]
    used = {d for r in asked for d in r.documents}
    stored = stored_pool(
        path,
        sources,
        exclude_documents=used,
        data_dir=run.data_dir,
        progress=run.progress,
    )
    run.say(f"    {len(stored.programs)} worked examples reproduce their gold")
    return read_pool(stored, run.data_dir, run.embedder) if stored.programs else None


def _seed_search(out: Path) -> None:
    """The start structure is the uncompiled program: its search rows are the dev score
    before."""
    start = _start_rows(out)
    if not start.exists():
        start.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(out / EVAL_DIR / "before.jsonl", start)


def _start_rows(out: Path) -> Path:
    """The search rows of the start structure (the uncompiled program)."""
    return out / SEARCH_DIR / f"{Structure().key}.jsonl"
