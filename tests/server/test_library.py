"""Ingestion beside answering: while a filing is read and embedded, questions search on;
while it is written, a search waits; a search never sees part of a filing."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np

from filingqa.retrieval.index.embedder import Embedder
from filingqa.server.library import Library

from ..retrieval.filings import DIM, FakeEncoder, write_filings

NEW = "ACME_2023_10K"


class GatedEncoder(FakeEncoder):
    """The fake encoder, held at the n-th time it embeds the new filing's passages."""

    def __init__(self, hold_at: int) -> None:
        super().__init__()
        self.hold_at = hold_at
        self.seen = 0
        self.holding = threading.Event()
        self.release = threading.Event()

    def __call__(self, texts: list[str]) -> np.ndarray:
        if any("December 31, 2023" in text for text in texts):
            self.seen += 1
            if self.seen == self.hold_at:
                self.holding.set()
                assert self.release.wait(10)
        return super().__call__(texts)


def new_doc_passages(library: Library) -> int:
    found = library.handle().search("Acme total revenue 2023 annual report", k=20)
    return sum(p.doc_id == NEW for p in found)


def opened(tmp_path: Path, encoder: GatedEncoder) -> tuple[Library, Path]:
    files = write_filings(tmp_path / "filings")
    library = Library.open(
        tmp_path / "index", embedder=Embedder("fake", DIM, encoder), reranker=None
    )
    library.add(files[1])
    return library, files[0]


def test_questions_search_on_while_a_filing_is_read_and_embedded(tmp_path: Path) -> None:
    encoder = GatedEncoder(hold_at=1)  # the embedding done outside the lock
    library, new = opened(tmp_path, encoder)
    adding = threading.Thread(target=library.add, args=(new,))
    adding.start()
    assert encoder.holding.wait(10)
    assert new_doc_passages(library) == 0  # answered at once, without the new filing
    encoder.release.set()
    adding.join(10)
    assert new_doc_passages(library) > 0
    assert NEW in {d.doc_id for d in library.documents()}
    library.close()


def test_a_search_waits_while_a_filing_is_written_and_then_sees_all_of_it(
    tmp_path: Path,
) -> None:
    encoder = GatedEncoder(hold_at=2)  # the write, under the lock
    library, new = opened(tmp_path, encoder)
    adding = threading.Thread(target=library.add, args=(new,))
    adding.start()
    assert encoder.holding.wait(10)
    counts: list[int] = []
    searching = threading.Thread(target=lambda: counts.append(new_doc_passages(library)))
    searching.start()
    searching.join(0.5)
    assert searching.is_alive() and counts == []  # waiting for the whole filing
    encoder.release.set()
    adding.join(10)
    searching.join(10)
    assert counts and counts[0] == new_doc_passages(library) > 0
    library.close()
