"""Reranker training: groups from the search pipeline, LambdaRank fit, cross-validation, the
one training path (artifact and report), compile's reranker stage and its cost estimate."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from filingqa.datasets.registry import load_dataset
from filingqa.optimizers import compile_stages
from filingqa.optimizers import train_reranker as training
from filingqa.optimizers.budget import StageCost, estimate
from filingqa.optimizers.compile_records import RerankerStage
from filingqa.optimizers.encoder_stage import EncoderStage
from filingqa.optimizers.presets import preset
from filingqa.optimizers.reranker_cv import cross_validate, document_folds, recall_at
from filingqa.optimizers.reranker_fit import TrainParams, fit
from filingqa.optimizers.reranker_groups import (
    CandidateRecorder,
    DataLeakError,
    Group,
    SplitRun,
    check_hygiene,
    search_groups,
)
from filingqa.optimizers.train_reranker import (
    TrainingReport,
    read_report,
    train_reranker,
    training_cost,
)
from filingqa.records.documents import Document, Passage
from filingqa.retrieval.index.embedder import Embedder
from filingqa.retrieval.index.lexical import tokenize
from filingqa.retrieval.index.passage_index import PassageIndex
from filingqa.retrieval.ingest.metadata import DocumentRecord
from filingqa.retrieval.ingest.metadata_store import MetadataStore
from filingqa.retrieval.search.pipeline import FilingSearch, SearchSettings
from filingqa.retrieval.search.rerank import Reranker
from filingqa.retrieval.search.rerank_features import FEATURE_NAMES

from ..evaluation.slice_fakes import synthetic_slice, use_slices
from ..retrieval.filings import FakeEncoder, fake_embedder
from .compile_fakes import SPLIT, write_data_dir

FAST = TrainParams(num_boost_round=30, min_data_in_leaf=5, num_threads=1)
MINI = f"tatqa:{SPLIT}"


def test_check_hygiene_refuses_shared_documents(tmp_path: Path) -> None:
    first, second, third = load_dataset(MINI, write_data_dir(tmp_path))[:3]  # 2 per context
    check_hygiene([first, second], [third])
    with pytest.raises(DataLeakError, match="1 documents, 0 question ids"):
        check_hygiene([first], [second])


def test_recall_at() -> None:
    assert recall_at(["a", "b", "c"], {"a", "c"}, 2) == 0.5
    assert recall_at(["a"], set(), 5) == 0.0


def company_filings(ticker: str) -> tuple[list[Passage], list[Document], dict[str, str]]:
    """Three yearly filings whose revenue sentences differ only in their figure, and a
    question per year (``question -> its filing``): text cannot tell the filings apart,
    the filing's fiscal year can."""
    passages, documents, questions = [], [], {}
    for offset, year in enumerate((2017, 2018, 2019)):
        doc_id = f"{ticker}/{year}/page_1.pdf"
        documents.append(Document(doc_id=doc_id, company=ticker, fiscal_year=year))
        texts = [
            f"revenue grew strongly this year to {100 + 37 * offset} million",
            f"operating costs rose this year to {50 + 11 * offset} million",
            f"the company had {1000 + offset} employees at year end",
        ]
        passages += [
            Passage(id=f"{doc_id}:t{i}", doc_id=doc_id, page=1, kind="text", text=t)
            for i, t in enumerate(texts)
        ]
        questions[f"how much did revenue grow in {year}?"] = doc_id
    return passages, documents, questions


def company_search(ticker: str) -> tuple[FilingSearch, list]:
    """The search pipeline over one company's filings (in memory), and its questions with
    the revenue sentence of the question's filing as gold."""
    from filingqa.evaluation.retrieval.gold import EvalQuery, Target

    passages, documents, questions = company_filings(ticker)
    index = PassageIndex.open(":memory:", fake_embedder())
    index.add(passages, documents, progress=False)
    # fused order, not page order: these tests are about what the reranker learns from the
    # candidates, and page order moves the fused-rank features
    settings = SearchSettings(candidates=9, documents=2, pages=False)
    revenue = frozenset(tokenize("revenue grew"))
    queries = [
        EvalQuery(id=doc_id, question=question, targets=(Target(doc_id=doc_id, terms=revenue),))
        for question, doc_id in questions.items()
    ]
    store = MetadataStore([DocumentRecord(document=d, period_source="name") for d in documents], [])
    return FilingSearch(index, store, None, settings), queries


