"""Ingestion beside answering: while a filing is read and embedded, questions search on;
while it is written, a search waits; a search never sees part of a filing."""

from __future__ import annotations

import asyncio
import shutil
import threading
from pathlib import Path

import numpy as np

from filingqa.retrieval.index.corpus import file_corpus
from filingqa.retrieval.index.embedder import Embedder
from filingqa.server.app import create_app
from filingqa.server.library import Library
from filingqa.server.settings import ServerSettings

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


def test_a_filing_whose_build_was_cut_short_is_hidden_until_an_add_finishes_it(
    tmp_path: Path,
) -> None:
    encoder = GatedEncoder(hold_at=0)
    library, new = opened(tmp_path, encoder)
    ingested = file_corpus([new]).items[0].ingest()  # what a killed build had written
    library.search.index.add(ingested.passages[:2], [ingested.document], progress=False)
    library.close()
    reopened = Library.open(
        tmp_path / "index", embedder=Embedder("fake", DIM, encoder), reranker=None
    )
    assert reopened.unfinished([new]) == [new]
    assert new_doc_passages(reopened) == 0
    assert NEW not in {d.doc_id for d in reopened.documents()}
    reopened.add(new)
    assert reopened.unfinished([new]) == [] and new_doc_passages(reopened) > 0
    reopened.close()


async def test_a_restarted_server_indexes_the_uploads_it_had_not_finished(
    tmp_path: Path,
) -> None:
    encoder = GatedEncoder(hold_at=0)
    library, new = opened(tmp_path, encoder)
    settings = ServerSettings(index=tmp_path / "index")
    settings.uploads_dir.mkdir()
    shutil.copy(new, settings.uploads_dir / new.name)  # received, never indexed
    app = create_app(settings, library, answerer=lambda *args: None)  # type: ignore[arg-type]
    for _ in range(100):
        if not library.unfinished([new]):
            break
        await asyncio.sleep(0.05)
    assert NEW in {d.doc_id for d in library.documents()}
    app.state.jobs.close(timeout=10)
    library.close()


def test_a_handle_tells_what_the_library_holds_after_an_add(tmp_path: Path) -> None:
    library, new = opened(tmp_path, GatedEncoder(hold_at=0))
    before = library.handle().holdings()
    assert before is not None
    held_before = {d.doc_id for c in before.companies for d in c.documents}
    assert NEW not in held_before
    library.add(new)
    after = library.handle().holdings()
    assert after is not None
    assert {d.doc_id for c in after.companies for d in c.documents} == held_before | {NEW}
    chosen = library.handle([NEW]).holdings()
    assert chosen is not None
    assert {d.doc_id for c in chosen.companies for d in c.documents} == {NEW}
    records = library.handle([NEW]).statement_records("Acme", ["revenue"], ["FY2023"])
    assert all(record.doc_id == NEW for record in records)
    library.close()
