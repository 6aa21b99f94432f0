"""Reranker features, fallback order, parent promotion and model save/load."""

from __future__ import annotations

import json
import math
from pathlib import Path

import lightgbm
import numpy as np
import pytest

from filingqa.records.documents import Document, Passage
from filingqa.retrieval.index.signals import from_payload, passage_signals, to_payload
from filingqa.retrieval.search.rerank import (
    FEATURES_FILE,
    TRAINING_FILE,
    Reranker,
    promote_parents,
)
from filingqa.retrieval.search.rerank_features import (
    FEATURE_NAMES,
    Candidate,
    analyse_query,
    candidate_documents,
    feature_matrix,
    features,
    from_hits,
    item_prior,
    list_stats,
    query_companies,
    query_info,
)

ACME = Document(doc_id="ACME_2019_10K", company="Acme Corp", ticker="ACM", fiscal_year=2019)
BETA = Document(doc_id="BETA_2017_10K", company="Beta Inc", ticker="BTA", fiscal_year=2017)


def passage(pid: str, text: str, *, kind: str = "text", parent: str | None = None, **kw) -> Passage:
    doc_id = kw.pop("doc_id", "ACME_2019_10K")
    return Passage(id=pid, doc_id=doc_id, page=1, kind=kind, text=text, parent_id=parent, **kw)


def candidate(p: Passage, rank: int | None, document: Document | None = ACME, **kw) -> Candidate:
    return Candidate(passage=p, document=document, fused_rank=rank, **kw)


def named(values: list[float]) -> dict[str, float]:
    assert len(values) == len(FEATURE_NAMES)
    return dict(zip(FEATURE_NAMES, values, strict=True))


def test_features_of_a_matching_and_a_mismatching_candidate() -> None:
    query = "What were Acme's net sales in 2019?"
    info = analyse_query(query, companies=["Acme"])
    good = candidate(
        passage("a", "Net sales: 2019: 1,200; 2018: 1,100", kind="table", item="Item 8"),
        1,
        dense_score=0.8,
        dense_rank=1,
        sparse_score=12.0,
        sparse_rank=2,
    )
    bad = candidate(
        passage("b", "Operating income in 2017 was 50", doc_id="BETA_2017_10K", item="Item 1A"),
        2,
        BETA,
        dense_score=0.6,
        dense_rank=2,
    )
    stats = list_stats([good, bad])
    g, b = named(features(query, info, good, stats)), named(features(query, info, bad, stats))
    assert (g["period_match"], g["period_conflict"], g["doc_year_distance"]) == (1.0, 0.0, 0.0)
    assert (b["period_match"], b["period_conflict"], b["doc_year_distance"]) == (0.0, 1.0, 2.0)
    assert (g["company_match"], b["company_match"]) == (1.0, 0.0)
    assert (g["metric_overlap"], b["metric_overlap"]) == (1.0, 0.0)
    assert (g["is_table"], b["is_table"]) == (1.0, 0.0)
    assert (g["item_prior"], b["item_prior"]) == (1.0, 0.0)
    assert g["dense_gap"] == 0.0 and b["dense_gap"] == pytest.approx(0.2)
    assert g["sparse_rel"] == 1.0 and math.isnan(b["sparse_rel"])
    assert (g["in_both"], b["in_both"]) == (1.0, 0.0)
    assert math.isnan(b["sparse_rank"]) and g["fused_rank"] == 1.0
    assert g["query_years"] == 1.0 and g["query_metrics"] == 1.0


def test_features_not_applicable_are_nan() -> None:
    query = "How many employees does the company have?"
    row = named(
        features(query, analyse_query(query), candidate(passage("a", "We employ 5,000."), 1))
    )
    for name in ("period_match", "doc_year_distance", "company_match", "metric_overlap"):
        assert math.isnan(row[name]), name
    assert math.isnan(row["dense_score"]) and math.isnan(item_prior(None))


def test_segment_query_penalises_consolidated_passage() -> None:
    query = "Segment operating income in 2019"
    info = analyse_query(query)
    seg = candidate(passage("s", "Operating income by segment 2019"), 1)
    whole = candidate(passage("c", "Consolidated operating income 2019"), 2)
    assert named(features(query, info, seg))["granularity_match"] == 1.0
    assert named(features(query, info, whole))["granularity_match"] == -1.0