def groups_for(tickers: list[str]) -> list[Group]:
    """Search groups of each company's filings, searched on their own (questions name no
    company, so pooled companies could not be told apart)."""
    out = []
    for ticker in tickers:
        search, queries = company_search(ticker)
        out += search_groups(queries, search)
    return out


def top1(groups: list[Group], reranker: Reranker | None) -> float:
    hits = []
    for group in groups:
        candidates = group.candidates
        if reranker is not None:
            candidates = reranker.rerank(group.question, candidates)
        hits.append(candidates[0].passage.id in group.gold)
    return float(np.mean(hits))


def test_candidate_recorder_keeps_what_the_pipeline_hands_it_in_fused_order() -> None:
    search, queries = company_search("T0")
    recorder = CandidateRecorder()
    ranked = search.with_reranker(recorder).ranked(queries[0].question, k=3)
    assert len(recorder.candidates) >= 3
    assert [r.passage.id for r in ranked] == [c.passage.id for c in recorder.candidates[:3]]
    ranks = [c.fused_rank for c in recorder.candidates]
    assert ranks == sorted(ranks)
    assert recorder.info is not None and recorder.info.years == {2017}


def test_search_groups_label_the_candidates_holding_a_target() -> None:
    groups = groups_for(["T0", "T1"])
    assert len(groups) == 6
    for group in groups:
        assert group.gold == {f"{group.doc_id}:t0"}
        assert group.query_id == group.doc_id
        assert group.features.shape == (len(group.candidates), len(FEATURE_NAMES))
        assert group.labels.sum() == 1


def test_a_reranker_fit_on_search_groups_finds_the_year_the_text_cannot() -> None:
    train = groups_for([f"T{i}" for i in range(8)])
    test = groups_for([f"H{i}" for i in range(4)])
    reranker = Reranker(fit(train, FAST))
    assert top1(test, reranker) == 1.0
    assert top1(test, None) < 0.7


def test_fit_is_deterministic_and_needs_a_positive() -> None:
    groups = groups_for(["T0", "T1", "T2", "T3"])
    assert fit(groups, FAST).model_to_string() == fit(groups, FAST).model_to_string()
    unlabelled = [replace(g, labels=np.zeros_like(g.labels)) for g in groups]
    with pytest.raises(ValueError, match="no training group"):
        fit(unlabelled, FAST)


def test_document_folds_keep_a_document_in_one_fold() -> None:
    groups = groups_for(["T0", "T1", "T2", "T3"])
    folds = document_folds(groups, 3)
    assert sum(len(f) for f in folds) == len(groups)
    docs = [{g.doc_id for g in fold} for fold in folds]
    assert all(not a & b for i, a in enumerate(docs) for b in docs[i + 1 :])
    scores = cross_validate(groups, FAST, folds=3)
    assert scores.queries == len(groups)
    assert 0.0 < scores.fused_recall_at_5 <= 1.0 and 0.0 < scores.reranked_recall_at_5 <= 1.0


