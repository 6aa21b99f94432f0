"""``manifest.json`` of a compiled artifact: what was compiled, for which backbone, on
which data, how well, at what cost. Written by ``filingqa compile``, validated by
:func:`filingqa.load`. Never holds secrets: URLs lose credentials and query strings, and
any value of a secret-looking environment variable is scrubbed before writing.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit, urlunsplit

from pydantic import BaseModel, ConfigDict, Field

from filingqa.lm.backbone import ModelFile
from filingqa.router.rule import LoopPolicy

FORMAT_VERSION = 1
MANIFEST_FILE = "manifest.json"
PROGRAM_FILE = "program.json"
ROUTER_DIR = "router"
RERANKER_DIR = "reranker"
REDACTED = "<redacted>"
_SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL", re.IGNORECASE)
_MIN_SECRET_CHARS = 8


__all__ = [
    "DataSplit",
    "Manifest",
    "ModelFile",
    "Scores",
    "Selection",
    "UnsupportedArtifact",
    "read_manifest",
    "redact_url",
    "scrub",
    "write_manifest",
]


class UnsupportedArtifact(ValueError):
    """The artifact's format version is not one this filingqa reads."""


class Scores(BaseModel):
    """Dev accuracy (strict judge) and mean cost per question."""

    questions: int
    accuracy: float
    lm_calls: float
    seconds: float


class DataSplit(BaseModel):
    """One drawn split: its specs, question count, id hash and backing file hashes."""

    specs: list[str]
    questions: int
    ids_sha256: str
    files: dict[str, dict[str, str]]


Kept = Literal["compiled", "uncompiled"]


class Confirmation(BaseModel):
    """A candidate chosen over a start, and the start, on a confirmation draw (questions
    sharing no context with those it was chosen on): accuracy and cold seconds per question
    of each, the candidate's paired wins and losses, and the one kept — the cheaper of the
    two (the more accurate at the same cost) unless the one-sided sign test tells the
    costlier one better."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    start: str
    candidate: str
    kept: str
    questions: int
    wins: int
    """Questions the candidate gets right and the start wrong."""
    losses: int
    """Questions the start gets right and the candidate wrong."""
    accuracy: dict[str, float]
    seconds: dict[str, float]
    """Seconds per question, priced cold (a request the start made is priced at its own)."""

    @property
    def held(self) -> bool:
        """Whether the candidate is kept."""
        return self.kept == self.candidate

    def describe(self) -> str:
        """One clause for a terminal."""
        new, old = self.candidate, self.start
        return (
            f"confirmation ({self.questions} other questions): {new} "
            f"{self.accuracy[new]:.0%} at {self.seconds[new]:.1f} s/q vs {old} "
            f"{self.accuracy[old]:.0%} at {self.seconds[old]:.1f} s/q, wins {self.wins}, "
            f"loses {self.losses}: keeps the {self.kept}"
        )


class Selection(BaseModel):
    """Which program the artifact keeps, with the paired dev evidence for it and, when the
    compiled program won dev or cost less there without losing, its confirmation on other
    questions."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kept: Kept
    wins: int
    """Dev questions the compiled program gets right and the uncompiled one wrong."""
    losses: int
    """Dev questions the uncompiled program gets right and the compiled one wrong."""
    p_value: float
    """One-sided sign test over the ``wins + losses`` questions where the two differ."""
    max_p_value: float
    seconds: dict[str, float] = Field(default_factory=dict)
    """Dev seconds per question of each program, priced cold (empty: an artifact compiled
    before they were recorded)."""
    confirmation: Confirmation | None = None
    """None: the compiled program neither won dev nor cost less there, or the compile drew
    no confirmation questions."""

    @property
    def won_dev(self) -> bool:
        """Whether the compiled program beat the uncompiled one on dev."""
        return self.wins > self.losses and self.p_value <= self.max_p_value

    def describe(self) -> str:
        """One line for a terminal."""
        cost = (
            f" at {self.seconds['compiled']:.1f} vs {self.seconds['uncompiled']:.1f} s/q"
            if self.seconds
            else ""
        )
        dev = (
            f"compiled wins {self.wins}, loses {self.losses} dev questions (sign test "
            f"p = {self.p_value:.3g}, needed ≤ {self.max_p_value:g}){cost}"
        )
        confirmed = f"; {self.confirmation.describe()}" if self.confirmation else ""
        return f"kept the {self.kept} program: {dev}{confirmed}"


