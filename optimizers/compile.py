"""``filingqa compile``: compile the program for one backbone into ``artifacts/<name>/``.

Stages, each checkpointed in the out dir so a rerun (after ctrl-C or a crash) resumes:

1. dev score before: the uncompiled program over the dev draw (``eval/before.jsonl``);
2. optimization: the structure search (:mod:`~filingqa.optimizers.structure_search`; its
   worked examples in ``worked_examples.json``, each candidate's rows in ``search/``,
   the start's copied from the dev score before), or prompt optimization with a DSPy
   optimizer of the registry (:mod:`~filingqa.optimizers.optimizer_registry`), metric =
   the strict judge (``optimized.json`` + ``optimizer.json``; an interrupted optimizer
   reruns, its LM calls answered from DSPy's on-disk cache);
3. dev score after (``eval/after.jsonl``; the search's rows of its pick), and the choice of
   the program the artifact keeps (``program.json``): the compiled one only if it beats the
   uncompiled one on dev, paired (:mod:`~filingqa.optimizers.selection`);
4. the router: calibration questions run single-pass and full-loop with the kept
   structure (``router/*.jsonl``), then LightGBM on the question features
   (``router/model.txt``); ``load`` routes with it only when it beats the structure's own
   loop policy on those questions;
5. the reranker (``reranker/``, :func:`~filingqa.optimizers.train_reranker.train_reranker`,
   the path that trains the shipped one: it builds the indexes of its training splits under
   ``FILINGQA_HOME/indexes`` when missing, else reuses them);
6. ``manifest.json``.

The settings a run started with are kept in ``compile.json``; rerunning the same out dir
with other settings is refused.
"""

from __future__ import annotations

import json
import platform
import shutil
import time
from collections.abc import Callable
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

import dspy
from dspy.utils.usage_tracker import UsageTracker
from pydantic import BaseModel, ConfigDict

from filingqa.artifacts.manifest import (
    PROGRAM_FILE,
    RERANKER_DIR,
    ROUTER_DIR,
    DataSplit,
    Manifest,
    ModelFile,
    Scores,
    redact_url,
    write_manifest,
)
from filingqa.artifacts.worked_examples import POOL_FILE, read_pool
from filingqa.datasets.registry import split_hashes
from filingqa.evaluation.modes import Mode
from filingqa.evaluation.runner import Row, read_rows, run_mode
from filingqa.lm.backbone import adapter_for, is_embedded, is_local
from filingqa.metrics.dspy_metric import JudgeMetric
from filingqa.metrics.judge import StrictJudge
from filingqa.optimizers import compile_data
from filingqa.optimizers.budget import BudgetEstimate, call_seconds, estimate, re_estimate
from filingqa.optimizers.compile_data import SplitSpec
from filingqa.optimizers.compiled_modes import pot_mode, program_mode
from filingqa.optimizers.optimizer_registry import optimize, prompt_optimizer
from filingqa.optimizers.presets import OptimizerSettings, Target
from filingqa.optimizers.router_labels import label_questions
from filingqa.optimizers.selection import select_program
from filingqa.optimizers.structure_search import (
    LOCAL_SPACE,
    Structure,
    StructureSearch,
    candidates,
    rung_sizes,
)
from filingqa.optimizers.train_reranker import expected_cost, read_report, train_reranker
from filingqa.optimizers.worked_example_pool import stored_pool
from filingqa.program.financial_qa import FinancialQA
from filingqa.program.pot import ProgramOfThought
from filingqa.program.worked_examples import WorkedExamples
from filingqa.records import QARecord
from filingqa.retrieval.index.embedder import Embedder
from filingqa.retrieval.search.rerank import TRAINING_FILE
from filingqa.router.rule import LoopPolicy, loop_router, route_by_rule
from filingqa.router.training import RouterLabel, RouterReport, score_policy, train_router

SETTINGS_FILE = "compile.json"
OPTIMIZED_FILE = "optimized.json"
OPTIMIZER_FILE = "optimizer.json"
SEARCH_DIR = "search"
MIN_CALIBRATION = 5


