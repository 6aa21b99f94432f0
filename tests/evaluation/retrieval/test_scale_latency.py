"""Latency at scale: the synthetic corpus, a small scale run, and reading saved results."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from filingqa.evaluation.retrieval import scale_latency as scale
from filingqa.evaluation.retrieval import synthetic_filings as synthetic


def test_the_synthetic_corpus_is_sixty_companies_of_unique_passages() -> None:
    docs = synthetic.documents()
    assert len(docs) == 60 * 10 * 4
    assert len({d.company for d in docs}) == 60
    passages = list(synthetic.passages(500, docs))
    assert len({p.id for p in passages}) == len({p.text for p in passages}) == 500
    assert {p.doc_id for p in passages} <= {d.doc_id for d in docs}
    assert list(synthetic.passages(20, docs)) == passages[:20]  # seeded
    text, filters = synthetic.queries(1)[0]
    assert filters.company and filters.company[0] in text


def test_random_vectors_are_unit_length_and_seeded_by_the_text() -> None:
    embedder = synthetic.random_embedder()
    vectors = embedder.embed_passages(["a", "b", "a"])
    assert vectors.shape == (3, synthetic.DIM)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0)
    assert np.array_equal(vectors[0], vectors[2]) and not np.array_equal(vectors[0], vectors[1])


def test_a_small_scale_run_times_each_search_case(tmp_path: Path) -> None:
    row = scale.scale_run("local", 300, tmp_path, 4)
    assert (row["engine"], row["n"]) == ("local", 300)
    for case in ("hybrid", "hybrid_company_year", "hybrid_10k_tables", "dense", "sparse"):
        assert 0 <= row[case]["p50"] <= row[case]["p95"]
    assert row["hnsw_build_s"] >= 0 and row["disk_mb"] > 0
    assert not (tmp_path / "local-300").exists()  # the index is removed


def test_percentiles_are_the_median_and_the_nearest_rank_p95() -> None:
    assert scale.percentiles([float(v) for v in range(1, 101)]) == {"p50": 50.5, "p95": 95.0}


def test_saved_results_are_read_without_running_anything(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    index_json, pipeline_json = tmp_path / "results" / "i.json", tmp_path / "results" / "p.json"
    index_json.parent.mkdir()
    row = {"engine": "edge", "n": scale.SCALE_PASSAGES, "hybrid": {"p50": 2.5, "p95": 4.0}}
    index_json.write_text(json.dumps({"scale": [row]}))
    settings = {"+reranker": {"p50": 20.0, "p95": 30.0, "cpu_p50": 21.0}}
    pipeline_json.write_text(json.dumps({"passages": 100_000, "settings": settings}))
    monkeypatch.setattr(scale, "REPO", tmp_path)
    monkeypatch.setattr(scale, "INDEX_SCALE_RESULTS", index_json)
    monkeypatch.setattr(scale, "PIPELINE_SCALE_RESULTS", pipeline_json)
    monkeypatch.setattr(scale, "scale_run", lambda *a: pytest.fail("measured again"))
    index, pipeline = scale.scale_latency()
    assert (index.what, index.p50_ms, index.source) == (
        "index hybrid search",
        2.5,
        "results/i.json",
    )
    assert (pipeline.what, pipeline.p50_ms, pipeline.cpu_p50_ms) == (
        "pipeline +reranker",
        20.0,
        21.0,
    )
