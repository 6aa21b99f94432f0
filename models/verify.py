"""sha256 verification of model files, remembered per file state so loads stay cheap."""

from __future__ import annotations

import hashlib
from pathlib import Path

from tqdm import tqdm

from filingqa.core.cache import disk_cache
from filingqa.models.registry import PinnedFile

_CHUNK = 8 * 1024 * 1024


class ModelFileError(RuntimeError):
    """A model file is missing or does not match its pinned hash."""


def sha256_of(path: Path, *, progress: bool = False) -> str:
    """The sha256 of a file, streamed in chunks (with a byte progress bar if asked)."""
    digest = hashlib.sha256()
    with (
        path.open("rb") as handle,
        tqdm(
            total=path.stat().st_size,
            unit="B",
            unit_scale=True,
            desc=f"verify {path.name}",
            disable=not progress,
            leave=False,
        ) as bar,
    ):
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
            bar.update(len(chunk))
    return digest.hexdigest()


def pin_of(path: Path) -> PinnedFile:
    """The pin of the file at ``path``: its name, sha256 and size."""
    return PinnedFile(name=path.name, sha256=sha256_of(path), size=path.stat().st_size)


def _state_key(path: Path) -> str:
    stat = path.stat()
    return f"{path.resolve()}|{stat.st_size}|{stat.st_mtime_ns}|{stat.st_ino}"


def verify_file(path: Path, pinned: PinnedFile, *, progress: bool = False) -> None:
    """Check ``path`` against ``pinned``; the hash is recomputed only when the file changed.

    Raises:
        ModelFileError: the file is missing, has the wrong size, or the wrong sha256.
    """
    if not path.is_file():
        raise ModelFileError(f"{pinned.name} is missing at {path}")
    size = path.stat().st_size
    if size != pinned.size:
        raise ModelFileError(f"{path} has {size:,} bytes, expected {pinned.size:,}")
    verified = disk_cache("verified-files")
    key = _state_key(path)
    if verified.get(key) == pinned.sha256:
        return
    actual = sha256_of(path, progress=progress)
    if actual != pinned.sha256:
        raise ModelFileError(f"{path} has sha256 {actual}, expected {pinned.sha256}")
    verified.set(key, pinned.sha256)
