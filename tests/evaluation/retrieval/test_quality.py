"""Retrieval evaluation: targets, metrics, gold from records, settings, the table."""

from __future__ import annotations

import json
import zlib
from pathlib import Path

import numpy as np
import pytest

from filingqa.evaluation.retrieval.gold import (
    EvalQuery,
    Target,
    found_targets,
    query_score,
    record_targets,
    retrieval_benchmark,
)
from filingqa.evaluation.retrieval.quality import (
    SETTING_OPTIONS,
    SETTINGS,
    IndexStats,
    RerankerUsed,
    RetrievalResults,
    SettingResult,
    check_settings,
    evaluate_setting,
    format_retrieval_table,
    percentile,
    reranker_dir,
    run_retrieval_evaluation,
    training_report,
)
from filingqa.evaluation.retrieval.scale_latency import ScaleLatency
from filingqa.records.documents import Passage
from filingqa.records.qa_record import Context, Evidence, Paragraph, QARecord, Table
from filingqa.retrieval.index.embedder import Embedder
from filingqa.retrieval.index.lexical import tokenize
from filingqa.retrieval.index.passage_index import PassageIndex
from filingqa.retrieval.ingest.filings import context_passages
from filingqa.retrieval.search.pipeline import FilingSearch, SearchSettings


def passage(pid: str, text: str, doc: str = "D", page: int = 1, parent: str | None = None):
    kind = "table" if "table" in pid else "text"
    return Passage(id=pid, doc_id=doc, page=page, kind=kind, text=text, parent_id=parent)


ROW = passage("D:p3:table1.2", "| revenue | 120 | 100 |", page=3, parent="D:p3:table1")
NOTE = passage("D:p3:text1", "Revenue grew 20% on volume.", page=3)
OTHER = passage("E:p3:table1", "| revenue | 120 | 100 |", doc="E", page=3)


def test_page_target_needs_document_and_page() -> None:
    target = Target(doc_id="D", page=3)
    assert target.found_in(ROW) and target.found_in(NOTE)
    assert not target.found_in(OTHER)
    assert not Target(doc_id="D", page=4).found_in(ROW)


def test_unit_target_matches_the_passage_or_its_parent() -> None:
    assert Target(doc_id="D", unit="D:p3:table1").found_in(ROW)
    assert Target(doc_id="D", unit="D:p3:text1").found_in(NOTE)
    assert not Target(doc_id="D", unit="D:p3:table2").found_in(ROW)


def test_terms_target_needs_every_term_on_its_document() -> None:
    target = Target(doc_id="D", terms=frozenset(tokenize("revenue 120 100")))
    assert target.found_in(ROW)
    assert not target.found_in(OTHER)  # same words, other document
    assert not Target(doc_id="D", terms=frozenset(tokenize("revenue 130"))).found_in(ROW)
    assert not Target(doc_id="D", terms=frozenset(tokenize("revenue")), kind="text").found_in(ROW)
    assert Target(doc_id="D", terms=frozenset(tokenize("revenue")), kind="text").found_in(NOTE)


def test_hit_and_recall_count_targets_in_the_top_k() -> None:
    query = EvalQuery(
        id="q",
        question="revenue?",
        targets=(Target(doc_id="D", unit="D:p3:table1"), Target(doc_id="D", unit="D:p3:text1")),
    )
    ranked = [OTHER, ROW, NOTE]
    assert found_targets(ranked, query.targets, 1) == 0
    assert found_targets(ranked, query.targets, 2) == 1
    assert query_score(ranked, query, 2, "recall") == 0.5
    assert query_score(ranked, query, 2, "hit") == 1.0
    assert query_score(ranked, query, 3, "recall") == 1.0
    assert query_score(ranked, query, 1, "hit") == 0.0


def test_percentile_is_nearest_rank() -> None:
    samples = [float(v) for v in range(1, 101)]
    assert percentile(samples, 0.5) == 51.0
    assert percentile(samples, 0.95) == 95.0
    assert percentile([7.0], 0.95) == 7.0
    assert np.isnan(percentile([], 0.5))


def finqa_record() -> QARecord:
    table = Table(
        id="t", rows=[["", "2019", "2018"], ["revenue", "120", "100"], ["cost", "80", "70"]]
    )
    paragraphs = [Paragraph(id="text_0", text="sales rose."), Paragraph(id="text_1", text="ok.")]
    return QARecord(
        id="ABC/2019/page_12.pdf-1",
        dataset="finqa",
        split="dev",
        question="what was the change in revenue?",
        answer="20",
        answer_value=20.0,
        answer_type="number",
        evidence=[
            Evidence(doc_name="ABC/2019/page_12.pdf", table_rows=[1]),
            Evidence(doc_name="ABC/2019/page_12.pdf", text_ids=["text_1"]),
        ],
        context=Context(tables=[table], paragraphs=paragraphs),
    )