class CompileRequest(BaseModel):
    """What to compile, for which backbone, into which folder."""

    model_config = ConfigDict(extra="forbid")

    name: str
    out_dir: Path
    lm: str
    api_base: str | None = None
    teacher_lm: str | None = None
    judge_lm: str | None = None
    settings: OptimizerSettings
    calibration: list[str] | None = None
    skip_retriever: bool = False

    def public(self) -> dict[str, Any]:
        """The request as JSON, the API base without credentials."""
        data = self.model_dump(mode="json")
        data["api_base"] = redact_url(self.api_base)
        return data


class CompilePlan(BaseModel):
    """A request with its drawn questions and the cost estimate."""

    model_config = ConfigDict(extra="forbid")

    request: CompileRequest
    train: list[QARecord]
    dev: list[QARecord]
    calibration: list[QARecord]
    estimate: BudgetEstimate


def plan_compile(request: CompileRequest, data_dir: Path | None = None) -> CompilePlan:
    """Draw train, dev (no context shared with train) and calibration (default: dev, or
    its first ``calibration_questions``) questions, and estimate the cost.

    Raises:
        ValueError: a split spec is malformed or leaves no question.
    """
    s = request.settings
    train = compile_data.draw(
        [SplitSpec.parse(t) for t in s.train], target=s.target, seed=s.seed, data_dir=data_dir
    )
    used = {d for r in train for d in r.documents}
    dev = compile_data.draw(
        [SplitSpec.parse(t) for t in s.dev],
        target=s.target,
        exclude_documents=used,
        seed=s.seed,
        data_dir=data_dir,
    )
    calibration = (
        compile_data.draw(
            [SplitSpec.parse(t) for t in request.calibration],
            target=s.target,
            exclude_documents=used,
            seed=s.seed,
            data_dir=data_dir,
        )
        if request.calibration
        else dev[: s.calibration_questions or None]
    )
    if len(calibration) < MIN_CALIBRATION:
        raise ValueError(f"the router needs at least {MIN_CALIBRATION} calibration questions")
    cost = estimate(
        s,
        train=len(train),
        dev=len(dev),
        calibration=len(calibration),
        local=is_embedded(request.lm),
        reranker=None if request.skip_retriever else expected_cost(),
        calibration_is_dev=not request.calibration,
        calibration_looped=sum(route_by_rule(r.question).full_loop for r in calibration),
    )
    return CompilePlan(
        request=request, train=train, dev=dev, calibration=calibration, estimate=cost
    )


def describe_plan(plan: CompilePlan, *, with_estimate: bool = True) -> str:
    """The plan for a terminal: sizes, optimizer, and (``with_estimate``) the budget
    estimate."""
    s = plan.request.settings
    if s.optimizer == "structure":
        rungs = rung_sizes(len(plan.dev), s.first_rung or len(plan.dev), s.eta)
        count = len(candidates(Structure(), LOCAL_SPACE, worked_examples=bool(s.pool)))
        method = (
            f"  {count} structures (+ the best changes combined), successive halving over "
            f"{' → '.join(map(str, rungs))} dev questions (the best 1/{s.eta} go on); worked "
            f"examples from {', '.join(s.pool) or 'none'}"
        )
    else:
        method = f"  demos ≤ {s.max_demos}, candidates {s.candidates}, threads {s.threads}"
    lines = [
        f"compile {plan.request.name}: {s.optimizer} ({s.budget}) on the {s.target} "
        f"module, backbone {plan.request.lm}",
        f"  train {len(plan.train)} ({', '.join(s.train) or 'none'}), dev {len(plan.dev)} "
        f"({', '.join(s.dev)}), calibration {len(plan.calibration)}",
        f"{method}; the compiled program is kept only if it beats the uncompiled one on "
        f"dev (paired sign test p ≤ {s.max_p_value:g})",
    ]
    if with_estimate:
        lines += ["budget estimate:", plan.estimate.describe()]
    return "\n".join(lines)