def test_page_features_aggregate_the_candidates_of_a_page() -> None:
    items = [
        candidate(passage("a", "x"), 1, page_rank=2, page_score=5.0),
        candidate(passage("b", "y", doc_id="OTHER"), 2, page_rank=1, page_score=10.0),
        candidate(passage("c", "z"), 3, page_rank=2, page_score=5.0),
        candidate(passage("d", "w", doc_id="THIRD"), None),
    ]
    matrix = feature_matrix("q", items)
    column = {name: list(matrix[:, i]) for i, name in enumerate(FEATURE_NAMES)}
    assert column["page_candidates"] == [2.0, 1.0, 2.0, 0.0]
    assert column["page_rank"][:3] == [1.0, 2.0, 1.0] and math.isnan(column["page_rank"][3])
    assert column["page_share"][0] == 1.0 and 0 < column["page_share"][1] < 1
    assert column["page_search_rank"][:3] == [2.0, 1.0, 2.0]
    assert column["page_search_rel"] == [0.5, 1.0, 0.5, 0.0]


def test_query_numbers_exclude_years() -> None:
    info = analyse_query("Why did revenue of 1,200 in 2019 rise?")
    assert info.numbers == {"1200"} and info.years == {2019}
    row = named(features(info.text, info, candidate(passage("a", "revenue was 1,200"), 1)))
    assert row["number_overlap"] == 1.0


def test_query_companies_come_from_the_candidates_documents() -> None:
    docs = [ACME, BETA, None, Document(doc_id="JNJ", company="JOHNSON JOHNSON")]
    assert query_companies("What were Acme Corp's net sales?", docs) == ("Acme Corp", "ACM")
    assert query_companies("Johnson & Johnson revenue", docs) == ("JOHNSON JOHNSON",)
    assert query_companies("What were net sales?", docs) == ()
    items = [candidate(passage("a", "Net sales 2019"), 1), candidate(passage("b", "x"), 2, BETA)]
    matrix = feature_matrix("Acme net sales", items)
    assert list(matrix[:, FEATURE_NAMES.index("company_match")]) == [1.0, 0.0]


def test_query_info_takes_the_companies_given_else_those_the_query_names() -> None:
    items = [candidate(passage("a", "x"), 1), candidate(passage("b", "y"), 2, BETA)]
    named = query_info("What were Acme Corp's net sales in 2019?", items)
    assert named.companies == ("Acme Corp", "ACM") and named.years == {2019}
    given = query_info("What were Acme Corp's net sales in 2019?", items, ["Beta Inc"])
    assert given.companies == ("Beta Inc",)
    assert query_info("What were net sales?", items).companies == ()


def test_candidate_documents_are_distinct_and_skip_unknown() -> None:
    items = [
        candidate(passage("a", "x"), 1),
        candidate(passage("b", "y"), 2, BETA),
        candidate(passage("c", "z"), 3),
        candidate(passage("d", "w"), 4, None),
    ]
    assert candidate_documents(items) == [ACME, BETA]


def test_from_hits_takes_ranks_and_documents() -> None:
    class Hit:
        def __init__(self, p: Passage, dense: int | None, sparse: int | None) -> None:
            self.passage, self.dense_rank, self.sparse_rank = p, dense, sparse

    hits = [Hit(passage("a", "x"), 2, None), Hit(passage("b", "y", doc_id="BETA_2017_10K"), 1, 1)]
    made = from_hits(hits, {"BETA_2017_10K": BETA})
    assert [(c.fused_rank, c.dense_rank, c.sparse_rank) for c in made] == [(1, 2, None), (2, 1, 1)]
    assert made[0].document is None and made[1].document == BETA and made[1].dense_score is None


def test_untrained_reranker_keeps_fused_order() -> None:
    items = [
        candidate(passage(f"p{i}", f"text number {i} here"), r)
        for i, r in [(0, 3), (1, None), (2, 1)]
    ]
    ranked = Reranker(dedup_threshold=None, promote_k=None).rerank("q", items)
    assert [c.passage.id for c in ranked] == ["p2", "p0", "p1"]
    assert Reranker().rerank("q", []) == []


