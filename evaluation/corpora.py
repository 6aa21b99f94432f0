"""A dataset's documents as a corpus to index: FinanceBench's PDFs with their document
information and cover pages, or every FinQA / TAT-QA record's context as one document; and
the index name a dataset's corpus gets by default."""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from filingqa.records.documents import Passage
from filingqa.records.qa_record import QARecord
from filingqa.retrieval.index.corpus import Corpus, files_corpus, passages_corpus
from filingqa.retrieval.ingest.filings import context_passages
from filingqa.retrieval.ingest.metadata import DocumentInfo, load_document_info

FINANCEBENCH_PDFS = "financebench/pdfs"
FINANCEBENCH_INFO = "financebench/financebench_document_information.jsonl"
_FINQA_FILE = re.compile(r"^(?P<ticker>[A-Za-z.\-]+)/(?P<year>\d{4})/page_\d+\.pdf$")


def dataset_index_name(spec: str, embedder: str | None = None) -> str:
    """The default index name of a dataset corpus: ``finqa:dev`` → ``finqa-dev``; embedded by
    a model other than the offline MiniLM, the model's name follows an ``@``
    (``finqa-dev@all-MiniLM-L6-v2+tuned-52f523b5b053``), so each model has its own index."""
    from filingqa.retrieval.index.embedder import DEFAULT_MODEL

    name = spec.strip().replace(":", "-")
    if embedder is None or embedder == DEFAULT_MODEL:
        return name
    return f"{name}@{re.sub(r'[^A-Za-z0-9.+_-]+', '-', embedder).strip('-')}"


def dataset_corpus(spec: str, data_dir: str | Path | None = None) -> Corpus:
    """The corpus of a dataset: ``financebench`` (every PDF of ``financebench/pdfs``, with the
    document information and cover pages), or ``finqa:<split>`` / ``tatqa:<split>`` (every
    record's context, one document each, first record wins).

    Raises:
        filingqa.core.config.ConfigError: no data dir, or no such dataset or split.
    """
    from filingqa.core.config import data_dir as resolve

    root = resolve(data_dir)
    name = spec.strip()
    if name.split(":")[0] == "financebench":
        return _financebench(root, name)
    if name.split(":")[0] not in ("finqa", "tatqa"):
        raise ValueError(
            f"no corpus for {spec!r}: use financebench, finqa:<split> or tatqa:<split>"
        )
    from filingqa.datasets import load_dataset

    return _contexts(name, load_dataset(name, root))


def _financebench(root: Path, name: str) -> Corpus:
    folder = root / FINANCEBENCH_PDFS
    pdfs = sorted(folder.glob("*.pdf"))
    if not pdfs:
        raise FileNotFoundError(f"no FinanceBench PDFs in {folder}")
    info_path = root / FINANCEBENCH_INFO
    known = {i.doc_name: i for i in load_document_info(info_path)} if info_path.is_file() else {}
    return files_corpus(
        name, pdfs, [known.get(p.stem) or DocumentInfo(doc_name=p.stem) for p in pdfs]
    )


def _contexts(name: str, records: Iterable[QARecord]) -> Corpus:
    """One document per distinct context, first record wins; FinQA file names give ticker
    and year."""
    passages: dict[str, tuple[Passage, ...]] = {}
    for record in records:
        found = context_passages(record)
        if found and found[0].doc_id not in passages:
            passages[found[0].doc_id] = tuple(found)
    return passages_corpus(name, passages, [_context_info(doc_id) for doc_id in passages])


def _context_info(doc_id: str) -> DocumentInfo:
    match = _FINQA_FILE.match(doc_id)
    if match is None:
        return DocumentInfo(doc_name=doc_id)
    return DocumentInfo(
        doc_name=doc_id, company=match["ticker"], doc_type="10k", doc_period=int(match["year"])
    )