def measure_speed(
    plan: CompilePlan,
    *,
    lm: dspy.BaseLM,
    judge_lm: dspy.BaseLM | None = None,
    progress: bool = True,
) -> CompilePlan:
    """``plan`` with its estimate at ``lm``'s speed, timed on the first dev question's
    uncompiled answer (stage 1's first row: written to its rows file, so it is not asked
    again). Unchanged when that answer came from the cache.

    Raises:
        ValueError: the out dir holds a compile started with other settings.
    """
    _claim(plan.request.out_dir, plan.request)
    with dspy.context(lm=lm, adapter=adapter_for(lm)):
        rows = _score_before(plan, plan.dev[:1], StrictJudge(lm=judge_lm), progress)
    speed = call_seconds(rows)
    if speed is None:
        return plan
    seconds, basis = speed
    update = {"seconds_per_call": round(seconds, 2), "speed_basis": basis}
    return plan.model_copy(update={"estimate": plan.estimate.model_copy(update=update)})


def run_compile(
    plan: CompilePlan,
    *,
    lm: dspy.BaseLM,
    teacher_lm: dspy.BaseLM | None = None,
    judge_lm: dspy.BaseLM | None = None,
    data_dir: Path | None = None,
    embedder: Embedder | None = None,
    progress: bool = True,
    say: Callable[[str], None] = print,
) -> Manifest:
    """Run (or resume) every stage of ``plan`` and write the artifact; return its manifest.
    ``embedder`` finds the worked examples nearest a question (default: the offline MiniLM).

    Raises:
        ValueError: the out dir holds a compile started with other settings.
        RuntimeError: the optimizer was cancelled (ctrl-C inside DSPy's evaluation).
    """
    request, s = plan.request, plan.request.settings
    out = request.out_dir
    _claim(out, request)
    judge = StrictJudge(lm=judge_lm)
    with dspy.context(lm=lm, adapter=adapter_for(lm)):
        say("1/6 dev score before compiling")
        before = _score_before(plan, plan.dev, judge, progress)
        say(f"    {_accuracy(before)}{re_estimate(before, plan.estimate)}")
        say(f"2/6 optimizing with {s.optimizer}")
        if s.optimizer == "structure":
            pool = _pool(plan, data_dir, embedder, progress, say)
            _seed_search(out)
            compiled, optimizer_log = _searched(plan, judge, pool, progress, say)
        else:
            pool = None
            compiled, optimizer_log = _optimized(plan, lm, teacher_lm, judge_lm)
        say("3/6 dev score after compiling")
        after_path = out / "eval" / "after"
        searched = "rows" in optimizer_log  # the search's pick answered dev already
        if searched and not after_path.with_suffix(".jsonl").exists():
            shutil.copyfile(out / optimizer_log["rows"], after_path.with_suffix(".jsonl"))
        after_mode = _mode(compiled.pot if s.target == "pot" else compiled, s.target)
        after = _evaluate(plan.dev, after_mode, judge, after_path, progress)
        after_runs = [] if searched else after  # copied rows cost nothing again
        selection = select_program(before, after, s.max_p_value)
        kept = selection.kept == "compiled"
        qa = compiled if kept else FinancialQA()
        structure: Structure = getattr(qa, "structure", Structure())
        examples = pool if structure.examples_per_question else None
        qa.save(str(out / PROGRAM_FILE))
        say(f"    {_accuracy(after)}; {selection.describe()}")
        say("4/6 router labels (single pass vs full loop)")
        labels = label_questions(
            plan.calibration,
            qa.dump_state(),
            judge=judge,
            out_dir=out / ROUTER_DIR,
            options=structure.program_options(),
            worked_examples=examples,
            progress=progress,
        )
        router = train_router(labels, out / ROUTER_DIR)
    use_router = routes_better(labels, router, structure.loop)
    say(
        f"    router: CV accuracy {router.cv_accuracy:.1%} "
        f"(majority {router.majority_accuracy:.1%}), "
        f"call savings {router.call_savings:.1%} vs always full loop, accuracy "
        f"{router.routed.accuracy:.1%} vs {router.always_full.accuracy:.1%} "
        f"(threshold {router.threshold:.3g}); load() "
        + ("routes with it" if use_router else f"keeps the structure's loop ({structure.loop})")
    )
    reranker = None if request.skip_retriever else _reranker(out, data_dir, progress, say)
    router_rows = read_rows(out / ROUTER_DIR / "single.jsonl")
    router_rows += read_rows(out / ROUTER_DIR / "full.jsonl")
    manifest = Manifest(
        name=request.name,
        created=datetime.now(UTC).isoformat(timespec="seconds"),
        backbone=request.lm,
        lm_model=str(getattr(lm, "model", type(lm).__name__)),
        api_base=redact_url(request.api_base),
        model_file=_model_file(request.lm),
        teacher_lm=request.teacher_lm,
        versions=_versions(),
        optimizer=s.model_dump(mode="json"),
        program_options=structure.program_options(),
        loop=structure.loop,
        use_router=use_router,
        worked_examples=POOL_FILE if examples is not None else None,
        structures=optimizer_log.get("structures", []),
        data=_data_splits(plan, data_dir),
        before=_scores(before),
        after=_scores(after),
        candidates=optimizer_log["candidates"],
        selection=selection,
        router=router.model_dump() | {"dir": ROUTER_DIR},
        reranker=reranker,
        estimate=plan.estimate.model_dump() | {"minutes": round(plan.estimate.minutes, 1)},
        lm_calls={
            "dev before": sum(r.lm_calls for r in before),
            "optimizer": optimizer_log["lm_calls"],
            "dev after": sum(r.lm_calls for r in after_runs),
            "router labels": sum(r.lm_calls for r in router_rows),
        },
        wall_seconds=round(
            sum(r.seconds for r in [*before, *after_runs, *router_rows])
            + optimizer_log["seconds"]
            + (reranker or {}).get("seconds", 0.0),
            1,
        ),
    )
    write_manifest(manifest, out)
    say(f"6/6 wrote {out / 'manifest.json'}")
    say(_outcome(manifest, structure))
    return manifest


