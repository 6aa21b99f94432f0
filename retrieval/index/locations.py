"""Where indexes live: a named index under the filingqa home, the state (metadata, ledger)
of an index at a directory or a Qdrant URL, and whether an index has been built."""

from __future__ import annotations

import re
from pathlib import Path

from filingqa.core.config import home_dir
from filingqa.retrieval.index.edge_store import META_FILE

_REMOTE = re.compile(r"^https?://")


class IndexMissingError(FileNotFoundError):
    """The index a retrieved-context setting needs has not been built."""


def index_built(directory: Path) -> bool:
    """Whether ``filingqa index`` has built an index in ``directory``."""
    return (directory / META_FILE).is_file()


def default_index_dir(name: str = "default") -> Path:
    """Where a named index lives by default: ``<FILINGQA_HOME>/indexes/<name>``."""
    return home_dir() / "indexes" / name


def state_dir_for(location: str | Path) -> Path | None:
    """Where an index's metadata and ledger live: the index directory itself; for a Qdrant
    URL, ``<FILINGQA_HOME>/indexes/<host-port-path>``; None for ``":memory:"``."""
    text = str(location)
    if text == ":memory:":
        return None
    if _REMOTE.match(text):
        return default_index_dir(re.sub(r"[^A-Za-z0-9.]+", "-", _REMOTE.sub("", text)).strip("-"))
    return Path(location)
