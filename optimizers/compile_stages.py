"""The stages of ``filingqa compile`` around the optimization: the dev score before and
after, the selection of the program kept (confirmed on other questions), the router and the
reranker. Each returns its record (:mod:`~filingqa.optimizers.compile_records`) and is
checkpointed in the out dir, so a rerun resumes. The optimization stage:
:mod:`~filingqa.optimizers.optimization_stage`.
"""

from __future__ import annotations

import functools
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import dspy

from filingqa.artifacts.manifest import PROGRAM_FILE, RERANKER_DIR, ROUTER_DIR
from filingqa.evaluation.modes import Mode, gold_program
from filingqa.evaluation.runner import read_rows, run_mode
from filingqa.metrics.judge import StrictJudge
from filingqa.optimizers.compile_plan import CompilePlan
from filingqa.optimizers.compile_records import (
    DevScore,
    KeptProgram,
    Optimization,
    RerankerStage,
    RouterConfirmation,
    RouterStage,
)
from filingqa.optimizers.compiled_modes import pot_mode
from filingqa.optimizers.cost_selection import cheaper_unless_told_worse
from filingqa.optimizers.encoder_stage import EncoderStage
from filingqa.optimizers.presets import OptimizerSettings, Target
from filingqa.optimizers.router_labels import label_questions
from filingqa.optimizers.selection import confirm, select_program
from filingqa.optimizers.structure_search import Structure
from filingqa.optimizers.train_reranker import read_report, train_reranker
from filingqa.program.financial_qa import FinancialQA
from filingqa.program.pot import ProgramOfThought
from filingqa.records import QARecord
from filingqa.retrieval.index.embedder import Embedder
from filingqa.retrieval.search.rerank import TRAINING_FILE
from filingqa.router.lightgbm_router import LightGBMRouter
from filingqa.router.rule import LoopPolicy, RoutingDecision, loop_router
from filingqa.router.training import RouterLabel, RouterReport, score_policy, train_router

EVAL_DIR = "eval"
CONFIRM_DIR = "confirm"


@dataclass(frozen=True)
class CompileRun:
    """What the stages of one compile read: the plan, the backbone's LM (and the teacher's
    and judge's), the data dir, the embedder the worked examples are found with (default:
    the offline MiniLM), whether to show progress bars and where progress lines go."""

    plan: CompilePlan
    lm: dspy.BaseLM
    teacher_lm: dspy.BaseLM | None = None
    judge_lm: dspy.BaseLM | None = None
    data_dir: Path | None = None
    embedder: Embedder | None = None
    progress: bool = True
    say: Callable[[str], None] = print

    @property
    def out(self) -> Path:
        """The artifact folder."""
        return self.plan.request.out_dir

    @property
    def settings(self) -> OptimizerSettings:
        """The optimizer settings."""
        return self.plan.request.settings

    @functools.cached_property
    def judge(self) -> StrictJudge:
        """The strict judge every stage scores with (its LLM stage: the judge LM, else
        DSPy's current LM)."""
        return StrictJudge(lm=self.judge_lm)


def student(target: Target) -> dspy.Module:
    """The uncompiled module ``target`` names."""
    return ProgramOfThought() if target == "pot" else FinancialQA()


def module_mode(module: dspy.Module, target: Target) -> Mode:
    """``module`` (a PoT module or a whole program) as an eval mode over gold context."""
    return pot_mode(module) if target == "pot" else gold_program(module)


def _score(
    run: CompileRun, records: Sequence[QARecord], mode: Mode, name: str, charged: bool = True
) -> DevScore:
    """``records`` answered by ``mode`` and judged, in ``eval/<name>.jsonl`` (resumed)."""
    path = run.out / EVAL_DIR / f"{name}.jsonl"
    rows = run_mode(records, mode, judge=run.judge, rows_path=path, progress=run.progress)
    return DevScore(rows_file=path, rows=tuple(rows), charged=charged)


def score_before(run: CompileRun, records: Sequence[QARecord] | None = None) -> DevScore:
    """The uncompiled module's answers to the dev draw (``records``: its first questions,
    when timing the backbone), in ``eval/before.jsonl``."""
    target = run.settings.target
    dev = run.plan.dev if records is None else records
    return _score(run, dev, module_mode(student(target), target), "before")


