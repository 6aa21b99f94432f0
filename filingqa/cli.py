"""The ``filingqa`` command line: ask, eval, models, data, judge, index, compile."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from pydantic import ValidationError

from filingqa import __version__
from filingqa.core.config import ConfigError


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; returns the process exit code."""
    parser = _build_parser()
    args = parser.parse_args(argv)
    handler: Callable[[argparse.Namespace], int] = args.handler
    try:
        return handler(args)
    except (ConfigError, RuntimeError, FileNotFoundError, ValueError) as problem:
        print(f"filingqa: error: {_one_line(problem)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("filingqa: interrupted", file=sys.stderr)
        return 130


def _one_line(problem: Exception) -> str:
    """The error for a terminal: a settings validation error as its first message."""
    if isinstance(problem, ValidationError):
        return str(problem.errors()[0]["msg"]).removeprefix("Value error, ")
    return str(problem)


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="filingqa",
        description="Answer questions about financial filings with the number, the working "
        "and citations.",
    )
    parser.add_argument("--version", action="version", version=f"filingqa {__version__}")
    commands = parser.add_subparsers(title="commands", required=True, metavar="COMMAND")
    _add_ask(commands)
    _add_eval(commands)
    _add_models(commands)
    _add_data(commands)
    _add_judge(commands)
    _add_index(commands)
    _add_compile(commands)
    return parser


def _add_lm_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--lm",
        default="local",
        help="backbone: 'local' (embedded Qwen2.5-Coder-1.5B), 'local:<path.gguf>', "
        "'local@<url>' (the same model on a llama.cpp server, e.g. http://127.0.0.1:8000/v1), "
        "or a litellm model string such as openai/gpt-4o-mini (default: local)",
    )
    parser.add_argument("--api-base", help="base URL of an OpenAI-compatible server")


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _add_ask(commands) -> None:
    ask = commands.add_parser("ask", help="answer a question over a filing or the index")
    ask.add_argument("question", help="the question, in quotes")
    ask.add_argument(
        "--filing",
        type=Path,
        help="a plain-text filing (pages separated by form feeds); default: the index if "
        "one is built, else the bundled Northwind Instruments FY2024 sample 10-K",
    )
    ask.add_argument(
        "--index",
        metavar="NAME|DIR",
        help="search this index: a directory, or a name under FILINGQA_HOME/indexes (e.g. "
        "financebench); default with --company/--doc: 'default', which `filingqa index "
        "PATH...` builds",
    )
    ask.add_argument("--company", help="narrow the search to this company's filings (as named)")
    ask.add_argument(
        "--doc",
        action="append",
        default=[],
        metavar="DOC_ID",
        help="search this document only, e.g. 3M_2018_10K; repeatable",
    )
    _add_lm_options(ask)
    ask.add_argument(
        "--samples",
        type=_positive_int,
        default=1,
        help="programs to sample and vote over (self-consistency); default 1",
    )
    ask.add_argument("--json", action="store_true", help="print the answer as JSON")
    ask.set_defaults(handler=_run_ask)


def _p_value(text: str) -> float:
    value = float(text)
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"must be above 0 and at most 1, got {value:g}")
    return value


