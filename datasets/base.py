"""What a dataset loader is, how splits are found on disk, and the loading errors."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from filingqa.core.config import ConfigError
from filingqa.records.qa_record import QARecord

SPLIT_NAME = r"[A-Za-z0-9_-]+"

Reader = Callable[[Path, str, Path], Iterator[QARecord]]
"""Yields the records of one file: ``(file, split, data_dir)``."""


class DatasetError(ConfigError):
    """A dataset spec cannot be resolved to data on disk."""


class DatasetSpecError(DatasetError):
    """The spec is not of the form ``name:split``."""


class UnknownDatasetError(DatasetError):
    """No loader has that dataset name."""


class SplitNotFoundError(DatasetError):
    """No file backs the requested split."""


class AmbiguousSplitError(DatasetError):
    """More than one file format backs the requested split."""


class DatasetFormatError(DatasetError):
    """A file backing the split does not have the dataset's format."""


@dataclass(frozen=True)
class DatasetLoader:
    """How to find and read one dataset's splits under the data dir.

    ``patterns`` are file paths relative to the data dir with a ``{split}`` placeholder;
    every file matching one of them is a split, so new split files need no code. With
    ``group_splits``, files named ``<part>_<group>`` also form the split ``<group>`` (the
    union of its parts) unless a file of that name exists. ``not_splits`` are names
    that match a pattern but are not splits (e.g. a metadata file).
    """

    name: str
    patterns: tuple[str, ...]
    read: Reader
    group_splits: bool = False
    not_splits: frozenset[str] = frozenset()
    notes: Callable[[list[QARecord]], list[str]] | None = None

    def splits(self, data_dir: Path) -> dict[str, list[Path]]:
        """Every split present, mapped to the files backing it (sorted by name)."""
        found: dict[str, list[Path]] = {}
        for pattern in self.patterns:
            for split, path in _match_pattern(data_dir, pattern):
                if split in self.not_splits:
                    continue
                found.setdefault(split, []).append(path)
        found = dict(sorted(found.items()))
        if self.group_splits:
            groups: dict[str, list[Path]] = {}
            for split, paths in found.items():
                head, _, group = split.rpartition("_")
                if head and group not in found:
                    groups.setdefault(group, []).extend(paths)
            found = dict(sorted((found | groups).items()))
        return found

    def files(self, data_dir: Path, split: str) -> list[Path]:
        """The files backing ``split``.

        Raises:
            SplitNotFoundError: no file backs it (the message names the paths looked for).
            AmbiguousSplitError: files of more than one pattern back it.
        """
        present = self.splits(data_dir)
        if split not in present:
            looked_for = ", ".join(str(data_dir / p.format(split=split)) for p in self.patterns)
            raise SplitNotFoundError(
                f"no file for {self.name}:{split}: looked for {looked_for}; "
                f"splits present: {', '.join(present) or 'none'}"
            )
        paths = present[split]
        if not self.group_splits and len(paths) > 1:
            raise AmbiguousSplitError(
                f"{self.name}:{split} is ambiguous: {', '.join(map(str, paths))} all match; "
                "remove all but one"
            )
        return paths

    def iter_records(self, data_dir: Path, split: str) -> Iterator[QARecord]:
        """The records of ``split``, lazily, file by file.

        Raises:
            DatasetFormatError: a file is not valid JSON or lacks a field the loader needs.
        """
        for path in self.files(data_dir, split):
            try:
                yield from self.read(path, split, data_dir)
            except (KeyError, TypeError, ValueError) as error:
                raise DatasetFormatError(
                    f"{path} is not in the {self.name} format: {type(error).__name__}: {error}"
                ) from error


def _match_pattern(data_dir: Path, pattern: str) -> Iterator[tuple[str, Path]]:
    prefix, _, suffix = pattern.partition("{split}")
    regex = re.compile(re.escape(prefix) + f"({SPLIT_NAME})" + re.escape(suffix))
    for path in data_dir.glob(pattern.format(split="*")):
        match = regex.fullmatch(path.relative_to(data_dir).as_posix())
        if match and path.is_file():
            yield match[1], path


def read_json(path: Path) -> Any:
    """A JSON file's content."""
    with path.open(encoding="utf-8") as handle:
        return json.load(handle)


def read_jsonl(path: Path) -> Iterator[dict[str, Any]]:
    """The objects of a JSON-lines file, skipping blank lines."""
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                yield json.loads(line)
