"""``filingqa models``: pull and verify the pinned models, or say where they are."""

from __future__ import annotations

import argparse
from pathlib import Path

from filingqa.cli.options import Commands


def add_parser(commands: Commands) -> None:
    """Add the command's parser to ``commands``, its handler set."""
    models = commands.add_parser("models", help="pull and check the embedded models")
    actions = models.add_subparsers(title="actions", required=True, metavar="ACTION")
    pull = actions.add_parser(
        "pull", help="fetch, assemble and hash-verify the models (idempotent)"
    )
    pull.add_argument("--llm-file", type=Path, help="use this local GGUF file (verified)")
    pull.add_argument("--embedding-dir", type=Path, help="use embedding files from this dir")
    pull.add_argument(
        "--only",
        choices=["llm", "embedding", "weights"],
        help="pull just one model (weights: the embedder's fp32 weights an encoder fine-tune "
        "starts from; not pulled otherwise)",
    )
    pull.add_argument("--quiet", action="store_true", help="no progress bars")
    pull.set_defaults(handler=_run_pull)
    status = actions.add_parser("status", help="show where the models are and verify them")
    status.set_defaults(handler=_run_status)


def _run_pull(args: argparse.Namespace) -> int:
    from filingqa.models.registry import MINILM_L6_V2_WEIGHTS
    from filingqa.models.store import pull_embedding, pull_llm

    progress = not args.quiet
    reports = []
    if args.only in (None, "llm"):
        reports.append(pull_llm(local_file=args.llm_file, progress=progress))
    if args.only in (None, "embedding"):
        reports.append(pull_embedding(local_dir=args.embedding_dir, progress=progress))
    if args.only == "weights":
        reports.append(pull_embedding(MINILM_L6_V2_WEIGHTS, progress=progress))
    for report in reports:
        print(f"{report.model}: {report.source}, verified, {report.path} ({report.seconds:.1f} s)")
    return 0


def _run_status(_: argparse.Namespace) -> int:
    from filingqa.models.store import ModelNotReady, ensure_embedding, ensure_llm

    healthy = True
    for name, check in (("llm", ensure_llm), ("embedding", ensure_embedding)):
        try:
            print(f"{name}: ok, {check()}")
        except ModelNotReady as problem:
            healthy = False
            print(f"{name}: {problem}")
    return 0 if healthy else 1
