"""Evaluation slices: dealing groups into tuning and report slices, loading the committed
slice files, and (with the shared data) that the committed slices are what they claim."""

from __future__ import annotations

import fnmatch
import tomllib
from collections import Counter
from pathlib import Path

import pytest

from filingqa.datasets import load_dataset
from filingqa.evaluation.slices.committed import (
    available_slices,
    load_slice,
    report_contexts,
    select_slice,
    slice_dir,
)
from filingqa.evaluation.slices.making import (
    ALL_QUESTIONS,
    SliceRecipe,
    deal_groups,
    group_strata,
    make_slices,
)
from filingqa.evaluation.slices.recipes import BENCHMARK_SIZE, benchmark_contexts, recipes
from filingqa.records import QARecord

from ..slice_fakes import synthetic_slice, use_slices

REPO_ROOT = Path(__file__).resolve().parents[3]
SLICED = ("tatqa:dev", "financebench:dev", "finqa:dev_sample200")
TATQA_REPORT_MINIMUM = {"arithmetic": 100, "span": 50, "multi-span": 50, "count": 1}


def record(group: int, n: int, kind: str) -> QARecord:
    """Question ``n`` of group ``g<group>``, of stratum ``kind``."""
    return QARecord(
        id=f"g{group}-q{n}",
        dataset="d",
        split="s",
        question="Q?",
        answer="1",
        answer_value=1.0,
        answer_type="number",
        documents=[f"g{group}"],
        meta={"kind": kind},
    )


def records(groups: int = 20) -> list[QARecord]:
    """Two ``a`` questions per group; every fourth group also has a ``b`` question."""
    made = []
    for g in range(groups):
        made += [record(g, 0, "a"), record(g, 1, "a")]
        if g % 4 == 0:
            made.append(record(g, 2, "b"))
    return made


def recipe(**changes: object) -> SliceRecipe:
    fields: dict = {
        "dataset": "d:s",
        "made_with": "a test",
        "group_by": "group",
        "group_of": lambda r: r.documents[0],
        "stratum_by": "kind",
        "stratum_of": lambda r: r.meta["kind"],
        "seed": 3,
        "report_quotas": {"a": 6, "b": 2},
        "tuning_quotas": {"a": 4, "b": 1},
        "tuning_first": frozenset({"g1", "g2"}),
        "tuning_first_why": "groups tuned on before",
    }
    return SliceRecipe(**(fields | changes))


def held(strata: dict[str, Counter[str]], groups: list[str]) -> Counter[str]:
    return sum((strata[g] for g in groups), Counter())


# --- dealing ---------------------------------------------------------------------------------


def test_report_is_the_shortest_seeded_prefix_meeting_every_quota() -> None:
    strata = group_strata(records(), recipe())
    deal = deal_groups(strata, recipe())
    assert held(strata, deal.report)["a"] >= 6 and held(strata, deal.report)["b"] >= 2
    shorter = held(strata, deal.report[:-1])
    assert shorter["a"] < 6 or shorter["b"] < 2
    assert not {"g1", "g2"} & set(deal.report)
    assert deal_groups(strata, recipe()) == deal
    assert deal_groups(strata, recipe(seed=4)).report != deal.report


def test_tuning_holds_the_set_aside_groups_then_meets_its_own_quotas() -> None:
    strata = group_strata(records(), recipe())
    deal = deal_groups(strata, recipe())
    assert deal.tuning[:2] == ["g1", "g2"]
    assert not set(deal.tuning) & set(deal.report)
    tuned = held(strata, deal.tuning)
    assert tuned["a"] >= 4 and tuned["b"] >= 1
    assert deal.left == len(strata) - len(deal.report) - len(deal.tuning) > 0


def test_without_tuning_quotas_tuning_takes_every_group_left() -> None:
    strata = group_strata(records(), recipe())
    deal = deal_groups(strata, recipe(tuning_quotas=None, tuning_first=frozenset()))
    assert sorted(deal.report + deal.tuning) == sorted(strata) and deal.left == 0


def test_a_quota_on_all_questions_counts_every_stratum() -> None:
    strata = group_strata(records(), recipe())
    deal = deal_groups(strata, recipe(report_quotas={ALL_QUESTIONS: 9}, tuning_quotas=None))
    assert 9 <= held(strata, deal.report).total() < 9 + 3


