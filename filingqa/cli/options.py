"""Argument types and options the commands share: the backbone, the remote rerank stage,
counts, p-values, ``KEY=VALUE`` pairs and comma lists."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, TypeAlias

if TYPE_CHECKING:
    from filingqa.lm.backbone import Backbone

Commands: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"
"""The subcommands a command module adds its parser to."""


def add_lm_options(parser: argparse.ArgumentParser) -> None:
    """Add ``--lm`` (the backbone) and ``--api-base`` to ``parser``."""
    parser.add_argument(
        "--lm",
        default="local",
        help="backbone: 'local' (embedded Qwen2.5-Coder-1.5B), 'local:<path.gguf>', "
        "'local@<url>' (the same model on a llama.cpp server, e.g. http://127.0.0.1:8000/v1), "
        "or a litellm model string such as openai/gpt-4o-mini (default: local)",
    )
    parser.add_argument("--api-base", help="base URL of an OpenAI-compatible server")


def backbone_of(args: argparse.Namespace) -> Backbone:
    """``--lm`` with ``--api-base``, parsed once for the command to pass down."""
    from filingqa.lm.backbone import Backbone

    return Backbone.parse(args.lm, args.api_base)


def add_program_options(parser: argparse.ArgumentParser) -> None:
    """Add ``--program`` (a compiled artifact) and ``--uncompiled``, one or the other."""
    which = parser.add_mutually_exclusive_group()
    which.add_argument(
        "--program",
        type=Path,
        metavar="DIR",
        help="answer with this compiled artifact's program (its structure, prompts and worked "
        "examples); default: the shipped artifact compiled for --lm (artifacts/qwen-local for "
        "local), else the uncompiled program",
    )
    which.add_argument(
        "--uncompiled",
        action="store_true",
        help="answer with the uncompiled program, not the shipped compiled one",
    )


def add_rerank_options(parser: argparse.ArgumentParser) -> None:
    """Add ``--rerank-model`` and ``--rerank-api-base`` (the remote rerank stage)."""
    parser.add_argument(
        "--rerank-model",
        metavar="SPEC",
        help="a remote rerank model that orders the first candidates last: a litellm rerank "
        "model (cohere/rerank-v3.5, voyage/rerank-2, jina_ai/...) or hosted_vllm/<name> for an "
        "OpenAI-compatible server's /v1/rerank (default: off)",
    )
    parser.add_argument(
        "--rerank-api-base",
        metavar="URL",
        help="its API base, e.g. http://127.0.0.1:8080/v1 (default: $FILINGQA_RERANK_API_BASE, "
        "else the provider's)",
    )


def rerank_settings(args: argparse.Namespace) -> dict[str, str | None]:
    """The ``SearchSettings`` changes ``--rerank-model`` and ``--rerank-api-base`` ask for
    ({} when off)."""
    if args.rerank_api_base and not args.rerank_model:
        raise ValueError("--rerank-api-base goes with --rerank-model")
    if not args.rerank_model:
        return {}
    return {"remote_rerank": args.rerank_model, "remote_rerank_api_base": args.rerank_api_base}


def positive_int(text: str) -> int:
    """An integer of at least 1."""
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def p_value(text: str) -> float:
    """A p-value above 0 and at most 1."""
    value = float(text)
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"must be above 0 and at most 1, got {value:g}")
    return value


def key_value(text: str) -> tuple[str, str]:
    """``KEY=VALUE`` as a pair."""
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    return key, value


def comma_list(text: str) -> list[str]:
    """The non-empty items of a comma-separated list."""
    return [item.strip() for item in text.split(",") if item.strip()]
