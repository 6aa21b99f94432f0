"""Loaders for the evaluation datasets, named ``name:split``, as typed :class:`QARecord` s.

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
from filingqa.datasets.records import (
    AnswerType,
    Context,
    Evidence,
    Page,
    Paragraph,
    QARecord,
    Scale,
    Table,
    Turn,
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
    "AnswerType",
    "Context",
    "DatasetError",
    "DatasetFormatError",
    "DatasetInfo",
    "DatasetSpecError",
    "Evidence",
    "Page",
    "Paragraph",
    "QARecord",
    "Scale",
    "SplitNotFoundError",
    "Table",
    "Turn",
    "UnknownDatasetError",
    "available_datasets",
    "format_table",
    "load_dataset",
    "parse_spec",
]
