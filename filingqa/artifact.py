"""``filingqa.load``: a compiled artifact as a ready :class:`FinancialQA`.

(Not ``filingqa/load.py``: importing a submodule named ``load`` would replace the
``filingqa.load`` function with the module.)
"""

from __future__ import annotations

import warnings
from pathlib import Path

import dspy

from filingqa.artifacts.compiled import read_program
from filingqa.artifacts.manifest import Manifest
from filingqa.lm.backbone import configure
from filingqa.program.financial_qa import FinancialQA


class BackboneMismatch(UserWarning):
    """The artifact runs with another backbone than it was compiled for."""


def load(
    path: str | Path,
    lm: str | dspy.BaseLM | None = None,
    *,
    api_base: str | None = None,
) -> FinancialQA:
    """The compiled program in ``path`` with its structure, router (or the structure's loop
    policy) and worked examples, ready to call.

    ``lm`` (a backbone string or a ``dspy.LM``) replaces the backbone the artifact was
    compiled for, with a :class:`BackboneMismatch` warning when they differ; without it the
    artifact's own backbone is loaded. The backbone becomes DSPy's default LM with the
    adapter it parses best with. The returned program carries ``manifest`` and, when the
    artifact has one, ``reranker`` (a :class:`~filingqa.retrieval.search.rerank.Reranker` for the
    search pipeline).

    Raises:
        FileNotFoundError: ``path`` is not a compiled artifact.
        filingqa.artifacts.manifest.UnsupportedArtifact: an unknown format version.
        ValueError: the manifest or the program state does not match this filingqa.
    """
    qa = read_program(path)
    configure(_backbone(qa.manifest, lm, api_base))
    return qa


def _serves(name: str, backbone: str) -> bool:
    """Whether ``name`` is the compiled-for embedded model behind a llama.cpp server
    (``local@<url>`` for ``local``); the server's file cannot be checked from here."""
    from filingqa.lm.backbone import LOCAL, served_url

    return backbone == LOCAL and served_url(name) is not None


def _backbone(manifest: Manifest, lm: str | dspy.BaseLM | None, api_base: str | None):
    """The LM to run with, warning when it is not the one compiled for."""
    from filingqa.lm.backbone import get_lm

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
