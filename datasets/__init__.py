"""Loaders for the evaluation datasets, named ``name:split``, as typed QA records
(:class:`~filingqa.records.QARecord`).

``load_dataset("tatqa:dev")`` reads the split from the data dir (``--data-dir`` /
``$FILINGQA_DATA_DIR``); ``available_datasets()`` lists what is present.
"""

from filingqa.datasets.base import (
    AmbiguousSplitError,
    DatasetError,
    DatasetFormatError,
    DatasetSpecError,
    SplitNotFoundError,
    UnknownDatasetError,
)
from filingqa.datasets.registry import (
    LOADERS,
    DatasetInfo,
    available_datasets,
    format_table,
    load_dataset,
    parse_spec,
)

__all__ = [
    "LOADERS",
    "AmbiguousSplitError",
    "DatasetError",
    "DatasetFormatError",
    "DatasetInfo",
    "DatasetSpecError",
    "SplitNotFoundError",
    "UnknownDatasetError",
    "available_datasets",
    "format_table",
    "load_dataset",
    "parse_spec",
]
