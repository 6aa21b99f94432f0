"""``filingqa serve``: the HTTP API and the web page over one index."""

from __future__ import annotations

import argparse
from pathlib import Path

from filingqa.cli.options import (
    Commands,
    add_lm_options,
    add_program_options,
    add_rerank_options,
    positive_int,
    rerank_settings,
)


def add_parser(commands: Commands) -> None:
    """Add the command's parser to ``commands``, its handler set."""
    serve = commands.add_parser(
        "serve", help="answer over HTTP: an API and a web page showing the cited page"
    )
    serve.add_argument(
        "--index",
        metavar="NAME|DIR",
        help="the index to answer from and upload to: a directory, or a name under "
        "FILINGQA_HOME/indexes (default: 'default'; created from the bundled sample filing "
        "when it does not exist yet)",
    )
    add_lm_options(serve)
    add_rerank_options(serve)
    add_program_options(serve)
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (loopback)")
    serve.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    serve.add_argument(
        "--workers",
        type=positive_int,
        default=1,
        help="questions answered at once (a hosted backbone; the embedded model answers one)",
    )
    serve.add_argument(
        "--queue", type=int, default=8, help="questions waiting beyond the workers (default 8)"
    )
    serve.add_argument(
        "--cors-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="a web origin allowed to call the API from a browser (repeatable; none by default)",
    )
    serve.add_argument(
        "--max-upload-mb", type=positive_int, default=50, help="upload size limit (default 50)"
    )
    serve.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    from filingqa.server.run import serve
    from filingqa.server.settings import ServerSettings

    settings = ServerSettings.from_environment(
        index=_index_dir(args.index),
        lm=args.lm,
        api_base=args.api_base,
        program=args.program,
        uncompiled=args.uncompiled,
        host=args.host,
        port=args.port,
        workers=args.workers,
        queue=args.queue,
        cors_origins=tuple(args.cors_origin),
        max_upload_bytes=args.max_upload_mb * 1024 * 1024,
        search=rerank_settings(args),
    )
    serve(settings)
    return 0


def _index_dir(name_or_dir: str | None) -> Path:
    from filingqa.ask import DEFAULT_INDEX
    from filingqa.retrieval.index.locations import default_index_dir

    name = name_or_dir or DEFAULT_INDEX
    named = not Path(name).is_dir() and len(Path(name).parts) == 1
    return default_index_dir(name) if named else Path(name)
