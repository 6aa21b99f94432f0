"""A compiled artifact read into a :class:`~filingqa.program.financial_qa.FinancialQA`: its
manifest, program state, router and reranker, without touching the LM."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from pathlib import Path

from pydantic import ValidationError

from filingqa.artifacts.manifest import RERANKER_DIR, ROUTER_DIR, Manifest, read_manifest
from filingqa.artifacts.worked_examples import PoolFile, read_pool
from filingqa.core.config import ConfigError
from filingqa.program.financial_qa import FinancialQA
from filingqa.program.worked_examples import WorkedExamples
from filingqa.retrieval.search.rerank import Reranker
from filingqa.router.lightgbm_router import LightGBMRouter
from filingqa.router.rule import RoutingDecision, loop_router


class WorkedExamplesUnavailable(UserWarning):
    """The artifact's worked examples cannot be read back: it runs without them."""


def read_program(path: str | Path) -> FinancialQA:
    """The compiled program in ``path`` (state, structure, router, worked examples,
    reranker, ``manifest``) without touching the LM: it runs with whatever DSPy's current
    LM is. Worked examples are read back from the data dir; without it (or with other data
    files) the program runs without them, with a :class:`WorkedExamplesUnavailable` warning.

    Raises:
        the same errors as :func:`load`.
    """
    directory = Path(path)
    manifest = _manifest(directory)
    qa = FinancialQA(
        **manifest.program_options,
        router=_router(directory, manifest),
        worked_examples=_worked_examples(directory, manifest),
    )
    try:
        qa.load(str(directory / manifest.program_file))
    except KeyError as missing:
        raise ValueError(
            f"{directory}: the compiled program state lacks {missing}; it was compiled by "
            "another version of FinancialQA: recompile"
        ) from None
    qa.manifest = manifest
    reranker_dir = directory / RERANKER_DIR
    if (reranker_dir / "model.txt").exists():
        qa.reranker = Reranker.load(reranker_dir)
    return qa


def read_router(directory: Path) -> LightGBMRouter | None:
    """The artifact's trained router, None when the compile trained none."""
    router_dir = directory / ROUTER_DIR
    return LightGBMRouter.load(router_dir) if (router_dir / "model.txt").exists() else None


def _router(directory: Path, manifest: Manifest) -> Callable[[str], RoutingDecision]:
    """The trained router when the artifact routes with it, else its loop policy's."""
    router = read_router(directory) if manifest.use_router else None
    return router or loop_router(manifest.loop or "rule")


def _worked_examples(directory: Path, manifest: Manifest) -> WorkedExamples | None:
    """The artifact's worked examples read back from the data dir (None without a pool;
    a warning and None when the data dir cannot give them)."""
    if manifest.worked_examples is None:
        return None
    try:
        return read_pool(PoolFile.read(directory / manifest.worked_examples))
    except ConfigError as problem:  # no data dir, or other files in it
        warnings.warn(
            f"{directory}: running without its worked examples ({problem})",
            WorkedExamplesUnavailable,
            stacklevel=3,
        )
        return None


def _manifest(directory: Path) -> Manifest:
    """The artifact's validated manifest, a one-line error when it does not validate."""
    try:
        return read_manifest(directory)
    except ValidationError as problem:
        first = problem.errors()[0]
        raise ValueError(
            f"{directory}: invalid manifest.json ({'.'.join(map(str, first['loc']))}: "
            f"{first['msg']})"
        ) from None