def score_after(run: CompileRun, optimization: Optimization) -> DevScore:
    """The compiled module's answers to the dev draw, in ``eval/after.jsonl``; the
    structure search's pick answered it already, so its rows are copied (and cost nothing
    again)."""
    path = run.out / EVAL_DIR / "after.jsonl"
    searched = optimization.searched_rows
    if searched is not None and not path.exists():
        shutil.copyfile(run.out / searched, path)
    target, compiled = run.settings.target, optimization.program
    mode = module_mode(compiled.pot if target == "pot" else compiled, target)
    return _score(run, run.plan.dev, mode, "after", charged=searched is None)


def keep_program(
    run: CompileRun, before: DevScore, after: DevScore, optimization: Optimization
) -> KeptProgram:
    """The compiled program if it beats the uncompiled one on dev, paired, or costs less
    there and is not told worse (:func:`~filingqa.optimizers.selection.select_program`),
    and the confirmation draw keeps it too (:func:`confirm_program`), else the uncompiled
    one; saved as ``program.json``."""
    max_p = run.settings.max_p_value
    selection = select_program(before.rows, after.rows, max_p)
    confirmation: tuple[DevScore, DevScore] | None = None
    if selection.kept == "compiled" and run.plan.confirm:
        confirmation = confirm_program(run, optimization)
        confirmed = confirm(confirmation[0].rows, confirmation[1].rows, max_p)
        kept = "compiled" if confirmed.held else "uncompiled"
        selection = selection.model_copy(update={"kept": kept, "confirmation": confirmed})
    program = optimization.program if selection.kept == "compiled" else FinancialQA()
    structure: Structure = getattr(program, "structure", Structure())
    examples = optimization.worked_examples if structure.examples_per_question else None
    program.save(str(run.out / PROGRAM_FILE))
    return KeptProgram(
        selection=selection,
        program=program,
        structure=structure,
        worked_examples=examples,
        confirmation=confirmation,
    )


def confirm_program(run: CompileRun, optimization: Optimization) -> tuple[DevScore, DevScore]:
    """The uncompiled and the compiled module's answers to the confirmation draw, in
    ``eval/confirm-before.jsonl`` and ``eval/confirm-after.jsonl`` (resumed)."""
    target, compiled = run.settings.target, optimization.program
    start = _score(run, run.plan.confirm, module_mode(student(target), target), "confirm-before")
    mode = module_mode(compiled.pot if target == "pot" else compiled, target)
    return start, _score(run, run.plan.confirm, mode, "confirm-after")


def label_router(run: CompileRun, kept: KeptProgram) -> RouterStage:
    """The calibration questions answered single-pass and full-loop by the kept program
    (``router/*.jsonl``), the router trained on them (``router/model.txt``), and whether
    ``load`` routes with it: it beats the kept structure's loop policy by the cost rule on
    the calibration questions, then on the confirmation draw (:func:`confirm_router`)."""
    directory = run.out / ROUTER_DIR
    labels = _labels(run, kept, run.plan.calibration, directory)
    report = train_router(labels, directory)
    max_p, loop = run.settings.max_p_value, kept.structure.loop
    use_router = routes_better(labels, report, loop, max_p)
    confirmation = None
    if use_router and run.plan.confirm:
        confirmation = confirm_router(run, kept, LightGBMRouter.load(directory))
        use_router = confirmation.routes
    rows = [row for path in sorted(directory.rglob("*.jsonl")) for row in read_rows(path)]
    return RouterStage(
        report=report,
        use_router=use_router,
        loop=loop,
        lm_calls=sum(r.lm_calls for r in rows),
        confirmation=confirmation,
    )