def test_record_targets_locate_rows_and_paragraphs_in_the_indexed_passages() -> None:
    record = finqa_record()
    targets = record_targets(record)
    passages = context_passages(record)
    assert len(targets) == 2
    row, paragraph = targets
    assert row.terms == frozenset(tokenize("revenue 120 100"))
    assert paragraph.unit == "ABC/2019/page_12.pdf:p12:text2"
    holders = {t: [p.id for p in passages if t.found_in(p)] for t in targets}
    assert holders[row] == ["ABC/2019/page_12.pdf:p12:table1"]
    assert holders[paragraph] == ["ABC/2019/page_12.pdf:p12:text2"]


def test_table_evidence_without_rows_targets_the_whole_table() -> None:
    record = finqa_record().model_copy(
        update={"evidence": [Evidence(doc_name="ABC/2019/page_12.pdf", text="the table")]}
    )
    (target,) = record_targets(record)
    assert target.unit == "ABC/2019/page_12.pdf:p12:table1"


def test_settings_keep_the_pipeline_order_and_reject_unknown_ones() -> None:
    assert check_settings(None) == list(SETTINGS)
    assert check_settings(["+reranker", "bm25"]) == ["bm25", "+reranker"]
    with pytest.raises(ValueError, match="unknown retrieval setting"):
        check_settings(["bm42"])
    assert set(SETTING_OPTIONS) == set(SETTINGS)
    for name in SETTINGS:
        SearchSettings.model_validate(SETTING_OPTIONS[name])  # every setting is valid
    product = SearchSettings.model_validate(SETTING_OPTIONS["+reranker"])
    assert product == SearchSettings() and product.rerank and product.exhaustive
    hybrid = SearchSettings.model_validate(SETTING_OPTIONS["hybrid"])
    assert not (hybrid.filters or hybrid.expand or hybrid.exhaustive or hybrid.spread)
    pages = SearchSettings.model_validate(SETTING_OPTIONS["+pages"])
    assert pages == product.model_copy(update={"rerank": False})


def test_evaluate_setting_scores_and_times_each_query() -> None:
    queries = [
        EvalQuery(id="a", question="a", targets=(Target(doc_id="D", page=3),)),
        EvalQuery(id="b", question="b", targets=(Target(doc_id="E", page=9),)),
    ]
    result = evaluate_setting(lambda q, k: [ROW, OTHER][:k], queries, "hit", (1, 5), "fake")
    assert result.setting == "fake"
    assert result.scores == {"hit@1": 0.5, "hit@5": 0.5}
    assert result.p50_ms >= 0.0 and result.p95_ms >= result.p50_ms


def test_unknown_dataset_is_refused() -> None:
    with pytest.raises(ValueError, match="no retrieval benchmark"):
        run_retrieval_evaluation("lofin:test")


@pytest.mark.parametrize(
    ("dataset", "questions", "corpus", "metric", "ks"),
    [
        ("financebench", "financebench:dev", "financebench", "hit", (1, 5, 10)),
        ("financebench:test", "financebench:test", "financebench", "hit", (1, 5, 10)),
        ("finqa:dev", "finqa:dev848", "finqa:dev848", "recall", (5, 10)),
        (
            "finqa:train_sample100",
            "finqa:train_sample100",
            "finqa:train_sample100",
            "recall",
            (5, 10),
        ),
        ("tatqa:dev", "tatqa:dev", "tatqa:dev", "recall", (5, 10)),
    ],
)
def test_each_dataset_names_its_questions_corpus_and_metric(
    dataset: str, questions: str, corpus: str, metric: str, ks: tuple[int, ...]
) -> None:
    benchmark = retrieval_benchmark(dataset)
    assert (benchmark.questions, benchmark.corpus, benchmark.metric, benchmark.ks) == (
        questions,
        corpus,
        metric,
        ks,
    )


@pytest.mark.parametrize("dataset", ["lofin:test", "convfinqa:dev", "tatqa", "finqa"])
def test_a_dataset_without_a_retrieval_benchmark_is_refused(dataset: str) -> None:
    with pytest.raises(ValueError, match="no retrieval benchmark"):
        retrieval_benchmark(dataset)


def results(reranker: RerankerUsed | None = None) -> RetrievalResults:
    return RetrievalResults(
        dataset="finqa:dev",
        questions_from="finqa:dev848",
        metric="recall",
        ks=[5, 10],
        queries=2,
        targets=3,
        index=IndexStats(
            location="/x",
            corpus="finqa:dev848",
            files=1,
            passages=9,
            build_seconds=0.1,
            first_build_seconds=12.0,
            reused=True,
            disk_mb=1.5,
        ),
        settings=[
            SettingResult(
                setting="bm25",
                scores={"recall@5": 0.5, "recall@10": 0.75},
                p50_ms=3.0,
                p95_ms=4.0,
                cpu_p50_ms=2.0,
            )
        ],
        scale=[
            ScaleLatency(
                what="index hybrid search", passages=100_000, p50_ms=2.6, p95_ms=4.1, source="t"
            )
        ],
        reranker=reranker,
        seconds=1.0,
    )