def test_quotas_the_groups_cannot_meet_are_an_error() -> None:
    strata = group_strata(records(), recipe())
    with pytest.raises(ValueError, match="cannot meet the quotas"):
        deal_groups(strata, recipe(report_quotas={"b": 6}))
    with pytest.raises(ValueError, match="cannot meet the quotas"):
        deal_groups(strata, recipe(report_quotas={ALL_QUESTIONS: 1000}))


def test_slices_list_their_questions_in_dataset_order_with_counts_and_how_they_were_made(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    questions = records()
    tuning, report = make_slices(questions, recipe())
    order = [r.id for r in questions]
    for made in (tuning, report):
        assert made.ids == sorted(made.ids, key=order.index)
        assert sum(made.counts.values()) == len(made.ids)
        assert made.contexts == list(dict.fromkeys(i.split("-")[0] for i in made.ids))
        assert made.made_by.startswith("a test: questions grouped by group")
        assert "random.Random(3)" in made.made_by and "groups tuned on before" in made.made_by
    assert (tuning.name, report.name) == ("d-s-tuning", "d-s-report")
    assert report.quotas == {"a": 6, "b": 2} and report.counts["b"] >= 2
    use_slices(monkeypatch, tmp_path, tuning, report)
    assert available_slices() == {"d-s-report": report, "d-s-tuning": tuning}


# --- loading -------------------------------------------------------------------------------


@pytest.fixture
def three_slices(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    use_slices(
        monkeypatch,
        tmp_path,
        synthetic_slice("tatqa:dev", "report", ["q2", "q1"], ["t2", "t1"]),
        synthetic_slice("tatqa:dev", "tuning", ["q3"], ["t3"]),
        synthetic_slice("finqa:sample", "report", ["f1"], ["F/2019/page_1.pdf"]),
    )


def test_a_slice_loads_by_name(three_slices) -> None:
    loaded = load_slice("tatqa-dev-report", dataset="tatqa:dev")
    assert (loaded.dataset, loaded.slice, loaded.ids) == ("tatqa:dev", "report", ["q2", "q1"])


@pytest.mark.parametrize(
    ("name", "dataset", "message"),
    [
        ("nope", "tatqa:dev", "unknown slice 'nope'; slices of tatqa:dev: tatqa-dev-report, "),
        ("finqa-sample-report", "tatqa:dev", "slice finqa-sample-report is of finqa:sample, not "),
        ("nope", "convfinqa:dev", "unknown slice 'nope'; no slice of convfinqa:dev; slices: fin"),
    ],
)
def test_a_name_that_is_no_slice_of_the_dataset_lists_the_slices(
    three_slices, name: str, dataset: str, message: str
) -> None:
    with pytest.raises(ValueError) as raised:
        load_slice(name, dataset=dataset)
    assert str(raised.value).startswith(message) and "\n" not in str(raised.value)


def test_select_slice_keeps_dataset_order_and_refuses_other_data(three_slices) -> None:
    questions = [record(1, 1, "a"), record(2, 2, "a"), record(3, 3, "a")]
    questions = [q.model_copy(update={"id": f"q{n}"}) for n, q in enumerate(questions, 1)]
    chosen = select_slice(questions, load_slice("tatqa-dev-report", dataset="tatqa:dev"))
    assert [r.id for r in chosen] == ["q1", "q2"]
    with pytest.raises(ValueError, match="1 of the 2 questions of slice tatqa-dev-report"):
        select_slice(questions[1:], load_slice("tatqa-dev-report", dataset="tatqa:dev"))


def test_report_contexts_are_every_report_slice_of_the_dataset_name(three_slices) -> None:
    assert report_contexts("tatqa") == {"t1", "t2"}
    assert report_contexts("finqa") == {"F/2019/page_1.pdf"}
    assert report_contexts("financebench") == frozenset()


# --- the committed slices -----------------------------------------------------------------


def test_every_sliced_dataset_has_a_committed_tuning_and_a_report_slice() -> None:
    slices = available_slices()
    for dataset in SLICED:
        roles = {s.slice for s in slices.values() if s.dataset == dataset}
        assert roles == {"tuning", "report"}, dataset


@pytest.mark.parametrize("dataset", SLICED)
def test_committed_tuning_and_report_slices_share_no_question_and_no_context(
    dataset: str,
) -> None:
    name = dataset.replace(":", "-")
    tuning = load_slice(f"{name}-tuning", dataset=dataset)
    report = load_slice(f"{name}-report", dataset=dataset)
    assert not set(tuning.ids) & set(report.ids)
    assert not set(tuning.contexts) & set(report.contexts)
    for made in (tuning, report):
        assert len(set(made.ids)) == len(made.ids) == sum(made.counts.values())
        assert "random.Random(0)" in made.made_by and made.seed == 0


def test_the_tatqa_slices_meet_their_quotas() -> None:
    for role in ("report", "tuning"):
        made = load_slice(f"tatqa-dev-{role}", dataset="tatqa:dev")
        assert all(made.counts[kind] >= n for kind, n in TATQA_REPORT_MINIMUM.items()), role
        assert all(made.counts[kind] >= n for kind, n in made.quotas.items()), role


def test_the_package_data_ships_every_slice_file() -> None:
    config = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    patterns = config["package-data"]["filingqa.evaluation.slices"]
    root = REPO_ROOT / config["package-dir"]["filingqa.evaluation"] / "slices"
    files = [path.relative_to(root).as_posix() for path in slice_dir().glob("*.json")]
    assert slice_dir() == root and len(files) == 2 * len(SLICED)
    assert all(any(fnmatch.fnmatch(f, p) for p in patterns) for f in files)


# --- against the shared data ----------------------------------------------------------------


@pytest.mark.data
@pytest.mark.parametrize("dataset", SLICED)
def test_committed_slices_hold_real_questions_disjoint_by_context(
    shared_data_dir: Path, dataset: str
) -> None:
    questions = load_dataset(dataset, data_dir=shared_data_dir)
    name = dataset.replace(":", "-")
    chosen = {}
    for role in ("tuning", "report"):
        made = load_slice(f"{name}-{role}", dataset=dataset)
        chosen[role] = select_slice(questions, made)
        assert [r.id for r in chosen[role]] == made.ids  # dataset order
        assert set(made.contexts) == {d for r in chosen[role] for d in r.documents}
    tuning_docs = {d for r in chosen["tuning"] for d in r.documents}
    assert not tuning_docs & {d for r in chosen["report"] for d in r.documents}
    if dataset == "financebench:dev":
        companies = [{r.meta["company"] for r in chosen[role]} for role in ("tuning", "report")]
        assert not companies[0] & companies[1]


@pytest.mark.data
def test_the_tatqa_report_slice_counts_are_its_answer_types(shared_data_dir: Path) -> None:
    made = load_slice("tatqa-dev-report", dataset="tatqa:dev")
    chosen = select_slice(load_dataset("tatqa:dev", data_dir=shared_data_dir), made)
    counts = Counter(r.meta["tatqa_answer_type"] for r in chosen)
    assert counts == made.counts
    assert all(counts[kind] >= n for kind, n in TATQA_REPORT_MINIMUM.items())


@pytest.mark.data
def test_the_first_100_arithmetic_benchmark_is_inside_the_tatqa_tuning_slice(
    shared_data_dir: Path,
) -> None:
    questions = load_dataset("tatqa:dev", data_dir=shared_data_dir)
    arithmetic = [r for r in questions if r.meta["tatqa_answer_type"] == "arithmetic"]
    benchmark = {r.id for r in arithmetic[:BENCHMARK_SIZE]}
    tuning = load_slice("tatqa-dev-tuning", dataset="tatqa:dev")
    assert len(benchmark) == BENCHMARK_SIZE and benchmark <= set(tuning.ids)
    assert benchmark_contexts(shared_data_dir) <= set(tuning.contexts)


@pytest.mark.data
def test_the_recipes_make_the_committed_slices_again(shared_data_dir: Path) -> None:
    committed = available_slices()
    for made_recipe in recipes(shared_data_dir):
        questions = load_dataset(made_recipe.dataset, data_dir=shared_data_dir)
        for made in make_slices(questions, made_recipe):
            assert made == committed[made.name], made.name
