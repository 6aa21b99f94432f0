"""Where filingqa keeps its files: the home (model and cache) dir and the data dir."""

from __future__ import annotations

import os
from pathlib import Path

HOME_ENV = "FILINGQA_HOME"
DATA_DIR_ENV = "FILINGQA_DATA_DIR"


class ConfigError(RuntimeError):
    """A setting is missing or points at something that is not there."""


def home_dir() -> Path:
    """The filingqa home: ``$FILINGQA_HOME``, else ``$XDG_CACHE_HOME/filingqa`` (~/.cache)."""
    explicit = os.environ.get(HOME_ENV)
    if explicit:
        return Path(explicit).expanduser()
    cache_root = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(cache_root).expanduser() / "filingqa"


def models_dir() -> Path:
    """Where pulled model files live."""
    return home_dir() / "models"


def cache_dir() -> Path:
    """Where diskcache stores and the DSPy LM cache live."""
    return home_dir() / "cache"


def data_dir(explicit: str | os.PathLike[str] | None = None) -> Path:
    """The evaluation data dir: ``explicit`` (``--data-dir``), else ``$FILINGQA_DATA_DIR``.

    Raises:
        ConfigError: neither is set, or the directory does not exist.
    """
    chosen = explicit or os.environ.get(DATA_DIR_ENV)
    if not chosen:
        raise ConfigError(
            f"no data dir: pass --data-dir or set {DATA_DIR_ENV} "
            "(for example to ../shared/datasets)"
        )
    path = Path(chosen).expanduser()
    if not path.is_dir():
        raise ConfigError(f"data dir {path} does not exist (from --data-dir / {DATA_DIR_ENV})")
    return path
