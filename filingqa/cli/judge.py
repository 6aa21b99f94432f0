"""``filingqa judge``: a JSONL file of answers scored by the strict judge."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from filingqa.cli.options import Commands, add_lm_options, backbone_of


def add_parser(commands: Commands) -> None:
    """Add the command's parser to ``commands``, its handler set."""
    judge = commands.add_parser(
        "judge", help='score JSONL lines of {"question", "gold", "prediction"}'
    )
    judge.add_argument("file", type=Path, help="JSONL file, or - for standard input")
    judge.add_argument(
        "--no-llm",
        action="store_true",
        help="the deterministic stages only (numeric, pre-check, polarity, direction, "
        "span), then exact match",
    )
    add_lm_options(judge)
    judge.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    from filingqa.metrics.judge import StrictJudge
    from filingqa.metrics.judge_file import judge_jsonl

    lm = None
    if not args.no_llm:
        from filingqa.lm.backbone import get_lm

        lm = get_lm(backbone_of(args))
    judge = StrictJudge(lm=lm)
    if str(args.file) == "-":
        judge_jsonl(sys.stdin, judge, sys.stdout)
    else:
        with args.file.open(encoding="utf-8") as lines:
            judge_jsonl(lines, judge, sys.stdout)
    return 0
