"""``filingqa.load``: a compiled artifact as a ready :class:`FinancialQA`.

(Not ``filingqa/load.py``: importing a submodule named ``load`` would replace the
``filingqa.load`` function with the module.)
"""

from __future__ import annotations

import warnings
from pathlib import Path

import dspy
from pydantic import ValidationError

from filingqa.optimizers.manifest import RERANKER_DIR, ROUTER_DIR, Manifest, read_manifest
from filingqa.program.financial_qa import FinancialQA
from filingqa.program.lightgbm_router import LightGBMRouter
from filingqa.program.lm import configure
from filingqa.retrieval.rerank import Reranker


class BackboneMismatch(UserWarning):
    """The artifact runs with another backbone than it was compiled for."""


def load(
    path: str | Path,
    lm: str | dspy.BaseLM | None = None,
    *,
    api_base: str | None = None,
) -> FinancialQA:
    """The compiled program in ``path`` with its router, ready to call.

    ``lm`` (a backbone string or a ``dspy.LM``) replaces the backbone the artifact was
    compiled for, with a :class:`BackboneMismatch` warning when they differ; without it the
    artifact's own backbone is loaded. The backbone becomes DSPy's default LM with the
    adapter it parses best with. The returned program carries ``manifest`` and, when the
    artifact has one, ``reranker`` (a :class:`~filingqa.retrieval.rerank.Reranker` for the
    search pipeline).

    Raises:
        FileNotFoundError: ``path`` is not a compiled artifact.
        filingqa.optimizers.manifest.UnsupportedArtifact: an unknown format version.
        ValueError: the manifest or the program state does not match this filingqa.
    """
    qa = read_program(path)
    configure(_backbone(qa.manifest, lm, api_base))
    return qa


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


def _serves(name: str, backbone: str) -> bool:
    """Whether ``name`` is the compiled-for embedded model behind a llama.cpp server
    (``local@<url>`` for ``local``); the server's file cannot be checked from here."""
    from filingqa.program.lm import LOCAL, served_url

    return backbone == LOCAL and served_url(name) is not None


def _backbone(manifest: Manifest, lm: str | dspy.BaseLM | None, api_base: str | None):
    """The LM to run with, warning when it is not the one compiled for."""
    from filingqa.program.lm import get_lm

    if lm is None:
        return get_lm(manifest.backbone, api_base=api_base)
    chosen = get_lm(lm, api_base=api_base) if isinstance(lm, str) else lm
    name = lm if isinstance(lm, str) else str(getattr(lm, "model", type(lm).__name__))
    same = (
        name == manifest.backbone
        or getattr(chosen, "model", None) == manifest.lm_model
        or _serves(name, manifest.backbone)
    )
    if not same:
        warnings.warn(
            f"{manifest.name} was compiled for {manifest.backbone} ({manifest.lm_model}); "
            f"running it with {name}: its demos and instructions may not transfer — "
            "compile for this backbone with `filingqa compile`",
            BackboneMismatch,
            stacklevel=3,
        )
    return chosen
