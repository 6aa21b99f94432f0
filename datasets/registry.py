"""The dataset registry: ``load_dataset("name:split")`` and the ``data list`` overview."""

from __future__ import annotations

import hashlib
import itertools
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from filingqa.core.config import data_dir as resolve_data_dir
from filingqa.datasets import convfinqa, financebench, finqa, lofin, tatqa
from filingqa.datasets.base import (
    SPLIT_NAME,
    DatasetError,
    DatasetLoader,
    DatasetSpecError,
    UnknownDatasetError,
)
from filingqa.records.qa_record import QARecord

LOADERS: dict[str, DatasetLoader] = {
    module.LOADER.name: module.LOADER for module in (financebench, tatqa, finqa, convfinqa, lofin)
}
_SPEC = re.compile(rf"(?P<name>[a-z0-9_]+):(?P<split>{SPLIT_NAME})")

PathLike = str | os.PathLike[str]


@dataclass
class DatasetInfo:
    """One split present in the data dir, for ``filingqa data list``."""

    spec: str
    data_dir: Path
    paths: list[Path]
    records: int | None
    notes: list[str] = field(default_factory=list)


def parse_spec(spec: str) -> tuple[DatasetLoader, str]:
    """The loader and split named by ``name:split``.

    Raises:
        DatasetSpecError: the spec is not ``name:split``.
        UnknownDatasetError: no dataset has that name.
    """
    match = _SPEC.fullmatch(spec.strip())
    if not match:
        raise DatasetSpecError(
            f"bad dataset spec {spec!r}: use the form name:split, e.g. tatqa:dev "
            f"(datasets: {', '.join(LOADERS)})"
        )
    loader = LOADERS.get(match["name"])
    if loader is None:
        raise UnknownDatasetError(
            f"unknown dataset {match['name']!r}; known datasets: {', '.join(LOADERS)}"
        )
    return loader, match["split"]


def load_dataset(
    spec: str, data_dir: PathLike | None = None, limit: int | None = None
) -> list[QARecord]:
    """The records of ``name:split`` (the first ``limit`` if given) from the data dir.

    ``data_dir`` defaults to ``$FILINGQA_DATA_DIR``. Any split file present is accepted.

    Raises:
        filingqa.core.config.ConfigError: no data dir, or (as a :class:`DatasetError`
            subclass) a bad spec, an unknown dataset, or no file for the split.
    """
    loader, split = parse_spec(spec)
    records = loader.iter_records(resolve_data_dir(data_dir), split)
    return list(itertools.islice(records, limit))


def available_datasets(data_dir: PathLike | None = None) -> list[DatasetInfo]:
    """Every ``name:split`` present in the data dir, with its files, size and notes."""
    root = resolve_data_dir(data_dir)
    infos = []
    for loader in LOADERS.values():
        for split, paths in loader.splits(root).items():
            infos.append(_describe(loader, root, split, paths))
    return infos


def _describe(loader: DatasetLoader, root: Path, split: str, paths: list[Path]) -> DatasetInfo:
    spec = f"{loader.name}:{split}"
    try:
        records = list(loader.iter_records(root, split))
    except DatasetError as error:
        return DatasetInfo(spec, root, paths, None, [str(error)])
    notes = loader.notes(records) if loader.notes else []
    return DatasetInfo(spec, root, paths, len(records), notes)


def format_table(infos: list[DatasetInfo]) -> str:
    """The infos as an aligned plain-text table (files relative to the data dir)."""
    rows = [("dataset", "records", "files", "notes")]
    for info in infos:
        files = ", ".join(path.relative_to(info.data_dir).as_posix() for path in info.paths)
        count = "?" if info.records is None else f"{info.records:,}"
        rows.append((info.spec, count, files, "; ".join(info.notes)))
    widths = [max(len(row[col]) for row in rows) for col in range(3)]
    lines = [
        f"{spec:<{widths[0]}}  {count:>{widths[1]}}  {files:<{widths[2]}}  {notes}".rstrip()
        for spec, count, files, notes in rows
    ]
    return "\n".join(lines)


def split_hashes(specs: Iterable[str], data_dir: Path | None = None) -> dict[str, dict[str, str]]:
    """``spec -> {file name: sha256}`` of the files backing each split: what a compile or
    a training read."""
    root = resolve_data_dir(data_dir)
    out: dict[str, dict[str, str]] = {}
    for spec in specs:
        loader, split = parse_spec(spec)
        out[spec] = {
            str(path.relative_to(root)): hashlib.sha256(path.read_bytes()).hexdigest()
            for path in loader.files(root, split)
        }
    return out
