"""The files behind dataset splits, by content hash: what a compile or a training read."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path

from filingqa.datasets.registry import parse_spec


def split_hashes(specs: Iterable[str], data_dir: Path | None = None) -> dict[str, dict[str, str]]:
    """``spec -> {file name: sha256}`` of the files backing each split."""
    from filingqa.core.config import data_dir as resolve

    root = resolve(data_dir)
    out: dict[str, dict[str, str]] = {}
    for spec in specs:
        loader, split = parse_spec(spec)
        out[spec] = {
            str(path.relative_to(root)): hashlib.sha256(path.read_bytes()).hexdigest()
            for path in loader.files(root, split)
        }
    return out
