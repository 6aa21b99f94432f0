"""On-disk caches under the filingqa home: diskcache stores and DSPy's LM cache."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from contextlib import contextmanager

import diskcache

from filingqa.core.config import cache_dir


def disk_cache(name: str) -> diskcache.Cache:
    """A named diskcache store under ``<home>/cache/<name>``, one per directory per process.

    The home is read on every call, so a changed ``FILINGQA_HOME`` gets its own store.
    """
    return _store(str(cache_dir() / name))


@functools.cache
def _store(directory: str) -> diskcache.Cache:
    return diskcache.Cache(directory)


def configure_dspy_cache() -> None:
    """Point DSPy's LM response cache at ``<home>/cache/dspy`` (memory + disk)."""
    import dspy

    dspy.configure_cache(
        enable_disk_cache=True,
        enable_memory_cache=True,
        disk_cache_dir=str(cache_dir() / "dspy"),
    )


def use_fresh_dspy_cache() -> None:
    """Replace DSPy's LM response cache with an empty in-memory one for this process:
    replies from earlier runs are not reused, repeats within this run still are."""
    import dspy

    dspy.configure_cache(enable_disk_cache=False, enable_memory_cache=True)


@contextmanager
def fresh_dspy_cache() -> Iterator[None]:
    """Inside the block, an empty in-memory LM response cache (what the block asks costs
    its real time); the cache before it is back afterwards."""
    import dspy

    previous = dspy.cache
    use_fresh_dspy_cache()
    try:
        yield
    finally:
        with dspy._cache_lock:
            dspy.cache = previous
