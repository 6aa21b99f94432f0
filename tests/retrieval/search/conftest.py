"""The search pipeline over an index of the three synthetic filings, built once a module."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from filingqa.retrieval.index.build import build_index
from filingqa.retrieval.search.pipeline import FilingSearch

from ..filings import fake_embedder, write_filings


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An index of the three synthetic filings (with their metadata)."""
    root = tmp_path_factory.mktemp("search")
    files = write_filings(root / "filings")
    build_index(root / "index", paths=files, embedder=fake_embedder(), progress=False)
    return root / "index"


@pytest.fixture
def search(built: Path) -> Iterator[FilingSearch]:
    handle = FilingSearch.open(built, reranker=None, embedder=fake_embedder())
    yield handle
    handle.close()