def _outcome(manifest: Manifest, structure: Structure) -> str:
    """The compile's last line: the program kept, its dev score, and the compile's time
    against the estimate."""
    compiled = manifest.selection is not None and manifest.selection.kept == "compiled"
    kept = manifest.after if compiled else manifest.before
    shape = f"structure {structure.key}, loop {manifest.loop}"
    return (
        f"kept the {'compiled' if compiled else 'uncompiled'} program ({shape}"
        f"{', routed' if manifest.use_router else ''}): dev accuracy {kept.accuracy:.1%} "
        f"(uncompiled {manifest.before.accuracy:.1%}) on {kept.questions} questions; "
        f"{manifest.wall_seconds / 60:.0f} min of work, estimated "
        f"{manifest.estimate['minutes']:.0f} min"
    )


def _claim(out: Path, request: CompileRequest) -> None:
    """Record the settings in ``out``, or check a resumed run has the same ones."""
    out.mkdir(parents=True, exist_ok=True)
    path = out / SETTINGS_FILE
    mine = request.public()
    if path.exists():
        theirs = json.loads(path.read_text(encoding="utf-8"))
        if theirs != mine:
            changed = sorted(k for k in mine.keys() | theirs.keys() if mine.get(k) != theirs.get(k))
            raise ValueError(
                f"{out} holds a compile with other settings ({', '.join(changed)} differ); "
                "use another --out, or delete the folder to start over"
            )
    else:
        path.write_text(json.dumps(mine, indent=2) + "\n", encoding="utf-8")


def _student(target: Target) -> dspy.Module:
    return ProgramOfThought() if target == "pot" else FinancialQA()


def _mode(module: dspy.Module, target: Target) -> Mode:
    return pot_mode(module) if target == "pot" else program_mode(module)


def _evaluate(
    records: list[QARecord], mode: Mode, judge: StrictJudge, rows: Path, progress: bool
) -> list[Row]:
    return run_mode(
        records, mode, judge=judge, rows_path=rows.with_suffix(".jsonl"), progress=progress
    )


def _score_before(
    plan: CompilePlan, records: list[QARecord], judge: StrictJudge, progress: bool
) -> list[Row]:
    """The uncompiled module's answers to ``records``, in stage 1's rows file."""
    target = plan.request.settings.target
    rows = plan.request.out_dir / "eval" / "before"
    return _evaluate(records, _mode(_student(target), target), judge, rows, progress)


