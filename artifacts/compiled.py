"""A compiled artifact read into a :class:`~filingqa.program.financial_qa.FinancialQA`: its
manifest, program state, router and reranker, without touching the LM."""

from __future__ import annotations

from pathlib import Path

from pydantic import ValidationError

from filingqa.artifacts.manifest import RERANKER_DIR, ROUTER_DIR, Manifest, read_manifest
from filingqa.program.financial_qa import FinancialQA
from filingqa.retrieval.rerank import Reranker
from filingqa.router.lightgbm_router import LightGBMRouter


def read_program(path: str | Path) -> FinancialQA:
    """The compiled program in ``path`` (state, router, reranker, ``manifest``) without
    touching the LM: it runs with whatever DSPy's current LM is.

    Raises:
        the same errors as :func:`load`.
    """
    directory = Path(path)
    manifest = _manifest(directory)
    router_dir = directory / ROUTER_DIR
    router = LightGBMRouter.load(router_dir) if (router_dir / "model.txt").exists() else None
    qa = FinancialQA(**manifest.program_options, **({"router": router} if router else {}))
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