def test_reranker_drops_boilerplate_duplicates() -> None:
    notice = "forward looking statements involve risks and uncertainties that could differ"
    items = [candidate(passage("a", notice), 1), candidate(passage("b", notice + "."), 2)]
    assert [c.passage.id for c in Reranker().rerank("q", items)] == ["a"]


TABLE_ROWS = [
    candidate(passage("t.1", "row one", kind="table", parent="t"), 1),
    candidate(passage("x", "other"), 2),
    candidate(passage("t.2", "row two", kind="table", parent="t"), 3),
    candidate(passage("y", "another"), 4),
]
"""Two fragments of table ``t`` around two other passages, best first."""


def test_promote_parents_groups_fragments_and_brings_the_parent() -> None:
    rows = [*TABLE_ROWS, candidate(passage("t", "whole table", kind="table"), 9)]
    ranked = promote_parents(rows, k=4)
    assert [c.passage.id for c in ranked] == ["t", "t.1", "t.2", "x", "y"]
    assert [c.passage.id for c in promote_parents(rows, k=2)] == [c.passage.id for c in rows]


def test_promote_parents_without_parent_passage_only_regroups() -> None:
    assert [c.passage.id for c in promote_parents(TABLE_ROWS, k=3)] == ["t.1", "t.2", "x", "y"]


def _tiny_booster() -> lightgbm.Booster:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(60, len(FEATURE_NAMES)))
    y = (x[:, FEATURE_NAMES.index("metric_overlap")] > 0).astype(float)
    data = lightgbm.Dataset(x, y, group=[10] * 6, feature_name=list(FEATURE_NAMES))
    params = {"objective": "lambdarank", "verbosity": -1, "num_threads": 1, "min_data_in_leaf": 2}
    return lightgbm.train(params, data, num_boost_round=5)


def test_save_load_round_trip_gives_the_same_scores(tmp_path: Path) -> None:
    saved = Reranker(_tiny_booster())
    saved.save(tmp_path)
    assert (tmp_path / "model.txt").read_text().startswith("tree")
    loaded = Reranker.load(tmp_path)
    query = "net sales in 2019"
    items = [candidate(passage(f"p{i}", f"net sales {2015 + i}: {i}00"), i + 1) for i in range(4)]
    info = analyse_query(query)
    assert loaded.trained
    np.testing.assert_allclose(loaded.scores(query, items, info), saved.scores(query, items, info))
    assert feature_matrix(query, items).shape == (4, len(FEATURE_NAMES))


def test_load_reads_the_encoder_its_training_recorded(tmp_path: Path) -> None:
    Reranker(_tiny_booster()).save(tmp_path / "plain")
    assert Reranker.load(tmp_path / "plain").embedder is None
    Reranker(_tiny_booster()).save(tmp_path / "tuned")
    (tmp_path / "tuned" / TRAINING_FILE).write_text(json.dumps({"embedder": "minilm+tuned-1"}))
    assert Reranker.load(tmp_path / "tuned").embedder == "minilm+tuned-1"


def test_load_refuses_a_model_with_other_features(tmp_path: Path) -> None:
    Reranker(_tiny_booster()).save(tmp_path)
    (tmp_path / FEATURES_FILE).write_text(json.dumps({"feature_names": ["dense_score"]}))
    with pytest.raises(ValueError, match="retrain"):
        Reranker.load(tmp_path)


def test_untrained_reranker_cannot_be_saved(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="untrained"):
        Reranker().save(tmp_path)


def test_features_read_the_indexed_signals_else_the_text() -> None:
    query = "What were Acme's net sales in 2019?"
    info = analyse_query(query)
    p = passage("a", "Net sales: 2019: 1,200; 2018: 1,100", kind="table")
    stored = from_payload(to_payload(passage_signals(p.text)))
    from_text = features(query, info, candidate(p, 1))
    assert np.array_equal(from_text, features(query, info, candidate(p, 1, signals=stored)), True)
    other = candidate(p, 1, signals=passage_signals("Operating income in 2017 was 50"))
    read = named(features(query, info, other))
    assert (read["period_match"], read["metric_overlap"]) == (0.0, 0.0)
