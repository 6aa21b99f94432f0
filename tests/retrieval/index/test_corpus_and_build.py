"""Corpora and the index build: metadata, per-file failures, the ledger, kill and resume."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from filingqa.evaluation.corpora import dataset_corpus, dataset_index_name
from filingqa.retrieval.index.build import (
    LEDGER_FILE,
    Ledger,
    LedgerEntry,
    build_index,
    format_report,
)
from filingqa.retrieval.index.corpus import file_corpus
from filingqa.retrieval.index.filters import SearchFilters
from filingqa.retrieval.index.locations import default_index_dir, state_dir_for
from filingqa.retrieval.index.passage_index import PassageIndex, point_id
from filingqa.retrieval.index.signals import PAYLOAD_KEY as SIGNALS
from filingqa.retrieval.ingest.metadata_store import MetadataStore

from ..filings import FakeEncoder, fake_embedder, write_filings
from ..pdf_fixtures import write_fixtures

PDFS = write_fixtures()


@pytest.fixture
def filings(tmp_path: Path) -> Path:
    """The three synthetic filings plus a corrupt PDF and an empty text file."""
    folder = tmp_path / "filings"
    write_filings(folder)
    (folder / "broken.pdf").write_bytes(b"%PDF-1.4 not really")
    (folder / "blank.txt").write_text("   \n")
    return folder


def test_default_locations(isolated_home: Path) -> None:
    assert default_index_dir() == isolated_home / "indexes" / "default"
    assert default_index_dir(dataset_index_name("finqa:dev")) == isolated_home / "indexes/finqa-dev"
    assert dataset_index_name("finqa:dev", "all-MiniLM-L6-v2") == "finqa-dev"
    tuned = dataset_index_name("tatqa:dev", "all-MiniLM-L6-v2+tuned-52f523b5b053")
    assert tuned == "tatqa-dev@all-MiniLM-L6-v2+tuned-52f523b5b053"
    assert dataset_index_name("financebench", "litellm:voyage/voyage-finance-2") == (
        "financebench@litellm-voyage-voyage-finance-2"
    )
    assert state_dir_for("/data/idx") == Path("/data/idx")
    assert state_dir_for(":memory:") is None
    remote = state_dir_for("http://qdrant.local:6333/")
    assert remote == isolated_home / "indexes" / "qdrant.local-6333"


def test_file_corpus_reads_metadata_from_names_and_covers(filings: Path) -> None:
    corpus = file_corpus([filings])
    documents = corpus.documents
    assert sorted(documents) == [
        "ACME_2023_10K",
        "ACME_2024_10K",
        "GLOBEX_2024Q2_10Q",
        "blank",
        "broken",
    ]
    acme = documents["ACME_2024_10K"]
    assert (acme.company, acme.ticker, acme.doc_type) == ("Acme Corporation", "ACME", "10k")
    assert (acme.fiscal_year, str(acme.period_end)) == (2024, "2024-12-31")
    globex = documents["GLOBEX_2024Q2_10Q"]
    assert (globex.company, globex.ticker, globex.fiscal_quarter) == ("Globex Inc.", "GBX", 2)
    assert documents["blank"].company is None  # no name to parse, no cover: no company
    assert corpus.metadata.company("acme") == "Acme Corporation"
    [resolution] = corpus.metadata.resolve("ACME", "fiscal 2023")
    assert resolution.doc_ids == ["ACME_2023_10K"]


def test_corpus_passages_are_lazy_and_collect_failures(filings: Path) -> None:
    corpus = file_corpus([filings])
    passages = corpus.passages(progress=False)
    assert corpus.failures == []
    ids = [p.id for p in passages]
    assert {i.split(":")[0] for i in ids} == {"ACME_2023_10K", "ACME_2024_10K", "GLOBEX_2024Q2_10Q"}
    assert sorted(f.reason for f in corpus.failures) == ["corrupt", "empty"]


def test_same_file_name_in_two_folders_is_one_failure(tmp_path: Path) -> None:
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "report.txt").write_text("Revenue grew.")
    corpus = file_corpus([tmp_path / "a", tmp_path / "b"])
    assert [item.doc_id for item in corpus.items] == ["report"]
    [failure] = corpus.failures
    assert failure.path.endswith("b/report.txt") and "already taken" in failure.detail


def test_build_reports_counts_failures_and_saves_metadata(filings: Path, tmp_path: Path) -> None:
    location = tmp_path / "index"
    report = build_index(location, paths=[filings], embedder=fake_embedder(), progress=False)
    assert (report.files, report.indexed, report.resumed) == (5, 3, 0)
    assert report.pages == 8 and report.passages == report.written > 0
    assert sorted((Path(f.path).name, f.reason) for f in report.failures) == [
        ("blank.txt", "empty"),
        ("broken.pdf", "corrupt"),
    ]
    assert report.disk_bytes and report.disk_bytes > 0
    store = MetadataStore.load(location)
    assert store.document("ACME_2024_10K").pages == 3
    with PassageIndex.open(location, fake_embedder()) as index:
        assert index.count() == report.passages
        [hit] = index.search("revenue", 1, filters=SearchFilters(company="ACME", fiscal_year=2023))
    assert hit.passage.doc_id == "ACME_2023_10K"
    text = format_report(report)
    assert "files     5 (3 indexed, 0 already done, 2 failed)" in text
    assert text.count("\nfailed: ") == 2 and "broken.pdf: corrupt:" in text


def test_the_progress_bar_counts_pages_and_files(
    filings: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = build_index(tmp_path / "index", paths=[filings], embedder=fake_embedder())
    bar = capsys.readouterr().err.split("\r")
    finished = next(line for line in reversed(bar) if line.startswith("index: 100%"))
    # 8 pages read and a page counted for each failed file; every file, passage and failure
    assert " 10/10 " in finished and "page/s" in finished
    assert f"files=5/5, passages={report.passages}, failed=2" in finished


def test_rerun_skips_finished_files(filings: Path, tmp_path: Path) -> None:
    location = tmp_path / "index"
    first = build_index(location, paths=[filings], embedder=fake_embedder(), progress=False)
    encoder = FakeEncoder()
    again = build_index(location, paths=[filings], embedder=fake_embedder(encoder), progress=False)
    assert (again.indexed, again.resumed, again.written) == (0, 3, 0)
    assert again.passages == first.passages and again.pages == first.pages
    assert encoder.calls == 0  # nothing embedded, not even re-read
    (filings / "ACME_2024_10K.txt").write_text((filings / "ACME_2024_10K.txt").read_text() + "\n")
    changed = build_index(location, paths=[filings], embedder=fake_embedder(), progress=False)
    assert (changed.indexed, changed.resumed) == (1, 2)


def test_a_copied_or_touched_corpus_is_not_indexed_again(filings: Path, tmp_path: Path) -> None:
    location = tmp_path / "index"
    build_index(location, paths=[filings], embedder=fake_embedder(), progress=False)
    copied = tmp_path / "restored"
    shutil.copytree(filings, copied)
    for path in copied.iterdir():
        os.utime(path, (path.stat().st_atime, path.stat().st_mtime + 3600))
    encoder = FakeEncoder()
    again = build_index(location, paths=[copied], embedder=fake_embedder(encoder), progress=False)
    assert (again.indexed, again.resumed, again.written, encoder.calls) == (0, 3, 0, 0)


def test_an_index_an_earlier_version_keyed_by_stat_keeps_its_unchanged_files(
    filings: Path, tmp_path: Path
) -> None:
    location = tmp_path / "index"
    build_index(location, paths=[filings], embedder=fake_embedder(), progress=False)
    opened = PassageIndex.open(location, fake_embedder())
    recipe = opened.recipe
    opened.close()
    items = {item.doc_id: item for item in file_corpus([filings]).items}
    ledger = location / LEDGER_FILE
    entries = [json.loads(line) for line in ledger.read_text().splitlines()]
    for entry in entries:  # as an earlier version wrote them
        entry["key"] = items[entry["doc_id"]].stat_key(recipe)
    ledger.write_text("".join(json.dumps(entry) + "\n" for entry in entries))
    encoder = FakeEncoder()
    again = build_index(location, paths=[filings], embedder=fake_embedder(encoder), progress=False)
    assert (again.indexed, again.resumed, again.written, encoder.calls) == (0, 3, 0, 0)
    taken_over = Ledger(ledger)
    assert all(taken_over.get(items[entry["doc_id"]].key(recipe)) for entry in entries)


def test_killed_build_resumes_without_duplicates_or_loss(filings: Path, tmp_path: Path) -> None:
    location = tmp_path / "index"
    killer = fake_embedder(FakeEncoder(fail_on_call=2))
    with pytest.raises(KeyboardInterrupt):
        build_index(location, paths=[filings], embedder=killer, progress=False, flush_passages=1)
    ledger = (location / LEDGER_FILE).read_text().splitlines()
    assert [json.loads(line)["doc_id"] for line in ledger] == ["ACME_2023_10K"]
    with (location / LEDGER_FILE).open("a") as out:
        out.write('{"key": "cut sho')  # a line torn by the kill
    resumed = build_index(location, paths=[filings], embedder=fake_embedder(), progress=False)
    assert (resumed.resumed, resumed.indexed) == (1, 2)
    expected = [p.id for p in file_corpus([filings]).passages(progress=False)]
    assert len(expected) == len(set(expected)) == resumed.passages
    with PassageIndex.open(location, fake_embedder()) as index:
        assert index.count() == len(expected)
        for doc_id in ("ACME_2023_10K", "ACME_2024_10K", "GLOBEX_2024Q2_10Q"):
            wanted = sum(1 for i in expected if i.startswith(doc_id + ":"))
            assert index.count(SearchFilters(doc_ids=doc_id)) == wanted


KILLED_BUILD = """
import os, signal, sys
from pathlib import Path
sys.path.insert(0, sys.argv[3])
from filings import FakeEncoder, fake_embedder
from filingqa.retrieval.index.build import build_index

