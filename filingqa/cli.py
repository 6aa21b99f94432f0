"""The ``filingqa`` command line: ask, eval, models, data, judge (index, compile to come)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from filingqa import __version__
from filingqa.config import ConfigError

LATER = {
    "index": "ingesting filings into the hybrid index (the retrieval issue)",
    "compile": "compiling the program per backbone (the compile issue)",
}


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; returns the process exit code."""
    parser = _build_parser()
    args, unknown = parser.parse_known_args(argv)
    if unknown and not getattr(args, "takes_any_arguments", False):
        parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    handler: Callable[[argparse.Namespace], int] = args.handler
    try:
        return handler(args)
    except (ConfigError, RuntimeError, FileNotFoundError, ValueError) as problem:
        print(f"filingqa: error: {problem}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("filingqa: interrupted", file=sys.stderr)
        return 130


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
    for name, what in LATER.items():
        later = commands.add_parser(name, help=f"(not yet available) {what}")
        later.set_defaults(handler=_not_yet(name, what), takes_any_arguments=True)
    return parser


def _add_lm_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--lm",
        default="local",
        help="backbone: 'local' (embedded Qwen2.5-Coder-1.5B), 'local:<path.gguf>', or a "
        "litellm model string such as openai/gpt-4o-mini (default: local)",
    )
    parser.add_argument("--api-base", help="base URL of an OpenAI-compatible server")


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _add_ask(commands) -> None:
    ask = commands.add_parser("ask", help="answer a question over a filing")
    ask.add_argument("question", help="the question, in quotes")
    ask.add_argument(
        "--filing",
        type=Path,
        help="a plain-text filing (pages separated by form feeds); default: the bundled "
        "Northwind Instruments FY2024 sample 10-K",
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


def _key_value(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    return key, value


def _add_eval(commands) -> None:
    run = commands.add_parser(
        "eval", help="compare settings on a dataset split, judged strictly (gold context)"
    )
    run.add_argument("--dataset", required=True, help="name:split, e.g. tatqa:dev")
    run.add_argument(
        "--mode",
        default="direct,pot,program",
        help="comma-separated settings: direct, cot, pot, program (default: direct,pot,program)",
    )
    run.add_argument("--limit", type=_positive_int, help="the first N matching questions")
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
        help="LM for the judge's LLM stage (non-numeric golds); default: exact match only",
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


def _not_yet(name: str, what: str) -> Callable[[argparse.Namespace], int]:
    def handler(_: argparse.Namespace) -> int:
        print(f"filingqa {name}: not yet available ({what}).", file=sys.stderr)
        return 3

    return handler


def _run_ask(args: argparse.Namespace) -> int:
    from filingqa.program.ask import answer_over_filing, format_answer
    from filingqa.program.lm import get_lm

    lm = get_lm(args.lm, api_base=args.api_base)
    answer = answer_over_filing(args.question, filing=args.filing, lm=lm, samples=args.samples)
    print(answer.model_dump_json(indent=2) if args.json else format_answer(answer))
    return 0


def _run_eval(args: argparse.Namespace) -> int:
    from filingqa.evaluation.command import EvalSettings, run_evaluation
    from filingqa.evaluation.summary import format_table
    from filingqa.program.lm import get_lm

    settings = EvalSettings(
        dataset=args.dataset,
        modes=[m.strip() for m in args.mode.split(",") if m.strip()],
        lm=args.lm,
        judge_lm=args.judge_lm,
        limit=args.limit,
        where=dict(args.where),
        concurrency=args.concurrency,
        out_dir=args.out or Path("results") / "eval" / args.dataset.replace(":", "_"),
    )
    lm = get_lm(args.lm, api_base=args.api_base)
    judge_lm = get_lm(args.judge_lm) if args.judge_lm else None
    summaries = run_evaluation(settings, lm=lm, judge_lm=judge_lm, data_dir=args.data_dir)
    print(f"{settings.dataset}, lm={settings.lm}, where={settings.where or '-'}")
    print(format_table(summaries))
    print(f"wrote {settings.out_dir / 'results.json'}")
    return 0


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
    from filingqa.config import data_dir
    from filingqa.datasets import available_datasets, format_table

    print(format_table(available_datasets(data_dir(args.data_dir))))
    return 0


def _run_judge(args: argparse.Namespace) -> int:
    from filingqa.metrics.judge import StrictJudge
    from filingqa.metrics.judge_file import judge_jsonl

    lm = None
    if not args.no_llm:
        from filingqa.program.lm import get_lm

        lm = get_lm(args.lm, api_base=args.api_base)
    judge = StrictJudge(lm=lm)
    if str(args.file) == "-":
        judge_jsonl(sys.stdin, judge, sys.stdout)
    else:
        with args.file.open(encoding="utf-8") as lines:
            judge_jsonl(lines, judge, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