class Manifest(BaseModel):
    """Everything about one compiled artifact (see the module docstring)."""

    model_config = ConfigDict(extra="forbid")

    format_version: int = FORMAT_VERSION
    name: str
    created: str
    backbone: str
    lm_model: str
    api_base: str | None = None
    model_file: ModelFile | None = None
    teacher_lm: str | None = None
    versions: dict[str, str]
    optimizer: dict[str, Any]
    program_file: str = PROGRAM_FILE
    program_options: dict[str, Any]
    loop: LoopPolicy | None = None
    """The kept structure's loop policy (None: compiled before structures were searched)."""
    use_router: bool = True
    """Whether ``load`` routes with the trained router (else by ``loop``)."""
    worked_examples: str | None = None
    """The stored pool of worked examples the program is shown, if any."""
    structures: list[dict[str, Any]] = []
    """Every structure the search scored: its options, dev questions, accuracy, LM calls."""
    costs: list[dict[str, Any]] = []
    """The search's finalists and the start on every dev question: accuracy, seconds per
    question priced cold, wins and losses against the most accurate, the cost rule's verdict."""
    open_corpus: dict[str, Any] | None = None
    """The open-corpus stage: its questions and index, every structure's accuracy, cold
    cost, gold pages retrieved and verdict, the structure kept (or why it was skipped)."""
    data: dict[str, DataSplit]
    before: Scores
    after: Scores
    candidates: list[float] = []
    selection: Selection | None = None
    router: dict[str, Any] | None = None
    reranker: dict[str, Any] | None = None
    encoder: dict[str, Any] | None = None
    """The encoder stage: the fine-tuned embedder's folder, name and sha256 (None: not
    trained); ``filingqa index --program`` embeds with it."""
    search: dict[str, Any] = {}
    """``SearchSettings`` changes the program searches with, e.g. the remote rerank stage
    (``remote_rerank``, ``remote_rerank_api_base`` without credentials); :func:`filingqa.load`
    gives them to the program as ``search_settings``."""
    estimate: dict[str, Any]
    lm_calls: dict[str, int]
    """The LM calls of the answers each stage is charged for, by stage."""
    stages: dict[str, dict[str, float]] = {}
    """Each stage's wall seconds and LM calls (judge and page check included) by the clock,
    every run of a resumed compile added; loading and planning as their own stage."""
    wall_seconds: float
    """The compile's wall time by the clock, every run added (a compile written before the
    clock: its stages' answer seconds added up)."""


def redact_url(url: str | None) -> str | None:
    """``url`` without user, password, query string or fragment."""
    if not url:
        return url
    parts = urlsplit(url)
    host = parts.hostname or ""
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def _secret_values() -> list[str]:
    return [
        value
        for name, value in os.environ.items()
        if _SECRET_NAME.search(name) and len(value) >= _MIN_SECRET_CHARS
    ]


def scrub(text: str, secrets: list[str] | None = None) -> str:
    """``text`` with every secret (default: values of secret-looking env vars) replaced."""
    for secret in sorted(secrets if secrets is not None else _secret_values(), key=len)[::-1]:
        text = text.replace(secret, REDACTED)
    return text


def write_manifest(manifest: Manifest, directory: Path) -> Path:
    """Write ``manifest.json`` (scrubbed) into ``directory``; return its path."""
    path = directory / MANIFEST_FILE
    text = json.dumps(manifest.model_dump(mode="json"), indent=2) + "\n"
    path.write_text(scrub(text), encoding="utf-8")
    return path


def read_manifest(directory: Path) -> Manifest:
    """The validated manifest of the artifact in ``directory``.

    Raises:
        FileNotFoundError: ``directory`` holds no manifest.
        UnsupportedArtifact: its format version is not :data:`FORMAT_VERSION`.
        ValueError: the manifest does not validate.
    """
    path = Path(directory) / MANIFEST_FILE
    if not path.is_file():
        raise FileNotFoundError(f"{directory} is not a compiled artifact (no {MANIFEST_FILE})")
    raw = json.loads(path.read_text(encoding="utf-8"))
    version = raw.get("format_version") if isinstance(raw, dict) else None
    if version != FORMAT_VERSION:
        raise UnsupportedArtifact(
            f"{directory}: artifact format version {version!r} is not supported "
            f"(this filingqa reads version {FORMAT_VERSION}); recompile it with "
            "`filingqa compile` or use the filingqa version that wrote it"
        )
    return Manifest.model_validate(raw)