def confirm_router(
    run: CompileRun, kept: KeptProgram, router: Callable[[str], RoutingDecision]
) -> RouterConfirmation:
    """The trained ``router`` (a :class:`~filingqa.router.lightgbm_router.LightGBMRouter`)
    against the kept structure's loop policy on the confirmation draw: the questions the two
    send different ways are answered both ways (``router/confirm/*.jsonl``), and the cost
    rule decides on them (no question differing: the loop policy stays)."""
    own = loop_router(kept.structure.loop)
    routed = {r.id: router(r.question).full_loop for r in run.plan.confirm}
    differing = [r for r in run.plan.confirm if routed[r.id] != own(r.question).full_loop]
    labels = _labels(run, kept, differing, run.out / ROUTER_DIR / CONFIRM_DIR)
    routed_full = [routed[x.id] for x in labels]
    own_full = [not full for full in routed_full]
    wins, losses = _policy_outcomes(labels, own_full, routed_full)
    routed_calls, own_calls = _calls(labels, routed_full), _calls(labels, own_full)
    return RouterConfirmation(
        questions=len(run.plan.confirm),
        differing=len(differing),
        wins=wins,
        losses=losses,
        routed_calls=routed_calls,
        loop_calls=own_calls,
        routes=cheaper_unless_told_worse(
            routed_calls, own_calls, wins, losses, run.settings.max_p_value
        ),
    )


def _labels(
    run: CompileRun, kept: KeptProgram, records: Sequence[QARecord], directory: Path
) -> list[RouterLabel]:
    """``records`` answered single-pass and full-loop by the kept program, in
    ``directory``."""
    return label_questions(
        records,
        kept.program.dump_state(),
        judge=run.judge,
        out_dir=directory,
        options=kept.structure.program_options(),
        worked_examples=kept.worked_examples,
        progress=run.progress,
    )


def routes_better(
    labels: list[RouterLabel], report: RouterReport, loop: LoopPolicy, max_p_value: float
) -> bool:
    """Whether ``load`` routes with the trained router rather than by ``loop``: the cost
    rule on the calibration questions, paired — the policy with fewer LM calls, unless the
    one-sided sign test at ``max_p_value`` tells the other one more accurate (at equal
    calls, the more accurate; a tie keeps ``loop``)."""
    own_full = [loop_router(loop)(x.question).full_loop for x in labels]
    own, routed = score_policy(labels, own_full), report.routed
    wins, losses = _policy_outcomes(labels, own_full, report.routed_full_loop)
    return cheaper_unless_told_worse(routed.lm_calls, own.lm_calls, wins, losses, max_p_value)


def _calls(labels: list[RouterLabel], full: list[bool]) -> int:
    """The LM calls of ``labels`` answered as ``full`` says (the full loop or one pass)."""
    return sum(x.full_calls if f else x.single_calls for x, f in zip(labels, full, strict=True))


def _policy_outcomes(
    labels: list[RouterLabel], own_full: list[bool], routed_full: list[bool]
) -> tuple[int, int]:
    """The questions the routed policy scores higher on than the own one (wins), and lower
    (losses)."""

    def score(label: RouterLabel, full: bool) -> float:
        return label.full_score if full else label.single_score

    pairs = [
        (score(x, routed), score(x, own))
        for x, own, routed in zip(labels, own_full, routed_full, strict=True)
    ]
    return sum(r > o for r, o in pairs), sum(r < o for r, o in pairs)


def train_artifact_reranker(
    out: Path,
    data_dir: Path | None,
    encoder: EncoderStage | None = None,
    *,
    progress: bool,
    say: Callable[[str], None],
) -> RerankerStage:
    """Train the reranker into ``out/reranker`` unless an earlier run did
    (:func:`~filingqa.optimizers.train_reranker.train_reranker`, the path that trains the
    shipped one), over indexes embedded by ``encoder`` when the compile trained one; its
    record read from the training report."""
    directory = out / RERANKER_DIR
    if not (directory / TRAINING_FILE).exists():
        embedder = None if encoder is None else _installed(out / encoder.dir, encoder.name)
        over = f"over indexes embedded by {embedder}" if embedder else "over its training indexes"
        say(f"4b/7 training the reranker {over} (each built unless it is)")
        train_reranker(out_dir=directory, data_dir=data_dir, progress=progress, embedder=embedder)
    report = read_report(directory)
    return RerankerStage(
        dir=RERANKER_DIR,
        train_specs=report.train_specs,
        embedder=report.embedder,
        cross_validation=report.cross_validation,
        seconds=report.seconds,
    )


def _installed(folder: Path, name: str) -> str:
    """``name``, once the fine-tuned encoder in ``folder`` is installed in the model store
    (so indexes embedded by it can be opened by name)."""
    from filingqa.models.embedding import install_tuned_encoder

    install_tuned_encoder(folder)
    return name