def _key_value(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    return key, value


def _add_eval(commands) -> None:
    run = commands.add_parser(
        "eval", help="compare settings on a dataset split (gold or retrieved context), judged"
    )
    run.add_argument("--dataset", required=True, help="name:split, e.g. tatqa:dev")
    run.add_argument(
        "--mode",
        default="direct,pot,program",
        help="comma-separated settings: direct, cot, pot, naive-rag, program (uncompiled; "
        "program+forms, program+guess, program-forms: with the answer form decided, guessed "
        "from the wording, or not used), compiled, compiled+router (with --program DIR) "
        "(default: direct,pot,program); or retrieval alone (search quality, no LM)",
    )
    run.add_argument(
        "--context",
        choices=["gold", "retrieved"],
        help="evidence: the record's gold context, or passages searched in the index "
        "(default: retrieved for financebench, gold for the rest; naive-rag always retrieves)",
    )
    run.add_argument(
        "--index",
        type=Path,
        metavar="DIR",
        help="index to search (default: the dataset's, FILINGQA_HOME/indexes/<dataset>)",
    )
    run.add_argument(
        "--setting",
        metavar="A,B",
        help="comma-separated retrieval settings to compare (with --mode retrieval)",
    )
    run.add_argument("--json", type=Path, metavar="OUT", help="also write the results JSON to OUT")
    run.add_argument("--limit", type=_positive_int, help="the first N matching questions")
    run.add_argument(
        "--per-type",
        type=_positive_int,
        metavar="N",
        help="the first N matching questions of each answer type (all of a rarer type), "
        "before --limit: a stratified set, e.g. 50 each of TAT-QA's arithmetic, span and "
        "multi-span questions and its 10 counts",
    )
    run.add_argument(
        "--slice",
        metavar="NAME",
        help="only the questions of this committed slice of the dataset, in dataset order, "
        "before --where and --limit: <name>-<split>-tuning to tune on, <name>-<split>-report "
        "to report on (e.g. tatqa-dev-report)",
    )
    run.add_argument(
        "--where",
        type=_key_value,
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="keep records whose field or meta entry equals VALUE "
        "(e.g. tatqa_answer_type=arithmetic); repeatable",
    )
    run.add_argument("--concurrency", type=_positive_int, default=1)
    run.add_argument(
        "--out",
        type=Path,
        help="output folder (default: results/eval/<dataset>); rerunning resumes",
    )
    run.add_argument("--data-dir", help="evaluation data dir (default: $FILINGQA_DATA_DIR)")
    run.add_argument(
        "--judge-lm",
        help="LM for the judge's LLM stage (non-numeric golds); default: exact match only. "
        "Rows of an earlier run graded by exact match are graded again with it",
    )
    run.add_argument(
        "--program",
        type=Path,
        metavar="DIR",
        help="compiled artifact (e.g. artifacts/qwen-local) that the compiled and "
        "compiled+router settings run",
    )
    run.add_argument(
        "--regrade",
        action="store_true",
        help="grade every row already written again with the current judge (answers kept), "
        "e.g. after the judge changed",
    )
    run.add_argument(
        "--fresh-cache",
        action="store_true",
        help="start every setting from an empty in-memory LM cache, so tokens and seconds are "
        "a first run's (replies cached by earlier runs or by another setting are not reused, "
        "for the judge neither)",
    )
    run.add_argument(
        "--publish",
        type=Path,
        metavar="DIR",
        help="also keep each setting's rows in DIR without the dataset's text (question, gold, "
        "judge's reason), to commit; a run on another machine given the same DIR restores the "
        "rows its --out lacks and goes on",
    )
    _add_lm_options(run)
    run.set_defaults(handler=_run_eval)


def _add_models(commands) -> None:
    models = commands.add_parser("models", help="pull and check the embedded models")
    actions = models.add_subparsers(title="actions", required=True, metavar="ACTION")
    pull = actions.add_parser(
        "pull", help="fetch, assemble and hash-verify the models (idempotent)"
    )
    pull.add_argument("--llm-file", type=Path, help="use this local GGUF file (verified)")
    pull.add_argument("--embedding-dir", type=Path, help="use embedding files from this dir")
    pull.add_argument("--only", choices=["llm", "embedding"], help="pull just one model")
    pull.add_argument("--quiet", action="store_true", help="no progress bars")
    pull.set_defaults(handler=_run_models_pull)
    status = actions.add_parser("status", help="show where the models are and verify them")
    status.set_defaults(handler=_run_models_status)


def _add_data(commands) -> None:
    data = commands.add_parser("data", help="inspect the evaluation data dir")
    actions = data.add_subparsers(title="actions", required=True, metavar="ACTION")
    listing = actions.add_parser("list", help="list the datasets present, with counts")
    listing.add_argument("--data-dir", help="evaluation data dir (default: $FILINGQA_DATA_DIR)")
    listing.set_defaults(handler=_run_data_list)


def _add_judge(commands) -> None:
    judge = commands.add_parser(
        "judge", help='score JSONL lines of {"question", "gold", "prediction"}'
    )
    judge.add_argument("file", type=Path, help="JSONL file, or - for standard input")
    judge.add_argument(
        "--no-llm", action="store_true", help="deterministic numeric stage and exact match only"
    )
    _add_lm_options(judge)
    judge.set_defaults(handler=_run_judge)


def _add_index(commands) -> None:
    index = commands.add_parser(
        "index", help="ingest filings (or a dataset's documents) into the hybrid index"
    )
    index.add_argument("paths", nargs="*", type=Path, help="PDF, HTML or text files, or folders")
    index.add_argument(
        "--dataset", help="index a dataset's documents: financebench, finqa:SPLIT, tatqa:SPLIT"
    )
    where = index.add_mutually_exclusive_group()
    where.add_argument(
        "--index",
        type=Path,
        help="index directory (default: FILINGQA_HOME/indexes/default, or "
        "FILINGQA_HOME/indexes/<dataset> with --dataset)",
    )
    where.add_argument("--qdrant-url", help="a Qdrant server or cluster instead of a directory")
    index.add_argument("--data-dir", help="evaluation data dir (default: $FILINGQA_DATA_DIR)")
    index.add_argument("--quiet", action="store_true", help="no progress bars")
    index.set_defaults(handler=_run_index)


def _add_compile(commands) -> None:
    from filingqa.optimizers.presets import BUDGETS, OPTIMIZERS

    run = commands.add_parser(
        "compile", help="compile the program for a backbone into artifacts/<name>"
    )
    run.add_argument("--out", type=Path, required=True, help="artifact folder, artifacts/<name>")
    _add_lm_options(run)
    run.add_argument(
        "--optimizer",
        choices=OPTIMIZERS,
        help="structure: search the program's options and worked examples (default for "
        "local backbones); bootstrap-rs, mipro, gepa, simba: DSPy prompt optimizers "
        "(bootstrap-rs is the default for hosted ones); see the README, 'Compiling'",
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
        ("calibration", "router calibration questions (default: the dev draw)"),
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
        type=_p_value,
        help="keep the compiled program only if, against the uncompiled one, it wins more dev "
        "questions than it loses with a one-sided sign-test p-value at most this (default "
        "0.1; 1 keeps any compiled program that wins more than it loses)",
    )
    run.add_argument("--skip-retriever", action="store_true", help="do not train the reranker")
    run.add_argument("--data-dir", help="evaluation data dir (default: $FILINGQA_DATA_DIR)")
    run.add_argument(
        "--dry-run", action="store_true", help="print the plan and budget estimate only"
    )
    run.add_argument("--quiet", action="store_true", help="no progress bars")
    run.set_defaults(handler=_run_compile)


def _run_ask(args: argparse.Namespace) -> int:
    from filingqa.ask import answer_over_filing, answer_over_index, format_answer
    from filingqa.lm.backbone import get_lm

    index = _ask_index(args)  # before loading the LM: a missing index fails at once
    lm = get_lm(args.lm, api_base=args.api_base)
    if index is None:
        answer = answer_over_filing(args.question, filing=args.filing, lm=lm, samples=args.samples)
    else:
        answer = answer_over_index(
            args.question,
            index=index,
            lm=lm,
            company=args.company,
            doc_ids=args.doc,
            samples=args.samples,
        )
    print(answer.model_dump_json(indent=2) if args.json else format_answer(answer))
    return 0


def _ask_index(args: argparse.Namespace) -> Path | None:
    """The index ask searches (when --index, --company or --doc is given), or None to answer
    over one filing (--filing, default: the bundled sample)."""
    from filingqa.ask import ask_index

    wants_index = bool(args.index or args.company or args.doc)
    if args.filing is not None and wants_index:
        raise ValueError(
            "--filing answers over that file; --index, --company and --doc "
            "search an index: give one or the other"
        )
    return ask_index(args.index) if wants_index else None


def _run_eval(args: argparse.Namespace) -> int:
    from filingqa.evaluation.command import (
        REPORT_FILE,
        EvalSettings,
        check_index,
        check_slice,
        paired_results,
        run_evaluation,
    )
    from filingqa.evaluation.paired import format_paired
    from filingqa.evaluation.summary import format_by_answer_type, format_table
    from filingqa.lm.backbone import get_lm

    modes = _comma_list(args.mode)
    if "retrieval" in modes and args.slice:
        raise ValueError("--slice chooses the questions to answer: not with --mode retrieval")
    if "retrieval" in modes:
        return _run_retrieval_eval(args, modes)
    if args.setting:
        raise ValueError("--setting chooses retrieval settings: use it with --mode retrieval")
    settings = EvalSettings(
        dataset=args.dataset,
        modes=modes,
        lm=args.lm,
        judge_lm=args.judge_lm,
        regrade=args.regrade,
        program=args.program,
        limit=args.limit,
        per_type=args.per_type,
        slice=args.slice,
        where=dict(args.where),
        concurrency=args.concurrency,
        context=args.context,
        index=args.index,
        out_dir=args.out or Path("results") / "eval" / args.dataset.replace(":", "_"),
        json_out=args.json,
        fresh_cache=args.fresh_cache,
        publish=args.publish,
    )
    check_slice(settings)  # before loading the LM: a bad slice name fails at once
    check_index(settings)  # before loading the LM: a missing index fails at once
    lm = get_lm(args.lm, api_base=args.api_base)
    judge_lm = get_lm(args.judge_lm) if args.judge_lm else None
    summaries = run_evaluation(settings, lm=lm, judge_lm=judge_lm, data_dir=args.data_dir)
    print(
        f"{settings.dataset}, lm={settings.lm}, slice={settings.slice or '-'}, "
        f"where={settings.where or '-'}"
    )
    print(format_table(summaries))
    if by_type := format_by_answer_type(summaries):
        print(by_type)
    if paired := format_paired(paired_results(settings)):
        print(paired)
    written = [settings.out_dir / "results.json", settings.out_dir / REPORT_FILE]
    print(f"wrote {', '.join(map(str, written))}" + (f" and {args.json}" if args.json else ""))
    return 0


def _run_retrieval_eval(args: argparse.Namespace, modes: list[str]) -> int:
    """``--mode retrieval``: search quality of each retrieval setting (no LM)."""
    if modes != ["retrieval"]:
        raise ValueError("--mode retrieval runs alone: it measures search, not answers")
    from filingqa.evaluation.retrieval.quality import (
        format_retrieval_table,
        run_retrieval_evaluation,
    )

    results = run_retrieval_evaluation(
        args.dataset,
        settings=_comma_list(args.setting) if args.setting else None,
        limit=args.limit,
        data_dir=args.data_dir,
        index=args.index,
        json_out=args.json,
        progress=True,
    )
    print(format_retrieval_table(results))
    return 0


def _comma_list(text: str) -> list[str]:
    return [item.strip() for item in text.split(",") if item.strip()]


def _run_models_pull(args: argparse.Namespace) -> int:
    from filingqa.models.store import pull_embedding, pull_llm

    progress = not args.quiet
    reports = []
    if args.only in (None, "llm"):
        reports.append(pull_llm(local_file=args.llm_file, progress=progress))
    if args.only in (None, "embedding"):
        reports.append(pull_embedding(local_dir=args.embedding_dir, progress=progress))
    for report in reports:
        print(f"{report.model}: {report.source}, verified, {report.path} ({report.seconds:.1f} s)")
    return 0


def _run_models_status(_: argparse.Namespace) -> int:
    from filingqa.models.store import ModelNotReady, ensure_embedding, ensure_llm

    healthy = True
    for name, check in (("llm", ensure_llm), ("embedding", ensure_embedding)):
        try:
            print(f"{name}: ok, {check()}")
        except ModelNotReady as problem:
            healthy = False
            print(f"{name}: {problem}")
    return 0 if healthy else 1


def _run_data_list(args: argparse.Namespace) -> int:
    from filingqa.core.config import data_dir
    from filingqa.datasets import available_datasets, format_table

    print(format_table(available_datasets(data_dir(args.data_dir))))
    return 0


def _run_index(args: argparse.Namespace) -> int:
    from filingqa.evaluation.corpora import dataset_corpus, dataset_index_name
    from filingqa.retrieval.index.build import build_index, format_report
    from filingqa.retrieval.index.locations import default_index_dir

    if bool(args.paths) == bool(args.dataset):
        raise ValueError("give files or folders to index, or --dataset, not both")
    default = default_index_dir(dataset_index_name(args.dataset) if args.dataset else "default")
    report = build_index(
        args.qdrant_url or args.index or default,
        paths=args.paths,
        corpus=dataset_corpus(args.dataset, args.data_dir) if args.dataset else None,
        progress=not args.quiet,
    )
    print(format_report(report))
    return 1 if report.failures else 0


def _run_judge(args: argparse.Namespace) -> int:
    from filingqa.metrics.judge import StrictJudge
    from filingqa.metrics.judge_file import judge_jsonl

    lm = None
    if not args.no_llm:
        from filingqa.lm.backbone import get_lm

        lm = get_lm(args.lm, api_base=args.api_base)
    judge = StrictJudge(lm=lm)
    if str(args.file) == "-":
        judge_jsonl(sys.stdin, judge, sys.stdout)
    else:
        with args.file.open(encoding="utf-8") as lines:
            judge_jsonl(lines, judge, sys.stdout)
    return 0


def _run_compile(args: argparse.Namespace) -> int:
    from filingqa.lm.backbone import get_lm, is_embedded
    from filingqa.optimizers.compile import (
        CompileRequest,
        describe_plan,
        measure_speed,
        plan_compile,
        run_compile,
    )
    from filingqa.optimizers.presets import OptimizerSettings, default_optimizer, preset

    local = is_embedded(args.lm)
    settings = preset(args.optimizer or default_optimizer(local), args.budget, local=local)
    chosen = {
        "train": args.train,
        "dev": args.dev,
        "target": args.target,
        "pool": args.pool,
        "max_p_value": args.max_p_value,
    }
    settings = OptimizerSettings.model_validate(
        settings.model_dump()
        | {key: value for key, value in chosen.items() if value not in (None, [])}
    )
    request = CompileRequest(
        name=args.out.name,
        out_dir=args.out,
        lm=args.lm,
        api_base=args.api_base,
        teacher_lm=args.teacher_lm,
        judge_lm=args.judge_lm,
        settings=settings,
        calibration=args.calibration or None,
        skip_retriever=args.skip_retriever,
    )
    data_dir = Path(args.data_dir) if args.data_dir else None
    plan = plan_compile(request, data_dir)
    print(describe_plan(plan, with_estimate=args.dry_run))
    if args.dry_run:
        return 0
    lm = get_lm(args.lm, api_base=args.api_base)
    teacher = get_lm(args.teacher_lm) if args.teacher_lm else None
    judge = get_lm(args.judge_lm) if args.judge_lm else None
    try:
        print("timing the backbone on the first dev question (stage 1's first answer)")
        plan = measure_speed(plan, lm=lm, judge_lm=judge, progress=not args.quiet)
        print(f"budget estimate:\n{plan.estimate.describe()}", flush=True)
        manifest = run_compile(
            plan,
            lm=lm,
            teacher_lm=teacher,
            judge_lm=judge,
            data_dir=data_dir,
            progress=not args.quiet,
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
        f"{sum(manifest.lm_calls.values())} LM calls, {manifest.wall_seconds / 60:.0f} min; "
        f"load with filingqa.load({str(args.out)!r})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
