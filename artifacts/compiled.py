"""A compiled artifact as a program: read into a
:class:`~filingqa.program.financial_qa.FinancialQA` (its manifest, program state, structure,
router, worked examples and reranker) without touching the LM (:func:`read_program`), or
loaded ready to call with its backbone as DSPy's LM (:func:`load`, ``filingqa.load``); and
the program a backbone answers with when no artifact is named (:func:`choose_program`)."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import dspy
from pydantic import ValidationError

from filingqa.artifacts.manifest import RERANKER_DIR, ROUTER_DIR, Manifest, read_manifest
from filingqa.artifacts.shipped import (
    UNCOMPILED,
    compiled_for,
    how_to_compile,
    shipped_artifact_for,
    shipped_artifacts,
)
from filingqa.artifacts.worked_examples import PoolFile, read_pool
from filingqa.core.config import ConfigError
from filingqa.lm.backbone import LOCAL, Backbone, configure, get_lm
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


class NoCompiledProgram(UserWarning):
    """No shipped artifact was compiled for the backbone: the uncompiled program answers."""


@dataclass(frozen=True)
class ProgramChoice:
    """The program to answer with (None: the uncompiled one) and its name (the artifact's,
    else ``uncompiled``); ``note`` is the line to show when the backbone has no shipped
    artifact (how to compile one), None otherwise."""

    program: FinancialQA | None
    name: str
    note: str | None = None


def choose_program(
    given: Backbone, program: Path | None = None, *, uncompiled: bool = False
) -> ProgramChoice:
    """What ``given`` answers with: the artifact in ``program`` when given, the uncompiled
    program when ``uncompiled``, else the shipped artifact compiled for ``given``, else the
    uncompiled program with a note on how to compile one.

    Raises:
        ValueError: both ``program`` and ``uncompiled``; the errors of :func:`read_program`.
    """
    if program is not None and uncompiled:
        raise ValueError("--program and --uncompiled name two programs: give one")
    if uncompiled:
        return ProgramChoice(None, UNCOMPILED)
    directory = program or shipped_artifact_for(given)
    if directory is None:
        return ProgramChoice(None, UNCOMPILED, note=how_to_compile(given.spec))
    qa = read_program(directory)
    return ProgramChoice(qa, qa.manifest.name)


def load(
    path: str | Path | None = None,
    lm: str | Backbone | dspy.BaseLM | None = None,
    *,
    api_base: str | None = None,
) -> FinancialQA:
    """The compiled program in ``path`` with its structure, router (or the structure's loop
    policy) and worked examples, ready to call.

    Without ``path``, the shipped artifact compiled for ``lm`` (default: the embedded
    model); when none was, the uncompiled program with ``lm``, and a
    :class:`NoCompiledProgram` warning saying how to compile one. ``lm`` (a backbone string,
    a parsed :class:`~filingqa.lm.backbone.Backbone` or a ``dspy.LM``) replaces the backbone
    the artifact was compiled for, with a :class:`BackboneMismatch` warning when they
    differ; without it the artifact's own backbone is loaded. ``api_base`` goes with a
    backbone string (the given one, else the artifact's). The backbone becomes DSPy's
    default LM with the adapter it parses best with. The returned program carries
    ``manifest`` (none when uncompiled) and, when the artifact has one, ``reranker`` (a
    :class:`~filingqa.retrieval.search.rerank.Reranker` for the search pipeline) and
    ``search_settings``, the ``SearchSettings`` changes it searches with (its remote rerank
    stage, say; {} for none).

    Raises:
        FileNotFoundError: ``path`` is not a compiled artifact.
        filingqa.artifacts.manifest.UnsupportedArtifact: an unknown format version.
        ValueError: the manifest or the program state does not match this filingqa.
    """
    directory = Path(path) if path is not None else _shipped_for(lm, api_base)
    if directory is None:
        if isinstance(lm, dspy.BaseLM):
            chosen, name = lm, _lm_name(lm)
        else:
            given = _given(lm, api_base)
            chosen, name = get_lm(given), given.spec
        warnings.warn(how_to_compile(name), NoCompiledProgram, stacklevel=2)
        configure(chosen)
        return FinancialQA()
    qa = read_program(directory)
    configure(_backbone(qa.manifest, lm, api_base))
    return qa


def _given(lm: str | Backbone | None, api_base: str | None) -> Backbone:
    """``lm`` as a backbone (default: the embedded model)."""
    return lm if isinstance(lm, Backbone) else Backbone.parse(lm or LOCAL, api_base)


def _shipped_for(lm: str | Backbone | dspy.BaseLM | None, api_base: str | None) -> Path | None:
    """The shipped artifact compiled for ``lm``, None when none was."""
    if isinstance(lm, dspy.BaseLM):
        return next((d for d in shipped_artifacts() if _runs(read_manifest(d), lm)), None)
    return shipped_artifact_for(_given(lm, api_base))


def _runs(manifest: Manifest, lm: dspy.BaseLM) -> bool:
    """Whether ``lm`` is the model ``manifest`` was compiled for, by its model name."""
    return getattr(lm, "model", None) in (manifest.backbone, manifest.lm_model)


def _lm_name(lm: dspy.BaseLM) -> str:
    """The model ``lm`` runs, as the manifest names models."""
    return str(getattr(lm, "model", type(lm).__name__))


def _backbone(
    manifest: Manifest, lm: str | Backbone | dspy.BaseLM | None, api_base: str | None
) -> dspy.BaseLM:
    """The LM to run with, warning when it is not the one compiled for."""
    if lm is None:
        return get_lm(Backbone.parse(manifest.backbone, api_base))
    if isinstance(lm, dspy.BaseLM):
        chosen, name, same = lm, _lm_name(lm), False
    else:
        given = _given(lm, api_base)
        chosen, name, same = get_lm(given), given.spec, compiled_for(manifest, given)
    if not (same or _runs(manifest, chosen)):
        warnings.warn(
            f"{manifest.name} was compiled for {manifest.backbone} ({manifest.lm_model}); "
            f"running it with {name}: its demos and instructions may not transfer — "
            "compile for this backbone with `filingqa compile`",
            BackboneMismatch,
            stacklevel=3,
        )
    return chosen