def _accuracy(rows: list[Row]) -> str:
    return f"dev accuracy {sum(r.score for r in rows) / len(rows):.1%} on {len(rows)} questions"


def _scores(rows: list[Row]) -> Scores:
    n = len(rows)
    return Scores(
        questions=n,
        accuracy=round(sum(r.score for r in rows) / n, 4),
        lm_calls=round(sum(r.lm_calls for r in rows) / n, 2),
        seconds=round(sum(r.seconds for r in rows) / n, 2),
    )


def _optimized(
    plan: CompilePlan,
    lm: dspy.BaseLM,
    teacher_lm: dspy.BaseLM | None,
    judge_lm: dspy.BaseLM | None,
) -> tuple[FinancialQA, dict[str, Any]]:
    """The optimizer's FinancialQA (its PoT module compiled, or all of it) and its log;
    loaded from the out dir when an earlier run finished this stage."""
    out, target = plan.request.out_dir, plan.request.settings.target
    qa = FinancialQA()
    program_path, log_path = out / OPTIMIZED_FILE, out / OPTIMIZER_FILE
    if program_path.exists() and log_path.exists():
        qa.load(str(program_path))
        return qa, json.loads(log_path.read_text(encoding="utf-8"))
    trainset = [compile_data.to_example(r, target) for r in plan.train]
    devset = [compile_data.to_example(r, target) for r in plan.dev]
    tracker = UsageTracker()
    started = time.perf_counter()
    with dspy.context(usage_tracker=tracker):
        try:
            compiled = optimize(
                plan.request.settings,
                _student(target),
                trainset,
                devset,
                metric=JudgeMetric(judge_lm),
                lm=lm,
                teacher_lm=teacher_lm,
            )
        except Exception as problem:
            if "cancelled" not in str(problem):
                raise
            raise RuntimeError(
                f"optimizer stopped ({problem}); rerun the same command to resume "
                "(LM calls made so far are cached)"
            ) from problem
    candidates = prompt_optimizer(plan.request.settings.optimizer).candidate_scores(compiled)
    if target == "pot":
        qa.pot.load_state(compiled.dump_state())
    else:
        qa.load_state(compiled.dump_state())
    log = {
        "candidates": candidates,
        "lm_calls": sum(len(entries) for entries in tracker.usage_data.values()),
        "seconds": round(time.perf_counter() - started, 1),
    }
    qa.save(str(program_path))
    log_path.write_text(json.dumps(log, indent=2) + "\n", encoding="utf-8")
    return qa, log


def _pool(
    plan: CompilePlan,
    data_dir: Path | None,
    embedder: Embedder | None,
    progress: bool,
    say: Callable[[str], None],
) -> WorkedExamples | None:
    """The worked examples of the settings' pool sources, without the dev and calibration
    questions' contexts (derived once into ``worked_examples.json``); None without sources
    or when no program reproduces its gold."""
    sources = plan.request.settings.pool
    if not sources:
        return None
    path = plan.request.out_dir / POOL_FILE
    if not path.exists():
        say(f"    worked examples: the gold programs of {', '.join(sources)}")
    used = {d for r in [*plan.dev, *plan.calibration] for d in r.documents}
    stored = stored_pool(
        path,
        sources,
        exclude_documents=used,
        data_dir=data_dir,
        progress=progress,
    )
    say(f"    {len(stored.programs)} worked examples reproduce their gold")
    return read_pool(stored, data_dir, embedder) if stored.programs else None


def _seed_search(out: Path) -> None:
    """The start structure is the uncompiled program: its search rows are the dev score
    before."""
    start = _start_rows(out)
    if not start.exists():
        start.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(out / "eval" / "before.jsonl", start)


def _start_rows(out: Path) -> Path:
    """The search rows of the start structure (the uncompiled program)."""
    return out / SEARCH_DIR / f"{Structure().key}.jsonl"


