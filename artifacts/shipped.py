"""The compiled artifacts filingqa ships, and which of them a backbone answers with when no
artifact is named: the one whose manifest names that backbone, else none (the uncompiled
program, with a line saying how to compile one)."""

from __future__ import annotations

from pathlib import Path

from filingqa.artifacts.manifest import MANIFEST_FILE, Manifest, read_manifest
from filingqa.lm.backbone import Backbone

SHIPPED_DIR = Path(__file__).resolve().parent
"""Where the shipped artifacts lie: one folder each, beside this module (package data)."""
UNCOMPILED = "uncompiled"
"""What an answer says answered it when no compiled artifact did."""


def shipped_artifacts() -> list[Path]:
    """The shipped artifact folders (those holding a manifest), by name."""
    return sorted(p for p in SHIPPED_DIR.iterdir() if (p / MANIFEST_FILE).is_file())


def compiled_for(manifest: Manifest, given: Backbone) -> bool:
    """Whether ``given`` is the backbone ``manifest`` was compiled for: the same ``--lm``
    string, or the compiled-for embedded model behind a llama.cpp server (``local@<url>``
    for ``local``; the server's model file cannot be checked from here)."""
    compiled = Backbone.parse(manifest.backbone)
    return given.spec == manifest.backbone or (
        compiled.kind == "embedded" and given.kind == "served"
    )


def shipped_artifact_for(given: Backbone) -> Path | None:
    """The shipped artifact compiled for ``given``, None when none was.

    Raises:
        ValueError: a shipped manifest does not validate (an install or packaging fault).
    """
    return next(
        (d for d in shipped_artifacts() if compiled_for(read_manifest(d), given)),
        None,
    )


def how_to_compile(backbone: str) -> str:
    """The line saying no shipped artifact was compiled for ``backbone`` (as ``--lm`` takes
    it), and how to get one."""
    return (
        f"no shipped program is compiled for {backbone}: answering with the uncompiled one; "
        f"compile one with `filingqa compile --lm {backbone} --out DIR` and answer with "
        "`--program DIR`"
    )


def program_name(program: object) -> str:
    """The name of the artifact ``program`` was read from, else :data:`UNCOMPILED`."""
    manifest: Manifest | None = getattr(program, "manifest", None)
    return manifest.name if manifest is not None else UNCOMPILED


def program_label(name: str) -> str:
    """A program's name as answers show it: ``qwen-local (compiled)``, or ``uncompiled``."""
    return name if name == UNCOMPILED else f"{name} (compiled)"