def test_table_lists_each_setting_with_latency() -> None:
    table = format_retrieval_table(results())
    assert table.startswith("finqa:dev (finqa:dev848): 2 questions, 3 gold targets")
    assert "bm25" in table and "50.0%" in table and "75.0%" in table
    assert "reused" in table and "12 s" in table and "100,000" in table
    assert "reranker:" not in table


def test_table_names_the_reranker_and_says_when_none_was_trained() -> None:
    trained = RerankerUsed(directory="/r", trained=True, training={"train_specs": ["tatqa:dev"]})
    assert "reranker: /r (trained on tatqa:dev)" in format_retrieval_table(results(trained))
    missing = RerankerUsed(directory="/r", trained=False)
    assert "no trained model at /r: +reranker kept the fused order" in format_retrieval_table(
        results(missing)
    )


def write_reranker(directory: Path, train_specs: list[str]) -> Path:
    """The shipped reranker's model under ``directory``, with a report of ``train_specs``."""
    from filingqa.retrieval.search.rerank import (
        FEATURES_FILE,
        MODEL_FILE,
        TRAINING_FILE,
        shipped_artifact_dir,
    )

    directory.mkdir(parents=True)
    for name in (MODEL_FILE, FEATURES_FILE):
        (directory / name).write_bytes((shipped_artifact_dir() / name).read_bytes())
    report = {"out_dir": str(directory), "train_specs": train_specs, "queries": 3}
    (directory / TRAINING_FILE).write_text(json.dumps(report))
    return directory


def test_on_a_fresh_install_the_shipped_reranker_is_scored(isolated_home: Path) -> None:
    from filingqa.retrieval.search.rerank import shipped_artifact_dir

    shipped = shipped_artifact_dir()
    assert reranker_dir("financebench:dev") == shipped
    assert reranker_dir("finqa:dev848") == shipped
    seen = (training_report(shipped) or {}).get("train_specs", [])
    for spec in seen:  # no held-out sibling ships: kept, with a warning
        with pytest.warns(UserWarning, match=f"trained on {spec}"):
            assert reranker_dir(str(spec)) == shipped


def test_a_reranker_trained_on_the_split_is_swapped_for_its_held_out_sibling(
    isolated_home: Path,
) -> None:
    from filingqa.retrieval.search.rerank import default_artifact_dir

    default = write_reranker(default_artifact_dir(), ["tatqa:dev"])
    assert reranker_dir("finqa:dev848") == default
    sibling = write_reranker(default.with_name("reranker-without-tatqa-dev"), ["finqa:x"])
    assert reranker_dir("tatqa:dev") == sibling
    assert training_report(default) == {"out_dir": str(default), "train_specs": ["tatqa:dev"]}


def test_without_a_held_out_sibling_the_reranker_stays_with_a_warning(
    isolated_home: Path,
) -> None:
    from filingqa.retrieval.search.rerank import default_artifact_dir

    default = write_reranker(default_artifact_dir(), ["tatqa:dev"])
    with pytest.warns(UserWarning, match="trained on tatqa:dev .* optimistic"):
        assert reranker_dir("tatqa:dev") == default


def concept_embedder(dim: int = 32) -> Embedder:
    def encode(texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for term in tokenize(text):
                out[row, zlib.crc32(term.encode()) % dim] += 1.0
        return out + 1e-3

    return Embedder("bow", dim, encode)


def test_a_setting_runs_through_the_search_pipeline(tmp_path: Path) -> None:
    passages = [
        passage("D:p3:table1", "| revenue | 120 | 100 |", page=3),
        passage("D:p4:text1", "Employees numbered 900.", page=4),
        passage("E:p1:text1", "Litigation remains pending.", doc="E"),
    ]
    from filingqa.records.documents import Document

    index = PassageIndex.open(":memory:", concept_embedder())
    index.add(passages, [Document(doc_id="D"), Document(doc_id="E")], progress=False)
    search = FilingSearch(index, None, None, SearchSettings()).with_settings(
        **SETTING_OPTIONS["hybrid"]
    )
    queries = [EvalQuery(id="q", question="revenue", targets=(Target(doc_id="D", page=3),))]
    result = evaluate_setting(
        lambda q, k: [r.passage for r in search.ranked(q, k=k)], queries, "hit", (1,)
    )
    assert result.scores == {"hit@1": 1.0}


@pytest.mark.data
def test_finqa_dev_gold_is_held_by_its_own_context(shared_data_dir: Path) -> None:
    from filingqa.datasets.registry import load_dataset
    from filingqa.evaluation.retrieval.gold import finqa_queries

    queries = finqa_queries(shared_data_dir)
    assert len(queries) > 400
    records = {r.documents[0]: r for r in load_dataset("finqa:dev848", shared_data_dir)}
    for query in queries[:50]:
        own = context_passages(records[query.targets[0].doc_id])
        assert found_targets(own, query.targets, len(own)) == len(query.targets)