def _searched(
    plan: CompilePlan,
    judge: StrictJudge,
    pool: WorkedExamples | None,
    progress: bool,
    say: Callable[[str], None],
) -> tuple[FinancialQA, dict[str, Any]]:
    """The structure search's pick and its log; loaded from the out dir when an earlier
    run finished this stage."""
    out, s = plan.request.out_dir, plan.request.settings
    program_path, log_path = out / OPTIMIZED_FILE, out / OPTIMIZER_FILE
    if program_path.exists() and log_path.exists():
        log = json.loads(log_path.read_text(encoding="utf-8"))
        structure = Structure.model_validate(log["structure"])
        qa = structure.build(pool)
        qa.load(str(program_path))
        qa.structure = structure
        return qa, log
    search = StructureSearch(
        judge=judge,
        rows_dir=out / SEARCH_DIR,
        first_rung=s.first_rung,
        eta=s.eta,
        worked_examples=pool,
        progress=progress,
        say=say,
    )
    qa = search.compile(FinancialQA(), valset=plan.dev)
    start = _start_rows(out)  # the dev score before, counted there
    paths = [path for path in (out / SEARCH_DIR).glob("*.jsonl") if path != start]
    rows = [row for path in paths for row in read_rows(path)]
    log = {
        "candidates": [x.accuracy for x in search.scored],
        "structures": [x.model_dump(mode="json") for x in search.scored],
        "structure": qa.structure.model_dump(mode="json"),
        "rows": str(search.rows_of(qa.structure).relative_to(out)),
        "lm_calls": sum(r.lm_calls - r.cached_calls for r in rows),
        "seconds": round(sum(r.seconds for r in rows), 1),  # every run's, when resumed
    }
    say(f"    picked {qa.structure.key}")
    qa.save(str(program_path))
    log_path.write_text(json.dumps(log, indent=2) + "\n", encoding="utf-8")
    return qa, log


def routes_better(labels: list[RouterLabel], report: RouterReport, loop: LoopPolicy) -> bool:
    """Whether the trained router beats ``loop`` on the calibration questions: higher
    accuracy, or the same with fewer LM calls."""
    full = [loop_router(loop)(x.question).full_loop for x in labels]
    own = score_policy(labels, full)
    routed = report.routed
    return (routed.accuracy, -routed.lm_calls) > (own.accuracy, -own.lm_calls)


def _reranker(
    out: Path, data_dir: Path | None, progress: bool, say: Callable[[str], None]
) -> dict[str, Any]:
    """Train the reranker into ``out/reranker`` unless an earlier run did."""
    directory = out / RERANKER_DIR
    if not (directory / TRAINING_FILE).exists():
        say("5/6 training the reranker (indexing its training splits unless built)")
        train_reranker(out_dir=directory, data_dir=data_dir, progress=progress)
    report = read_report(directory)
    return {
        "dir": RERANKER_DIR,
        "train_specs": report.train_specs,
        "cross_validation": report.cross_validation.model_dump(),
        "seconds": report.seconds,
    }


def _model_file(spec: str) -> ModelFile | None:
    """The GGUF file of a local backbone: the pinned hash, or a ``local:<path>`` hashed."""
    if not is_local(spec):
        return None
    from filingqa.models.registry import DEFAULT_LLM

    if spec == "local":
        return ModelFile(name=DEFAULT_LLM.file.name, sha256=DEFAULT_LLM.file.sha256)
    from filingqa.models.verify import sha256_of

    path = Path(spec.removeprefix("local:")).expanduser()
    return ModelFile(name=path.name, sha256=sha256_of(path, progress=True))


def _versions() -> dict[str, str]:
    versions = {"python": platform.python_version()}
    for package in ("filingqa", "dspy", "lightgbm"):
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            versions[package] = "unknown"
    return versions


def _data_splits(plan: CompilePlan, data_dir: Path | None) -> dict[str, DataSplit]:
    s = plan.request.settings
    named = {
        "train": (s.train, plan.train),
        "dev": (s.dev, plan.dev),
        "calibration": (plan.request.calibration or s.dev, plan.calibration),
    }
    return {
        name: DataSplit(
            specs=specs,
            questions=len(records),
            ids_sha256=compile_data.ids_sha256(records),
            files=split_hashes([SplitSpec.parse(t).dataset for t in specs], data_dir),
        )
        for name, (specs, records) in named.items()
    }
