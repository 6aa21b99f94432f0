"""On-disk caches under the filingqa home: diskcache stores and DSPy's LM cache."""

from __future__ import annotations

import functools

import diskcache

from filingqa.config import cache_dir


@functools.cache
def disk_cache(name: str) -> diskcache.Cache:
    """A named, process-wide diskcache store under ``<home>/cache/<name>``."""
    return diskcache.Cache(str(cache_dir() / name))


def configure_dspy_cache() -> None:
    """Point DSPy's LM response cache at ``<home>/cache/dspy`` (memory + disk)."""
    import dspy

    dspy.configure_cache(
        enable_disk_cache=True,
        enable_memory_cache=True,
        disk_cache_dir=str(cache_dir() / "dspy"),
    )
