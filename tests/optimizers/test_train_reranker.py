"""Reranker training: passages and gold from records, groups, LambdaRank fit, artifact."""

from __future__ import annotations

import json
import zlib
from pathlib import Path

import numpy as np
import pytest

from filingqa.datasets.records import Context, Evidence, Paragraph, QARecord, Table
from filingqa.optimizers.train_reranker import (
    DataLeakError,
    MemoryHybrid,
    NegativeSettings,
    TrainingQuery,
    TrainParams,
    build_groups,
    check_hygiene,
    cross_validate,
    document_folds,
    fit,
    gold_passage_ids,
    pooled_corpus,
    recall_at,
    record_document,
    record_passages,
    record_windows,
    train_reranker,
    training_queries,
)
from filingqa.retrieval.documents import Document, Passage
from filingqa.retrieval.embedder import Embedder
from filingqa.retrieval.lexical import tokenize
from filingqa.retrieval.rerank import FEATURE_NAMES, Reranker

FAST = TrainParams(num_boost_round=30, min_data_in_leaf=5, num_threads=1)


def fake_embedder(dim: int = 32) -> Embedder:
    """Hashed bag of words: deterministic, no model files."""

    def encode(texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for term in tokenize(text):
                out[row, zlib.crc32(term.encode()) % dim] += 1.0
        return out + 1e-3

    return Embedder("fake-bow", dim, encode)


def qa_record(rid: str, filename: str, evidence: list[Evidence]) -> QARecord:
    return QARecord(
        id=rid,
        dataset="finqa",
        split="train",
        question="what was the change in net revenue from 2018 to 2019?",
        answer="100",
        answer_value=100.0,
        answer_type="number",
        evidence=evidence,
        context=Context(
            tables=[
                Table(
                    id="table",
                    rows=[["( in millions )", "2019", "2018"], ["net revenue", "$ 1200", "$ 1100"]],
                )
            ],
            paragraphs=[
                Paragraph(id="text_0", text="net revenue rose ."),
                Paragraph(id="text_1", text="costs fell ."),
            ],
        ),
        documents=[filename],
    )


def test_record_passages_and_gold_ids() -> None:
    record = qa_record(
        "ACME/2019/page_42.pdf-1",
        "ACME/2019/page_42.pdf",
        [Evidence(doc_name="x", table_rows=[1]), Evidence(doc_name="x", text_ids=["text_1"])],
    )
    passages = {p.id: p for p in record_passages(record)}
    prefix = "ACME/2019/page_42.pdf:p42"
    assert list(passages) == [
        f"{prefix}:table0.0",
        f"{prefix}:table0.1",
        f"{prefix}:text0",
        f"{prefix}:text1",
    ]
    row = passages[f"{prefix}:table0.1"]
    assert row.text == "net revenue: 2019: $ 1200; 2018: $ 1100 [( in millions )]"
    assert (row.kind, row.parent_id, row.page) == ("table", f"{prefix}:table0", 42)
    assert gold_passage_ids(record) == {f"{prefix}:table0.1", f"{prefix}:text1"}
    document = record_document(record)
    assert (document.ticker, document.fiscal_year) == ("ACME", 2019)


def test_record_windows_cut_the_page_and_know_which_window_holds_each_fact() -> None:
    record = qa_record("ACME/2019/page_42.pdf-1", "ACME/2019/page_42.pdf", [])
    windows, holds = record_windows(record, size=8, stride=6)
    prefix = "ACME/2019/page_42.pdf:p42"
    w0, w1, w2 = (f"{prefix}:window{n}" for n in range(3))
    assert [w.id for w in windows] == [w0, w1, w2]
    assert windows[0].text == "( in millions ) 2019 2018 net revenue"
    assert windows[2].text == "net revenue rose . costs fell ."
    assert all(w.kind == "text" and w.page == 42 for w in windows)
    assert holds[f"{prefix}:table0.0"] == {w0}
    assert holds[f"{prefix}:table0.1"] == {w1}  # window0 has only 2 of its 6 words
    assert holds[f"{prefix}:text0"] == {w1, w2}
    assert holds[f"{prefix}:text1"] == {w2}


def test_pooled_corpus_and_queries_per_view() -> None:
    record = qa_record(
        "ACME/2019/page_42.pdf-1", "ACME/2019/page_42.pdf", [Evidence(doc_name="x", table_rows=[1])]
    )
    facts, documents, where = pooled_corpus([record, record], "facts")
    assert len(facts) == 4 and list(documents) == ["ACME/2019/page_42.pdf"]
    (query,) = training_queries([record], where)
    assert query.gold == {"ACME/2019/page_42.pdf:p42:table0.1"}
    windows, _, where = pooled_corpus([record], "windows")
    plain, named = training_queries([record], where, named=True)
    assert plain.gold == named.gold and windows[0].id in plain.gold
    assert named.question == "ACME: " + record.question and named.id.endswith("#named")


def test_check_hygiene_refuses_shared_documents() -> None:
    train = [qa_record("A/2019/page_1.pdf-1", "A/2019/page_1.pdf", [])]
    check_hygiene(train, [qa_record("B/2019/page_1.pdf-1", "B/2019/page_1.pdf", [])])
    with pytest.raises(DataLeakError, match="1 documents"):
        check_hygiene(train, [qa_record("A/2019/page_1.pdf-2", "A/2019/page_1.pdf", [])])


def test_recall_at() -> None:
    assert recall_at(["a", "b", "c"], {"a", "c"}, 2) == 0.5
    assert recall_at(["a"], set(), 5) == 0.0


def company_pool(ticker: str, embedder: Embedder) -> tuple[MemoryHybrid, list[TrainingQuery]]:
    """Three yearly filings whose revenue sentences differ only in their figure.

    Text cannot tell them apart; the filing's fiscal year can.
    """
    passages, documents, queries = [], {}, []
    for offset, year in enumerate((2017, 2018, 2019)):
        doc_id = f"{ticker}/{year}/page_1.pdf"
        documents[doc_id] = Document(doc_id=doc_id, company=ticker, fiscal_year=year)
        texts = [
            f"revenue grew strongly this year to {100 + 37 * offset} million",
            f"operating costs rose this year to {50 + 11 * offset} million",
            f"the company had {1000 + offset} employees at year end",
        ]
        passages += [
            Passage(id=f"{doc_id}:t{i}", doc_id=doc_id, page=1, kind="text", text=t)
            for i, t in enumerate(texts)
        ]
        queries.append(
            TrainingQuery(
                id=f"{ticker}-{year}",
                question=f"how much did revenue grow in {year}?",
                doc_id=doc_id,
                gold=frozenset({f"{doc_id}:t0"}),
            )
        )
    return MemoryHybrid(passages, documents, embedder), queries


def groups_for(tickers: list[str]):
    embedder, out = fake_embedder(), []
    for ticker in tickers:
        hybrid, queries = company_pool(ticker, embedder)
        out += build_groups(queries, hybrid, depth=9, negatives=NegativeSettings(n_random=1))[0]
    return out


def top1(groups, reranker: Reranker | None) -> float:
    hits = []
    for group in groups:
        candidates = group.candidates[: group.retrieved]
        if reranker is not None:
            candidates = reranker.rerank(group.query.question, candidates)
        hits.append(candidates[0].passage.id in group.query.gold)
    return float(np.mean(hits))


def test_training_on_a_tiny_synthetic_set_learns_to_put_the_gold_first() -> None:
    train = groups_for([f"T{i}" for i in range(8)])
    test = groups_for([f"H{i}" for i in range(4)])
    assert all(g.labels.sum() == 1 for g in train)
    reranker = Reranker(fit(train, FAST))
    assert top1(test, reranker) == 1.0
    assert top1(test, None) < 0.7


def test_fit_is_deterministic() -> None:
    groups = groups_for(["T0", "T1", "T2", "T3"])
    assert fit(groups, FAST).model_to_string() == fit(groups, FAST).model_to_string()


def test_build_groups_adds_mined_negatives_after_the_retrieved() -> None:
    hybrid, queries = company_pool("ACME", fake_embedder())
    groups, reasons = build_groups(queries, hybrid, depth=3, pages=0)
    assert reasons["period"] > 0
    for group in groups:
        assert group.retrieved == 3 and len(group.candidates) > 3
        assert all(c.fused_rank is None for c in group.candidates[3:])
        assert group.features.shape[0] == len(group.labels) == len(group.candidates)


def test_hybrid_adds_the_other_passages_of_the_top_pages() -> None:
    hybrid, _ = company_pool("ACME", fake_embedder())
    query = "how many employees at year end in 2018?"
    fused = hybrid.candidates(query, depth=2, pages=0)
    expanded = hybrid.candidates(query, depth=2, pages=1)
    assert [c.fused_rank for c in fused] == [1, 2]
    assert expanded[:2] == fused
    (top_page,) = {c.passage.doc_id for c in expanded if c.page_rank == 1}
    added = expanded[2:]
    assert added and all(c.fused_rank is None and c.dense_score is not None for c in added)
    on_top = {c.passage.id for c in expanded if c.passage.doc_id == top_page}
    assert on_top == {p.id for p in hybrid.passages if p.doc_id == top_page}
    assert hybrid.search(query, 2, "hybrid") == [c.passage.id for c in fused]


def test_document_folds_keep_a_document_in_one_fold() -> None:
    groups = groups_for(["T0", "T1", "T2", "T3"])
    folds = document_folds(groups, 3)
    assert sum(len(f) for f in folds) == len(groups)
    docs = [{g.query.doc_id for g in fold} for fold in folds]
    assert all(not a & b for i, a in enumerate(docs) for b in docs[i + 1 :])
    scores = cross_validate(groups, FAST, folds=3)
    assert scores.queries == len(groups)


@pytest.mark.data
def test_train_reranker_on_finqa_train_sample_writes_the_artifact(
    shared_data_dir: Path, tmp_path: Path
) -> None:
    report = train_reranker(
        ["finqa:train_sample100"],
        tmp_path,
        data_dir=shared_data_dir,
        embedder=fake_embedder(),
        params=FAST,
        folds=2,
    )
    assert report.groups >= 90 and report.positives > report.groups
    assert {"period", "entity", "metric"} <= set(report.negatives_by_reason)
    manifest = json.loads((tmp_path / "training.json").read_text())
    assert manifest["data_files"]["finqa:train_sample100"]
    assert set(manifest["data_files"]) >= {"finqa:dev848", "convfinqa:dev"}
    assert Reranker.load(tmp_path).trained


@pytest.mark.data
def test_convfinqa_dev_is_refused_as_training_data(shared_data_dir: Path, tmp_path: Path) -> None:
    with pytest.raises(DataLeakError):
        train_reranker(
            ["convfinqa:dev"],
            tmp_path,
            eval_specs=["finqa:dev848"],
            data_dir=shared_data_dir,
            embedder=fake_embedder(),
        )


def pipeline_search(tickers: list[str]):
    """An in-memory index of the company pools' passages behind the search pipeline."""
    from filingqa.retrieval.index import PassageIndex
    from filingqa.retrieval.search import FilingSearch, SearchSettings

    embedder = fake_embedder()
    index = PassageIndex.open(":memory:", embedder)
    queries = []
    for ticker in tickers:
        hybrid, pool = company_pool(ticker, embedder)
        index.add(hybrid.passages, hybrid.documents.values(), progress=False)
        queries += pool
    # Fused order, not page order: these tests are about what the reranker learns from the
    # candidates; with pages=True its held-out top-1 here falls from 1.0 to 2/3 (the page
    # ordering moves the fused-rank features), an open question for retraining.
    settings = SearchSettings(candidates=9, documents=2, pages=False)
    return FilingSearch(index, None, None, settings), queries


def eval_queries(queries: list[TrainingQuery]):
    from filingqa.evaluation.retrieval import EvalQuery, Target

    return [
        EvalQuery(
            id=q.id,
            question=q.question,
            targets=(Target(doc_id=q.doc_id, terms=frozenset(tokenize("revenue grew"))),),
        )
        for q in queries
    ]


def test_candidate_recorder_keeps_what_the_pipeline_hands_it_in_fused_order() -> None:
    from filingqa.optimizers.train_reranker import CandidateRecorder
    from filingqa.retrieval.search import FilingSearch

    search, queries = pipeline_search(["T0"])
    recorder = CandidateRecorder()
    pipeline = FilingSearch(search.index, None, recorder, search.settings)
    ranked = pipeline.ranked(queries[0].question, k=3)
    assert len(recorder.candidates) >= 3
    assert [r.passage.id for r in ranked] == [c.passage.id for c in recorder.candidates[:3]]
    assert [c.fused_rank for c in recorder.candidates] == sorted(
        c.fused_rank for c in recorder.candidates
    )


def test_pipeline_groups_label_the_candidates_holding_a_target() -> None:
    from filingqa.optimizers.train_reranker import pipeline_groups

    search, queries = pipeline_search(["T0", "T1"])
    groups = pipeline_groups(eval_queries(queries), search)
    assert len(groups) == len(queries)
    for group in groups:
        positives = {c.passage.id for c, y in zip(group.candidates, group.labels, strict=True) if y}
        assert positives == group.query.gold == {f"{group.query.doc_id}:t0"}
        assert group.features.shape == (len(group.candidates), len(FEATURE_NAMES))
        assert group.retrieved == len(group.candidates)


def pipeline_groups_for(tickers: list[str]):
    """Pipeline groups of each company's pool, searched on its own (questions name no
    company, so pooled companies could not be told apart)."""
    from filingqa.optimizers.train_reranker import pipeline_groups

    out = []
    for ticker in tickers:
        search, queries = pipeline_search([ticker])
        out += pipeline_groups(eval_queries(queries), search)
    return out


def test_a_reranker_fit_on_pipeline_groups_finds_the_year_the_text_cannot() -> None:
    train = pipeline_groups_for([f"T{i}" for i in range(8)])
    test = pipeline_groups_for([f"H{i}" for i in range(4)])
    reranker = Reranker(fit(train, FAST))
    assert top1(test, reranker) == 1.0
    assert top1(test, None) < 0.7
