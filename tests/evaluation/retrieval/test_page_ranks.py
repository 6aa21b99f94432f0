"""Where the served search puts the gold page, and Hit@k per group of questions."""

import math
from pathlib import Path

import pytest

from filingqa.evaluation.retrieval.gold import EvalQuery, Target
from filingqa.evaluation.retrieval.page_ranks import (
    company_folds,
    financebench_groups,
    first_gold,
    format_rates,
    gold_rank,
    hit_rates,
    ordering_results,
    paired_hits,
)
from filingqa.records.documents import Passage
from filingqa.retrieval.search.rerank_features import Candidate

from ...kit.data import write_financebench
from ..slice_fakes import synthetic_slice, use_slices


class RankedSearch:
    """A search that returns fixed pages, best first."""

    def __init__(self, pages: list[int]) -> None:
        self.pages = pages

    def ranked(self, question: str, k: int):
        passages = [
            Passage(id=f"D:p{p}:text1", doc_id="D", page=p, kind="text", text="t")
            for p in self.pages[:k]
        ]
        return [type("Result", (), {"passage": p}) for p in passages]


QUERY = EvalQuery(id="q", question="Q", targets=(Target(doc_id="D", page=7),))


def test_the_rank_is_that_of_the_first_passage_on_a_gold_page() -> None:
    assert gold_rank(RankedSearch([3, 4, 7, 7]), QUERY) == 3  # type: ignore[arg-type]
    assert gold_rank(RankedSearch([3, 4, 5]), QUERY) is None  # type: ignore[arg-type]
    assert gold_rank(RankedSearch([1] * 10 + [7]), QUERY) is None  # type: ignore[arg-type]


def test_hit_rates_per_group_over_the_questions_ranked() -> None:
    ranks = {"a": 1, "b": 4, "c": None, "d": 9}
    table = hit_rates(ranks, {"all": ["a", "b", "c", "d"], "ab": ["a", "b", "x"], "none": ["x"]})
    assert table["all"] == {"n": 4, "hit@1": 0.25, "hit@5": 0.5, "hit@10": 0.75}
    assert table["ab"] == {"n": 2, "hit@1": 0.5, "hit@5": 1.0, "hit@10": 1.0}
    assert table["none"]["n"] == 0 and math.isnan(table["none"]["hit@5"])
    assert "ab" in format_rates("served", table).splitlines()[2]


def test_first_gold_is_the_rank_of_the_first_passage_on_a_gold_page() -> None:
    def on(page: int) -> Passage:
        return Passage(id=f"D:p{page}", doc_id="D", page=page, kind="text", text="x")

    query = EvalQuery(id="q", question="?", targets=(Target(doc_id="D", page=3),))
    assert first_gold([on(1), on(3), on(3)], query) == 2
    assert first_gold([on(1), on(2)], query) is None


def test_financebench_groups_are_all_each_slice_and_each_question_type(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data_dir = write_financebench(tmp_path / "data")
    use_slices(
        monkeypatch,
        tmp_path / "slices",
        synthetic_slice("financebench:dev", "tuning", ["fb_1"], ["ACME_2024_10K"]),
        synthetic_slice("financebench:dev", "report", ["fb_2"], ["BETA_2024_10K"]),
    )
    queries = [
        EvalQuery(id=i, question="?", targets=(Target(doc_id="D", page=1),))
        for i in ("fb_1", "fb_2")
    ]
    groups = financebench_groups(queries, data_dir)
    assert groups["all"] == ["fb_1", "fb_2"]
    assert groups["financebench-dev-tuning"] == ["fb_1"]
    assert groups["financebench-dev-report"] == ["fb_2"]
    assert groups["metrics-generated"] == ["fb_1", "fb_2"]


def _candidates(pages: list[int]) -> list[Candidate]:
    return [
        Candidate(passage=Passage(id=f"D:p{p}:text{i}", doc_id="D", page=p, kind="text", text="t"))
        for i, p in enumerate(pages)
    ]


def test_each_ordering_gets_its_questions_ranks_and_rates(capsys: pytest.CaptureFixture) -> None:
    other = EvalQuery(id="r", question="R", targets=(Target(doc_id="D", page=2),))
    orders = {
        "fused": {"q": _candidates([1, 7]), "r": _candidates([3, 4])},
        "reranked": {"q": _candidates([7, 1])},
    }
    results = ordering_results(orders, [QUERY, other], {"all": ["q", "r"]})
    assert results["fused"]["ranks"] == {"q": 2, "r": None}
    assert results["reranked"]["ranks"] == {"q": 1, "r": None}  # no candidates: a miss
    assert results["reranked"]["rates"]["all"]["hit@1"] == 0.5
    assert "fused:" in capsys.readouterr().out


def test_company_folds_keep_a_company_s_questions_together() -> None:
    def asked(qid: str, doc: str) -> EvalQuery:
        return EvalQuery(id=qid, question="Q", targets=(Target(doc_id=doc, page=1),))

    queries = [asked("a1", "3M_2018_10K"), asked("a2", "3M_2022_10K"), asked("b", "AMD_2022_10K")]
    folds = company_folds(queries, folds=2)
    assert folds["a1"] == folds["a2"] and set(folds.values()) <= {0, 1}


def test_paired_hits_counts_questions_found_by_one_side_only() -> None:
    baseline = {"a": 1, "b": 6, "c": None, "d": 2}
    candidate = {"a": 3, "b": 1, "c": 9, "d": None}
    table = paired_hits(baseline, candidate, ["a", "b", "c", "d"])
    assert table["@1"] == {"won": 1, "lost": 1, "p": 0.75}
    assert table["@5"] == {"won": 1, "lost": 1, "p": 0.75}
    assert table["@10"] == {"won": 1, "lost": 1, "p": 0.75}
    assert paired_hits(baseline, candidate, ["b", "c"])["@10"] == {"won": 1, "lost": 0, "p": 0.5}
