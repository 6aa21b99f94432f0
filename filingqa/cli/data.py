"""``filingqa data``: the evaluation datasets present in the data dir."""

from __future__ import annotations

import argparse

from filingqa.cli.options import Commands


def add_parser(commands: Commands) -> None:
    """Add the command's parser to ``commands``, its handler set."""
    data = commands.add_parser("data", help="inspect the evaluation data dir")
    actions = data.add_subparsers(title="actions", required=True, metavar="ACTION")
    listing = actions.add_parser("list", help="list the datasets present, with counts")
    listing.add_argument("--data-dir", help="evaluation data dir (default: $FILINGQA_DATA_DIR)")
    listing.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    from filingqa.core.config import data_dir
    from filingqa.datasets import available_datasets, format_table

    print(format_table(available_datasets(data_dir(args.data_dir))))
    return 0
