"""``filingqa ask``: a question answered over one plain-text filing or over an index."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from filingqa.cli.options import (
    Commands,
    add_lm_options,
    add_program_options,
    add_rerank_options,
    backbone_of,
    positive_int,
    rerank_settings,
)


def add_parser(commands: Commands) -> None:
    """Add the command's parser to ``commands``, its handler set."""
    ask = commands.add_parser("ask", help="answer a question over a filing or the index")
    ask.add_argument("question", help="the question, in quotes")
    ask.add_argument(
        "--filing",
        type=Path,
        help="a plain-text filing (pages separated by form feeds); default, unless --index, "
        "--company or --doc searches an index: the bundled Northwind Instruments FY2024 "
        "sample 10-K",
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
    add_lm_options(ask)
    add_rerank_options(ask)
    ask.add_argument(
        "--samples",
        type=positive_int,
        default=1,
        help="the uncompiled program's programs to sample and vote over (self-consistency; "
        "with --uncompiled); default 1",
    )
    add_program_options(ask)
    ask.add_argument("--json", action="store_true", help="print the answer as JSON")
    ask.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    from filingqa.artifacts.compiled import choose_program
    from filingqa.ask import answer_over_filing, answer_over_index, format_answer
    from filingqa.lm.backbone import get_lm

    index = _ask_index(args)  # before loading the LM: a missing index fails at once
    search = rerank_settings(args)
    if search and index is None:
        raise ValueError("--rerank-model reranks an index search: give --index (or --company)")
    backbone = backbone_of(args)
    chosen = choose_program(backbone, args.program, uncompiled=args.uncompiled)
    if chosen.program is not None and args.samples != 1:
        raise ValueError(
            f"--samples votes the uncompiled program; {chosen.name} votes as its compile "
            "chose: add --uncompiled"
        )
    if chosen.note:
        print(f"filingqa: {chosen.note}", file=sys.stderr)
    program = chosen.program
    lm = get_lm(backbone)
    if index is None:
        answer = answer_over_filing(
            args.question, filing=args.filing, lm=lm, samples=args.samples, program=program
        )
    else:
        answer = answer_over_index(
            args.question,
            index=index,
            lm=lm,
            company=args.company,
            doc_ids=args.doc,
            samples=args.samples,
            program=program,
            search_settings=search,
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