@pytest.fixture
def mini_data(tmp_path: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A 12-context TAT-QA-format split, indexed with a fake embedder in a throwaway home."""
    monkeypatch.setattr(Embedder, "load", classmethod(lambda cls, *a, **kw: fake_embedder()))
    return write_data_dir(tmp_path / "data")


def train_mini(out_dir: Path, data_dir: Path, **slices: list[str]) -> TrainingReport:
    return train_reranker(
        [MINI],
        out_dir,
        train_slices=slices.get("train_slices", []),
        eval_specs=[],
        data_dir=data_dir,
        params=FAST,
        folds=2,
    )


def test_a_tuned_encoders_reranker_trains_over_indexes_of_its_own(
    mini_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, isolated_home: Path
) -> None:
    def load(cls: type[Embedder], model: str | None = None, **_: object) -> Embedder:
        plain = fake_embedder()
        return Embedder("tuned-x", plain.dim, FakeEncoder()) if model == "tuned-x" else plain

    monkeypatch.setattr(Embedder, "load", classmethod(load))
    report = train_reranker(
        [MINI], tmp_path / "out", eval_specs=[], data_dir=mini_data, params=FAST, folds=2,
        embedder="tuned-x",
    )  # fmt: skip
    assert report.embedder == "tuned-x" and report.groups == 24
    assert training.index_ready(MINI, "tuned-x") and not training.index_ready(MINI)
    own = isolated_home / "indexes" / f"{MINI.replace(':', '-')}@tuned-x"
    opened = PassageIndex.open(own, load(Embedder, "tuned-x"))
    try:
        assert opened.count() > 0
    finally:
        opened.close()


@pytest.fixture
def mini_slices(mini_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A tuning slice (the first 6 contexts' questions) and a report slice (the rest) of the
    mini split, in place of the committed slices."""
    records = load_dataset(MINI, mini_data)
    contexts = list(dict.fromkeys(d for r in records for d in r.documents))
    slices = [
        synthetic_slice(MINI, role, [r.id for r in records if r.documents[0] in chosen], chosen)
        for role, chosen in (("tuning", contexts[:6]), ("report", contexts[6:]))
    ]
    use_slices(monkeypatch, tmp_path / "slices", *slices)
    return mini_data


def test_a_tuning_slice_trains_the_reranker_and_a_report_slice_never_does(
    mini_slices: Path, tmp_path: Path
) -> None:
    tuning, report = f"tatqa-{SPLIT}-tuning", f"tatqa-{SPLIT}-report"
    trained = train_reranker(
        [], tmp_path / "out", train_slices=[tuning], eval_specs=[], data_dir=mini_slices,
        params=FAST, folds=2,
    )  # fmt: skip
    assert trained.train_slices == [tuning] and list(trained.splits) == [tuning]
    assert (trained.queries, trained.groups) == (12, 12)  # the tuning slice's questions only
    assert list(trained.data_files) == [MINI]
    assert training.index_ready(tuning)
    for name, error in ((report, "is a report slice"), ("tatqa-nope-tuning", "unknown slice")):
        with pytest.raises(ValueError, match=error):
            train_reranker(
                [], tmp_path / "no", train_slices=[name], eval_specs=[], data_dir=mini_slices
            )
    assert not (tmp_path / "no").exists()


def test_the_training_path_indexes_searches_fits_and_saves_a_loadable_reranker(
    mini_data: Path, tmp_path: Path
) -> None:
    assert not training.index_ready(MINI)
    report = train_mini(tmp_path / "out", mini_data)
    assert Reranker.load(tmp_path / "out").trained
    assert read_report(tmp_path / "out") == report
    assert (report.queries, report.groups) == (24, 24)
    assert report.positives >= report.groups and report.candidates > report.positives
    assert report.search == training.TRAINING_SEARCH.model_dump()
    assert list(report.data_files) == [MINI]
    run = report.splits[MINI]
    assert (run.questions, run.groups) == (24, 24)
    assert run.first_build_seconds is not None and run.search_seconds > 0
    assert report.cross_validation.queries == 24
    assert training.index_ready(MINI)
    again = train_mini(tmp_path / "again", mini_data)
    assert again.splits[MINI].first_build_seconds == run.first_build_seconds  # reused
    model = (tmp_path / "out" / "model.txt").read_text()
    assert (tmp_path / "again" / "model.txt").read_text() == model


def test_compile_trains_its_reranker_with_the_training_path(
    mini_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert compile_stages.train_reranker is training.train_reranker
    calls: list[dict] = []

    def spy(**kwargs: object) -> TrainingReport:
        calls.append(kwargs)
        return train_mini(kwargs["out_dir"], kwargs["data_dir"])

    monkeypatch.setattr(compile_stages, "train_reranker", spy)
    said: list[str] = []

    def stage() -> RerankerStage:
        out = tmp_path / "art"
        return compile_stages.train_artifact_reranker(
            out, mini_data, progress=False, say=said.append
        )

    entry = stage()
    assert [c["out_dir"] for c in calls] == [tmp_path / "art" / "reranker"]
    assert entry.train_specs == [MINI] and entry.cross_validation.queries == 24
    assert Reranker.load(tmp_path / "art" / "reranker").trained
    assert stage() == entry
    assert len(calls) == 1 and len(said) == 1  # the second run resumes from the report
    assert calls[0]["embedder"] is None and entry.embedder is None


def test_an_artifacts_reranker_learns_the_scores_of_the_artifacts_encoder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[dict] = []
    installed: list[Path] = []

    def spy(**kwargs: object) -> TrainingReport:
        calls.append(kwargs)
        raise RuntimeError("stop after the call")

    monkeypatch.setattr(compile_stages, "train_reranker", spy)
    monkeypatch.setattr("filingqa.models.embedding.install_tuned_encoder", installed.append)
    encoder = EncoderStage(
        dir="encoder", name="all-MiniLM-L6-v2+tuned-0123", sha256="0" * 64, examples=5, seconds=1.0
    )
    said: list[str] = []
    with pytest.raises(RuntimeError, match="stop after the call"):
        compile_stages.train_artifact_reranker(
            tmp_path, None, encoder, progress=False, say=said.append
        )
    assert installed == [tmp_path / "encoder"]
    assert calls[0]["embedder"] == "all-MiniLM-L6-v2+tuned-0123"
    assert said == [
        "4b/7 training the reranker over indexes embedded by all-MiniLM-L6-v2+tuned-0123 "
        "(each built unless it is)"
    ]


def split_run(questions: int, first_build_seconds: float, search_seconds: float) -> SplitRun:
    return SplitRun(
        questions=questions,
        groups=questions,
        index_seconds=0.5,
        first_build_seconds=first_build_seconds,
        search_seconds=search_seconds,
    )


def timed_report() -> TrainingReport:
    """The shipped report with round timings: 180 s searching 1,768 questions, 120 s fitting,
    index builds of 300 and 600 s."""
    splits = {
        "finqa:train_sample100": split_run(100, 300.0, 10.0),
        "tatqa:dev": split_run(1668, 600.0, 170.0),
    }
    shipped = read_report(training.shipped_artifact_dir())
    return shipped.model_copy(update={"queries": 1768, "splits": splits, "fit_seconds": 120.0})


def test_training_cost_is_questions_at_their_measured_speed_plus_fitting_and_builds() -> None:
    report = timed_report()
    built = training_cost(report, built=lambda spec: True)
    assert built.minutes == round((180.0 + 120.0) / 60, 1)
    assert "1,768 questions × 0.102 s searched" in built.basis and "indexes built" in built.basis
    fresh = training_cost(report, built=lambda spec: spec == "finqa:train_sample100")
    assert fresh.minutes == round((180.0 + 120.0 + 600.0) / 60, 1)
    assert "1 index(es) to build" in fresh.basis


def test_the_compile_estimate_counts_the_reranker_cost() -> None:
    settings = preset("bootstrap-rs", "light", local=True)
    sizes = {"train": 24, "dev": 40, "calibration": 40, "local": True}
    cost = StageCost(minutes=7.5, basis="1,768 questions × 0.1 s searched")
    without = estimate(settings, **sizes)
    with_reranker = estimate(settings, **sizes, reranker=cost)
    assert with_reranker.minutes == pytest.approx(without.minutes + 7.5)
    assert "reranker training" not in without.describe()
    line = "reranker training     ≈   7.5 min, no LM (1,768 questions × 0.1 s searched)"
    assert line in with_reranker.describe()


def test_the_shipped_report_gives_the_plan_its_reranker_cost() -> None:
    shipped = read_report(training.shipped_artifact_dir())
    assert shipped.train_specs == list(training.DEFAULT_TRAIN_SPECS)
    assert shipped.search == training.TRAINING_SEARCH.model_dump()
    cost = training.expected_cost()
    assert cost.minutes >= shipped.fit_seconds / 60 and "questions ×" in cost.basis
    anew = training.expected_cost(new_encoder=True)  # a compile's own encoder: every index new
    builds = sum(run.first_build_seconds or 0.0 for run in shipped.splits.values())
    assert anew.minutes >= round(builds / 60, 1) and "2 index(es) to build" in anew.basis


@pytest.mark.data
def test_convfinqa_dev_is_refused_as_training_data(shared_data_dir: Path, tmp_path: Path) -> None:
    with pytest.raises(DataLeakError):
        train_reranker(
            ["convfinqa:dev"], tmp_path, eval_specs=["finqa:dev848"], data_dir=shared_data_dir
        )
    assert not (tmp_path / "model.txt").exists()
