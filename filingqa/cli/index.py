"""``filingqa index``: filings or a dataset's documents ingested into the hybrid index."""

from __future__ import annotations

import argparse
from pathlib import Path

from filingqa.cli.options import Commands


def add_parser(commands: Commands) -> None:
    """Add the command's parser to ``commands``, its handler set."""
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
    index.add_argument(
        "--embedder",
        help="embedding model: a fastembed name, or litellm:<model> for a remote one (default: "
        "the index's own, or the offline all-MiniLM-L6-v2 for a new index); passages are cut "
        "to fit its window, counted by its tokenizer",
    )
    index.add_argument(
        "--program",
        type=Path,
        help="a compiled artifact: embed with the encoder its compile fine-tuned",
    )
    index.add_argument("--data-dir", help="evaluation data dir (default: $FILINGQA_DATA_DIR)")
    index.add_argument("--quiet", action="store_true", help="no progress bars")
    index.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    from filingqa.evaluation.corpora import dataset_corpus, dataset_index_name
    from filingqa.retrieval.index.build import build_index, format_report
    from filingqa.retrieval.index.embedder import Embedder
    from filingqa.retrieval.index.locations import default_index_dir
    from filingqa.retrieval.index.passage_index import stored_embedder

    if bool(args.paths) == bool(args.dataset):
        raise ValueError("give files or folders to index, or --dataset, not both")
    default = default_index_dir(dataset_index_name(args.dataset) if args.dataset else "default")
    location = args.qdrant_url or args.index or default
    if args.program and args.embedder:
        raise ValueError("give --embedder or --program, not both")
    chosen = str(_artifact_encoder(args.program)) if args.program else args.embedder
    embedder = Embedder.load(chosen or stored_embedder(location))
    report = build_index(
        location,
        paths=args.paths,
        corpus=dataset_corpus(args.dataset, args.data_dir) if args.dataset else None,
        progress=not args.quiet,
        embedder=embedder,
    )
    print(format_report(report))
    return 1 if report.failures else 0


def _artifact_encoder(program: Path) -> Path:
    """The encoder the compiled artifact ``program`` fine-tuned.

    Raises:
        ValueError: its compile trained none.
    """
    from filingqa.artifacts.compiled import artifact_encoder

    folder = artifact_encoder(program)
    if folder is None:
        raise ValueError(
            f"{program}: its compile trained no encoder (compiled without --encoder or "
            "without the train extra); index without --program"
        )
    return folder
