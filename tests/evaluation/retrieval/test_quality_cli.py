"""``filingqa eval --mode retrieval`` over a synthetic FinanceBench split: two tiny 10-K PDFs
in the shared data dir's layout, a fake embedder, an empty ``FILINGQA_HOME``."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

from filingqa.cli import main
from filingqa.evaluation.retrieval.gold import financebench_queries
from filingqa.retrieval.index.embedder import Embedder
from filingqa.retrieval.search.rerank import Reranker, shipped_artifact_dir

from ...retrieval.filings import fake_embedder
from ...retrieval.pdf_fixtures import Text, pdf_bytes

SPLIT = "fixture"
FILINGS = {
    "ACME_2023_10K": ("Acme Corporation", "Acme", "4,186.3", "field analyzers"),
    "GLOBEX_2023_10K": ("Globex Inc.", "Globex", "912.5", "cloud storage"),
}


def filing_pages(registrant: str, revenue: str, product: str) -> list[list[Text]]:
    """A cover page, an MD&A page and an income statement page."""
    cover = [
        (72, 740, "FORM 10-K"),
        (72, 720, "ANNUAL REPORT for the fiscal year ended December 31, 2023"),
        (72, 700, registrant),
        (72, 686, "(Exact name of registrant as specified in its charter)"),
    ]
    mdna = [
        (72, 740, "Item 7. Management's Discussion and Analysis"),
        (72, 720, f"Demand for {product} grew and liquidity remained strong."),
        (72, 706, "Our employees focused on field service and cost control."),
    ]
    statement = [
        (72, 740, "Item 8. Financial Statements and Supplementary Data"),
        (72, 720, "Consolidated Statements of Operations (In millions)"),
        (72, 700, f"Total revenue {revenue}"),
        (72, 686, "Net income 140.0"),
    ]
    return [cover, mdna, statement]


def question(qid: str, doc: str, company: str, text: str, page: int) -> dict:
    """A FinanceBench row whose gold evidence is ``page`` (0-based) of ``doc``."""
    return {
        "financebench_id": qid,
        "company": company,
        "doc_name": doc,
        "question_type": "metrics-generated",
        "question_reasoning": None,
        "domain_question_num": None,
        "question": text,
        "answer": "n/a",
        "justification": "",
        "evidence": [
            {
                "evidence_text": "",
                "doc_name": doc,
                "evidence_page_num": page,
                "evidence_text_full_page": "",
            }
        ],
    }


def write_jsonl(path: Path, rows: list[dict]) -> None:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    """A data dir holding ``financebench_fixture.jsonl``: two questions on present PDFs,
    one on a PDF that is missing (left out of the retrieval eval)."""
    root = tmp_path / "data"
    pdfs = root / "financebench" / "pdfs"
    pdfs.mkdir(parents=True)
    for doc, (registrant, _, revenue, product) in FILINGS.items():
        (pdfs / f"{doc}.pdf").write_bytes(pdf_bytes(filing_pages(registrant, revenue, product)))
    info = [
        {"doc_name": doc, "company": company, "doc_type": "10k", "doc_period": 2023}
        for doc, (_, company, _, _) in FILINGS.items()
    ]
    write_jsonl(root / "financebench" / "financebench_document_information.jsonl", info)
    rows = [
        question("q1", "ACME_2023_10K", "Acme", "What was Acme's total revenue in FY2023?", 2),
        question("q2", "GLOBEX_2023_10K", "Globex", "What drove demand at Globex in 2023?", 1),
        question("q3", "INITECH_2023_10K", "Initech", "What was Initech's revenue?", 2),
    ]
    write_jsonl(root / "financebench" / f"financebench_{SPLIT}.jsonl", rows)
    return root


@pytest.fixture
def offline(monkeypatch: pytest.MonkeyPatch, isolated_home: Path) -> Path:
    """The fake embedder for every index, no 100k-passage scale run, an empty home."""
    monkeypatch.setattr(Embedder, "load", classmethod(lambda cls, *a, **kw: fake_embedder()))
    monkeypatch.setattr("filingqa.evaluation.retrieval.quality.scale_latency", lambda: [])
    return isolated_home


def test_the_split_gold_is_its_questions_with_present_pdfs(data_dir: Path) -> None:
    queries = financebench_queries(data_dir, split=SPLIT)
    assert [q.id for q in queries] == ["q1", "q2"]
    assert [(t.doc_id, t.page) for q in queries for t in q.targets] == [
        ("ACME_2023_10K", 3),
        ("GLOBEX_2023_10K", 2),
    ]


def test_retrieval_eval_on_a_financebench_split_reports_hit_at_k(
    data_dir: Path, offline: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = data_dir.parent / "retrieval.json"
    argv = ["eval", "--mode", "retrieval", "--dataset", f"financebench:{SPLIT}"]
    assert main([*argv, "--data-dir", str(data_dir), "--json", str(out)]) == 0
    table = capsys.readouterr().out
    print(table)  # shown with -s: the CLI output of the fixture split
    assert table.startswith(f"financebench:{SPLIT} (financebench:{SPLIT}): 2 questions")
    assert "hit@1" in table and "hit@5" in table and "hit@10" in table
    rows = {line.split()[0]: line.split()[1:4] for line in table.splitlines()[2:11]}
    assert list(rows) == ["bm25", "dense", "hybrid", "hybrid+filters", "+hierarchical",
                          "+expansion", "+exhaustive", "+pages", "+reranker"]  # fmt: skip
    assert all(row[2] == "100.0%" for row in rows.values())  # 6 pages: every one in the top 10
    results = json.loads(out.read_text())
    assert results["questions_from"] == f"financebench:{SPLIT}"
    assert results["index"]["corpus"] == "financebench"
    assert results["index"]["location"] == str(offline / "indexes" / "financebench")
    assert set(results["settings"][-1]["scores"]) == {"hit@1", "hit@5", "hit@10"}


def test_on_an_empty_home_the_reranker_row_uses_the_shipped_reranker(
    data_dir: Path, offline: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    loaded: list[Path] = []
    load = Reranker.load.__func__

    def recording_load(cls: type[Reranker], directory: Path, **options: object) -> Reranker:
        loaded.append(Path(directory))
        return load(cls, directory, **options)

    monkeypatch.setattr(Reranker, "load", classmethod(recording_load))
    out = data_dir.parent / "retrieval.json"
    argv = ["eval", "--mode", "retrieval", "--dataset", f"financebench:{SPLIT}"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        code = main(
            [*argv, "--setting", "+reranker", "--data-dir", str(data_dir), "--json", str(out)]
        )
    assert code == 0
    assert not any("no trained reranker" in str(w.message) for w in caught)
    assert loaded == [shipped_artifact_dir()]
    used = json.loads(out.read_text())["reranker"]
    assert (used["directory"], used["trained"]) == (str(shipped_artifact_dir()), True)
    assert used["training"] is not None  # its training report, read from the same folder
    assert not (offline / "artifacts").exists()  # nothing trained under the empty home
    assert f"reranker: {shipped_artifact_dir()} (trained on " in capsys.readouterr().out


def tatqa_context(uid: str, sales: str, note: str) -> dict:
    """One TAT-QA context: a sales table, two paragraphs, one table-and-text question."""
    return {
        "table": {"uid": f"t{uid}", "table": [["", "2019", "2018"], ["Sales", sales, "$1,000"]]},
        "paragraphs": [
            {"uid": f"p{uid}1", "order": 1, "text": note},
            {"uid": f"p{uid}2", "order": 2, "text": "Amounts are in thousands."},
        ],
        "questions": [
            {
                "uid": f"q{uid}",
                "order": 1,
                "question": f"What is the change in sales ({note})?",
                "answer": 200,
                "derivation": "",
                "answer_type": "arithmetic",
                "answer_from": "table-text",
                "rel_paragraphs": ["1"],
                "req_comparison": False,
                "scale": "thousand",
            }
        ],
    }


def test_retrieval_eval_on_a_tatqa_split_reports_recall_at_k_in_the_index_given(
    tmp_path: Path, offline: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "data"
    (root / "tatqa").mkdir(parents=True)
    contexts = [
        tatqa_context("a", "$1,200", "Sales grew."),
        tatqa_context("b", "$900", "Sales fell."),
    ]
    (root / "tatqa" / f"tatqa_dataset_{SPLIT}.json").write_text(json.dumps(contexts))
    index = tmp_path / "tatqa-index"
    argv = ["eval", "--mode", "retrieval", "--dataset", f"tatqa:{SPLIT}", "--setting", "hybrid"]
    assert main([*argv, "--data-dir", str(root), "--index", str(index)]) == 0
    table = capsys.readouterr().out
    assert table.startswith(f"tatqa:{SPLIT} (tatqa:{SPLIT}): 2 questions, 4 gold targets")
    assert "recall@5" in table and "recall@10" in table
    assert f"index: {index} (" in table
    assert (index / "metadata.json").is_file()
    assert not (offline / "indexes").exists()
