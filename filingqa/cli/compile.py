"""``filingqa compile``: the program compiled for one backbone into an artifact."""

from __future__ import annotations

import argparse
import signal
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType

from filingqa.cli.options import Commands, add_lm_options, backbone_of, p_value


def add_parser(commands: Commands) -> None:
    """Add the command's parser to ``commands``, its handler set."""
    from filingqa.optimizers.optimizer_registry import OPTIMIZERS
    from filingqa.optimizers.presets import BUDGETS

    run = commands.add_parser(
        "compile", help="compile the program for a backbone into artifacts/<name>"
    )
    run.add_argument("--out", type=Path, required=True, help="artifact folder, artifacts/<name>")
    add_lm_options(run)
    run.add_argument(
        "--optimizer",
        choices=OPTIMIZERS,
        help="structure: search the program's options and worked examples (default for "
        "local backbones); bootstrap-rs, gepa, simba: DSPy prompt optimizers "
        "(bootstrap-rs is the default for hosted ones); see docs/compiling.md",
    )
    run.add_argument(
        "--budget",
        choices=BUDGETS,
        default="light",
        help="optimizer effort and data sizes (default: light); the estimate printed first "
        "is at the speed timed on the first dev question, redone after the first stage",
    )
    for split, what in (
        ("train", "training questions"),
        ("dev", "dev questions (candidate selection, scores before/after)"),
        (
            "confirm",
            "confirmation questions, no context shared with train or dev: a program that wins "
            "dev is kept only if it holds there",
        ),
        ("calibration", "router calibration questions (default: the dev draw)"),
        (
            "open-dev",
            "the open-corpus stage's questions, answered searching the FinanceBench index",
        ),
        ("open-pages", "the questions whose first search alone is checked for gold pages"),
        (
            "open-confirm",
            "the open-corpus stage's confirmation questions, about other filings than its own",
        ),
    ):
        run.add_argument(
            f"--{split}",
            action="append",
            default=[],
            metavar="NAME:SPLIT[:N]",
            help=f"{what}; repeatable (default: the preset's)",
        )
    run.add_argument(
        "--pool",
        action="append",
        default=[],
        metavar="NAME:SPLIT",
        help="the structure search's worked examples: gold programs of these splits (repeatable; "
        "default: tatqa:dev; the dev and report-slice contexts are never pooled)",
    )
    run.add_argument(
        "--target",
        choices=["pot", "program"],
        help="compile the PoT module or the whole program (default: pot for local models, "
        "program for hosted ones)",
    )
    run.add_argument("--teacher-lm", help="LM that bootstraps demos and proposes instructions")
    run.add_argument("--judge-lm", help="LM for the judge's LLM stage (default: the backbone)")
    run.add_argument(
        "--max-p-value",
        type=p_value,
        help="keep the compiled program only if, against the uncompiled one, it wins more dev "
        "questions than it loses with a one-sided sign-test p-value at most this (or costs "
        "less there and the test does not call it worse at this p-value), and on the "
        "confirmation questions it is the cheaper of the two or better at this p-value "
        "(default 0.1; 1 keeps any compiled program that wins more than it loses)",
    )
    run.add_argument(
        "--no-confirmation",
        action="store_true",
        help="no confirmation draws: the questions each stage chose on decide alone (the "
        "compiled program on dev, the retrieval steps on the open-corpus questions)",
    )
    run.add_argument(
        "--skip-retriever", action="store_true", help="do not train the reranker (nor the encoder)"
    )
    run.add_argument(
        "--encoder",
        action="store_true",
        help="also fine-tune the encoder on what the search serves (needs the train extra; "
        "an index embedded by it, `filingqa index --program`, is what it then acts on)",
    )
    run.add_argument("--data-dir", help="evaluation data dir (default: $FILINGQA_DATA_DIR)")
    run.add_argument(
        "--dry-run", action="store_true", help="print the plan and budget estimate only"
    )
    run.add_argument("--quiet", action="store_true", help="no progress bars")
    run.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    started = time.monotonic()  # the compile's clock counts loading the models too
    from filingqa.lm.backbone import Backbone, get_lm
    from filingqa.optimizers.compile import measure_speed, run_compile
    from filingqa.optimizers.compile_clock import CompileClock
    from filingqa.optimizers.compile_plan import CompileRequest, describe_plan, plan_compile
    from filingqa.optimizers.presets import OptimizerSettings, default_optimizer, preset

    backbone = backbone_of(args)
    local = backbone.local_model
    settings = preset(args.optimizer or default_optimizer(local), args.budget, local=local)
    chosen = {
        "train": args.train,
        "dev": args.dev,
        "confirm": args.confirm or args.dev,  # given dev splits: other questions of them
        "open_dev": args.open_dev,
        "open_pages": args.open_pages,
        "open_confirm": args.open_confirm or args.open_dev,
        "target": args.target,
        "pool": args.pool,
        "max_p_value": args.max_p_value,
    }
    settings = OptimizerSettings.model_validate(
        settings.model_dump()
        | {key: value for key, value in chosen.items() if value not in (None, [])}
        | ({"confirm": [], "open_confirm": []} if args.no_confirmation else {})
    )
    request = CompileRequest(
        name=args.out.name,
        out_dir=args.out,
        backbone=backbone,
        teacher_backbone=Backbone.parse(args.teacher_lm) if args.teacher_lm else None,
        judge_backbone=Backbone.parse(args.judge_lm) if args.judge_lm else None,
        settings=settings,
        calibration=args.calibration or None,
        skip_retriever=args.skip_retriever,
        encoder=args.encoder,
    )
    data_dir = Path(args.data_dir) if args.data_dir else None
    plan = plan_compile(request, data_dir)
    print(describe_plan(plan, with_estimate=args.dry_run))
    if args.dry_run:
        return 0
    lm = get_lm(request.backbone)
    teacher = get_lm(request.teacher_backbone) if request.teacher_backbone else None
    judge = get_lm(request.judge_backbone) if request.judge_backbone else None
    clock = CompileClock(args.out, started)
    try:
        with sigterm_interrupts(), clock.ticking():
            print("timing the backbone on the first dev question (stage 1's first answer)")
            plan = measure_speed(plan, lm=lm, judge_lm=judge, progress=not args.quiet, clock=clock)
            print(f"budget estimate:\n{plan.estimate.describe()}", flush=True)
            manifest = run_compile(
                plan,
                lm=lm,
                teacher_lm=teacher,
                judge_lm=judge,
                data_dir=data_dir,
                progress=not args.quiet,
                clock=clock,
            )
    except KeyboardInterrupt:
        print(
            f"filingqa compile: interrupted; finished work is kept in {args.out}, "
            "rerun the same command to resume",
            file=sys.stderr,
        )
        return 130
    kept = manifest.selection.kept if manifest.selection else "compiled"
    print(
        f"dev accuracy {manifest.before.accuracy:.1%} uncompiled, "
        f"{manifest.after.accuracy:.1%} compiled; kept the {kept} program; "
        f"{sum(manifest.lm_calls.values())} LM calls, {manifest.wall_seconds / 60:.0f} min by "
        "the clock; "
        f"load with filingqa.load({str(args.out)!r})"
    )
    return 0


@contextmanager
def sigterm_interrupts() -> Iterator[None]:
    """Within the block, SIGTERM (``kill``, a host shutting down) stops the process as
    Ctrl-C does, so a stopped compile keeps its finished work and its clock."""
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt
