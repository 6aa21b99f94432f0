"""The ``filingqa`` command line: one module per command (ask, eval, models, data, judge,
index, compile, serve), each adding its parser and handler; :func:`main` parses and dispatches."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from pydantic import ValidationError

from filingqa import __version__
from filingqa.cli import ask, compile, data, eval, index, judge, models, serve
from filingqa.core.config import ConfigError

COMMANDS = (ask, eval, models, data, judge, index, compile, serve)
"""The commands, in the order ``filingqa --help`` lists them; each module adds its parser
(``add_parser``) and sets the handler its arguments run."""


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
    for command in COMMANDS:
        command.add_parser(commands)
    return parser


if __name__ == "__main__":
    sys.exit(main())
