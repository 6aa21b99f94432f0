"""A compiled artifact as a program: read into a
:class:`~filingqa.program.financial_qa.FinancialQA` (its manifest, program state, structure,
router, worked examples and reranker) without touching the LM (:func:`read_program`), or
loaded ready to call with its backbone as DSPy's LM (:func:`load`, ``filingqa.load``)."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from pathlib import Path

import dspy
from pydantic import ValidationError

from filingqa.artifacts.manifest import RERANKER_DIR, ROUTER_DIR, Manifest, read_manifest
from filingqa.artifacts.worked_examples import PoolFile, read_pool
from filingqa.core.config import ConfigError
from filingqa.lm.backbone import Backbone, configure, get_lm
from filingqa.models.embedding import install_tuned_encoder, read_tuned_encoder
from filingqa.models.store import ModelNotReady
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
    LM is. The compile's fine-tuned encoder, if any, is installed into the model store
    (:func:`artifact_encoder`). Worked examples are read back from the data dir; without it
    (or with other data files) the program runs without them, with a
    :class:`WorkedExamplesUnavailable` warning.

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
    qa.search_settings = dict(manifest.search)
    reranker = read_reranker(directory)
    if reranker is not None:
        qa.reranker = reranker
    artifact_encoder(directory, manifest)
    return qa


def artifact_encoder(directory: Path, manifest: Manifest | None = None) -> Path | None:
    """The store folder of the encoder the compile in ``directory`` fine-tuned, installed
    there from the artifact (so an index embedded by it embeds its queries with it); None
    when the compile trained none.

    Raises:
        ModelNotReady: the artifact's encoder is missing or not the one its manifest pins.
    """
    manifest = manifest or _manifest(directory)
    if manifest.encoder is None:
        return None
    folder = directory / manifest.encoder["dir"]
    if read_tuned_encoder(folder).model.sha256 != manifest.encoder["sha256"]:
        raise ModelNotReady(f"{folder}: not the encoder {directory / 'manifest.json'} pins")
    return install_tuned_encoder(folder)


def read_reranker(directory: Path) -> Reranker | None:
    """The artifact's trained reranker, None when the compile trained none."""
    reranker_dir = directory / RERANKER_DIR
    return Reranker.load(reranker_dir) if (reranker_dir / "model.txt").exists() else None


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


class BackboneMismatch(UserWarning):
    """The artifact runs with another backbone than it was compiled for."""


def load(
    path: str | Path,
    lm: str | Backbone | dspy.BaseLM | None = None,
    *,
    api_base: str | None = None,
) -> FinancialQA:
    """The compiled program in ``path`` with its structure, router (or the structure's loop
    policy) and worked examples, ready to call.

    ``lm`` (a backbone string, a parsed :class:`~filingqa.lm.backbone.Backbone` or a
    ``dspy.LM``) replaces the backbone the artifact was compiled for, with a
    :class:`BackboneMismatch` warning when they differ; without it the artifact's own
    backbone is loaded. ``api_base`` goes with a backbone string (the given one, else the
    artifact's). The backbone becomes DSPy's default LM with the adapter it parses best
    with. The returned program carries ``manifest`` and, when the artifact has one,
    ``reranker`` (a :class:`~filingqa.retrieval.search.rerank.Reranker` for the search
    pipeline) and ``search_settings``, the ``SearchSettings`` changes it searches with (its
    remote rerank stage, say; {} for none).

    Raises:
        FileNotFoundError: ``path`` is not a compiled artifact.
        filingqa.artifacts.manifest.UnsupportedArtifact: an unknown format version.
        ValueError: the manifest or the program state does not match this filingqa.
    """
    qa = read_program(path)
    configure(_backbone(qa.manifest, lm, api_base))
    return qa


def _serves(given: Backbone, compiled_for: Backbone) -> bool:
    """Whether ``given`` is the compiled-for embedded model behind a llama.cpp server
    (``local@<url>`` for ``local``); the server's file cannot be checked from here."""
    return compiled_for.kind == "embedded" and given.kind == "served"


def _backbone(
    manifest: Manifest, lm: str | Backbone | dspy.BaseLM | None, api_base: str | None
) -> dspy.BaseLM:
    """The LM to run with, warning when it is not the one compiled for."""
    compiled_for = Backbone.parse(manifest.backbone, api_base)
    if lm is None:
        return get_lm(compiled_for)
    if isinstance(lm, dspy.BaseLM):
        chosen, name, serves = lm, str(getattr(lm, "model", type(lm).__name__)), False
    else:
        given = Backbone.parse(lm, api_base) if isinstance(lm, str) else lm
        chosen, name, serves = get_lm(given), given.spec, _serves(given, compiled_for)
    same = name == manifest.backbone or getattr(chosen, "model", None) == manifest.lm_model
    if not (same or serves):
        warnings.warn(
            f"{manifest.name} was compiled for {manifest.backbone} ({manifest.lm_model}); "
            f"running it with {name}: its demos and instructions may not transfer — "
            "compile for this backbone with `filingqa compile`",
            BackboneMismatch,
            stacklevel=3,
        )
    return chosen