class Killer(FakeEncoder):
    def __call__(self, texts):
        if self.calls == 1:
            os.kill(os.getpid(), signal.SIGKILL)
        return super().__call__(texts)

build_index(
    Path(sys.argv[1]), paths=[Path(sys.argv[2])], embedder=fake_embedder(Killer()),
    progress=False, flush_passages=1,
)
"""


def test_sigkilled_build_resumes_exactly(filings: Path, tmp_path: Path) -> None:
    script = tmp_path / "killed_build.py"
    script.write_text(textwrap.dedent(KILLED_BUILD))
    location = tmp_path / "index"
    here = str(Path(__file__).parents[1])  # the folder holding filings.py
    args = [sys.executable, str(script), str(location), str(filings), here]
    run = subprocess.run(args, cwd=tmp_path, capture_output=True)
    assert run.returncode == -9, run.stderr.decode()[-2000:]
    assert len((location / LEDGER_FILE).read_text().splitlines()) == 1
    report = build_index(location, paths=[filings], embedder=fake_embedder(), progress=False)
    assert (report.resumed, report.indexed, len(report.failures)) == (1, 2, 2)
    with PassageIndex.open(location, fake_embedder()) as index:
        expected = list(file_corpus([filings]).passages(progress=False))
        assert index.count() == report.passages == len(expected)


def test_ledger_is_not_trusted_when_the_index_lost_the_passages(
    filings: Path, tmp_path: Path
) -> None:
    build_index(tmp_path / "old", paths=[filings], embedder=fake_embedder(), progress=False)
    (tmp_path / "new").mkdir()
    shutil.copy(tmp_path / "old" / LEDGER_FILE, tmp_path / "new" / LEDGER_FILE)
    report = build_index(
        tmp_path / "new", paths=[filings], embedder=fake_embedder(), progress=False
    )
    assert (report.resumed, report.indexed) == (0, 3)


def test_rebuild_stores_the_signals_an_older_build_left_out(filings: Path, tmp_path: Path) -> None:
    build_index(tmp_path / "index", paths=[filings], embedder=fake_embedder(), progress=False)
    with PassageIndex.open(tmp_path / "index", fake_embedder()) as index:
        hits = index.search("revenue", k=50)
        index._store.set_payloads({point_id(h.passage.id): {SIGNALS: None} for h in hits})
    report = build_index(
        tmp_path / "index", paths=[filings], embedder=fake_embedder(), progress=False
    )
    assert report.indexed == 0
    with PassageIndex.open(tmp_path / "index", fake_embedder()) as index:
        assert all(h.signals is not None for h in index.search("revenue", k=50))


def test_ledger_round_trip_and_off(tmp_path: Path) -> None:
    entry = LedgerEntry(key="k", doc_id="D", pages=2, passages=7)
    Ledger(tmp_path / "ledger.jsonl").add([entry])
    assert Ledger(tmp_path / "ledger.jsonl").get("k") == entry
    off = Ledger(None)  # in memory only (an open index without a state dir)
    off.add([entry])
    assert off.get("k") == entry and off.path is None


def test_metadata_of_earlier_builds_is_kept(filings: Path, tmp_path: Path) -> None:
    location = tmp_path / "index"
    acme = [filings / "ACME_2023_10K.txt"]
    build_index(location, paths=acme, embedder=fake_embedder(), progress=False)
    build_index(
        location,
        paths=[filings / "GLOBEX_2024Q2_10Q.html"],
        embedder=fake_embedder(),
        progress=False,
    )
    store = MetadataStore.load(location)
    assert {r.document.doc_id for r in store.records()} == {"ACME_2023_10K", "GLOBEX_2024Q2_10Q"}
    assert store.company("GBX") == "Globex Inc." and store.calendar("ACME") is not None


def test_build_into_an_open_index_and_argument_errors(filings: Path) -> None:
    with PassageIndex.open(":memory:", fake_embedder()) as index:
        report = build_index(index, paths=[filings / "ACME_2024_10K.txt"], progress=False)
        assert report.passages == index.count() > 0 and report.disk_bytes is None
    with pytest.raises(ValueError, match="not both or neither"):
        build_index(":memory:", progress=False)
    with pytest.raises(ValueError, match="not both or neither"):
        both = file_corpus([filings])
        build_index(":memory:", paths=[filings], corpus=both, progress=False)


def test_financebench_corpus_uses_document_information(tmp_path: Path) -> None:
    pdfs = tmp_path / "financebench" / "pdfs"
    pdfs.mkdir(parents=True)
    shutil.copy(PDFS / "filing.pdf", pdfs / "NORTHWIND_2024_10K.pdf")
    shutil.copy(PDFS / "encrypted.pdf", pdfs / "NORTHWIND_2023_10K.pdf")
    info = {"doc_name": "NORTHWIND_2024_10K", "company": "Northwind Instruments"}
    info |= {"doc_type": "10k", "doc_period": 2024}
    (tmp_path / "financebench" / "financebench_document_information.jsonl").write_text(
        json.dumps(info) + "\n"
    )
    corpus = dataset_corpus("financebench", tmp_path)
    documents = corpus.documents
    assert documents["NORTHWIND_2024_10K"].company == "Northwind Instruments"
    assert documents["NORTHWIND_2024_10K"].fiscal_year == 2024
    assert documents["NORTHWIND_2023_10K"].company == "NORTHWIND"  # from its name only
    report = build_index(
        tmp_path / "index", corpus=corpus, embedder=fake_embedder(), progress=False
    )
    assert (report.indexed, report.pages) == (1, 3)
    assert [(Path(f.path).name, f.reason) for f in report.failures] == [
        ("NORTHWIND_2023_10K.pdf", "encrypted")
    ]


def test_unknown_dataset_corpus_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no corpus for 'convfinqa:dev'"):
        dataset_corpus("convfinqa:dev", tmp_path)


@pytest.mark.data
@pytest.mark.parametrize(("spec", "documents"), [("finqa:dev848", 294), ("tatqa:dev", 278)])
def test_context_corpora_pool_one_document_per_context(
    shared_data_dir: Path, spec: str, documents: int
) -> None:
    corpus = dataset_corpus(spec, shared_data_dir)
    assert len(corpus.items) == documents
    ids = [p.id for item in corpus.items for p in item.passages]
    assert len(ids) == len(set(ids))
    first = corpus.items[0].document
    if spec.startswith("finqa"):
        assert (first.doc_id, first.company, first.fiscal_year) == ("V/2008/page_17.pdf", "V", 2008)
        assert corpus.metadata.companies_in("What did V report?") == ["V"]
    else:
        assert first.company is None


def test_the_next_file_is_read_while_the_current_one_is_added() -> None:
    from concurrent.futures import ThreadPoolExecutor

    from filingqa.retrieval.index.build import read_ahead

    started: list[str] = []

    def read(item: str) -> str:
        started.append(item)
        return item.upper()

    with ThreadPoolExecutor(max_workers=1) as reader:
        results = read_ahead(reader, ["a", "b", "c"], read)  # type: ignore[arg-type]
        assert next(results) == "A"
        reader.submit(lambda: None).result()  # the read queued before it has run
        assert started == ["a", "b"]  # b was read while the caller held a's result
        assert list(results) == ["B", "C"]
    assert started == ["a", "b", "c"]
