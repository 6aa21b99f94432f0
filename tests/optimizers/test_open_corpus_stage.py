"""The compile's open-corpus stage over a small index (fake embedder) with a scripted LM whose
every call takes the same time on a clock it advances: all structures answer right, so the
cheapest one the paired test cannot tell from the most accurate is kept, and the compile's
manifest says so."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import dspy
import pytest

from filingqa.artifacts.manifest import PROGRAM_FILE, RERANKER_DIR, Selection
from filingqa.evaluation.runner import Row
from filingqa.lm.backbone import Backbone
from filingqa.optimizers import open_corpus_stage
from filingqa.optimizers.compile_plan import (
    CompileRequest,
    describe_plan,
    indexed_documents,
    plan_compile,
)
from filingqa.optimizers.compile_records import KeptProgram
from filingqa.optimizers.compile_stages import CompileRun
from filingqa.optimizers.open_corpus_stage import (
    CONFIRM_DIR,
    OPEN_DIR,
    PAGES_DIR,
    changes_together,
    choose_retrieval,
    open_space,
    open_start,
)
from filingqa.optimizers.presets import preset
from filingqa.optimizers.selection import confirm
from filingqa.optimizers.structure_search import Structure, candidates
from filingqa.retrieval.index.build import build_index
from filingqa.retrieval.search.pipeline import FilingSearch
from filingqa.retrieval.search.rerank import Reranker, shipped_artifact_dir

from ..kit.clock import FakeClock, time_rows_by
from ..kit.data import judged_row
from ..kit.lm import Rule, marker_lm
from ..kit.replies import (
    ACCEPT,
    AMBIGUITY,
    CURATE,
    DECOMPOSE,
    EXPLAIN,
    HYDE,
    NO_AMBIGUITY,
    REWRITE,
    VERIFY,
    WRITE,
    fenced,
)
from ..retrieval.filings import fake_embedder, write_filings
from .compile_fakes import SPLIT, write_data_dir

CALL_SECONDS = 0.03
CLOCK = FakeClock()
QUESTIONS = [
    ("What was Acme's total revenue in fiscal 2024?", "$1,250.0 million", 2),
    ("What was Acme's total revenue in fiscal 2023?", "$1,000.0 million", 2),
    ("What was Acme's net income in fiscal 2024?", "$140.0 million", 2),
]


ABSENT_FILING = "INITECH_2022_10K"


def write_financebench(data_dir: Path) -> None:
    absent = {
        "financebench_id": "fb_absent",
        "company": "Initech",
        "doc_name": ABSENT_FILING,
        "question_type": "metrics-generated",
        "question_reasoning": "lookup",
        "domain_question_num": None,
        "question": "What was Initech's total revenue in fiscal 2022?",
        "answer": "$10.0 million",
        "justification": "",
        "evidence": [
            {
                "doc_name": ABSENT_FILING,
                "evidence_page_num": 2,
                "evidence_text": "$10.0 million",
                "evidence_text_full_page": "Total revenue",
            }
        ],
    }
    rows = [
        {
            "financebench_id": f"fb_{n}",
            "company": "Acme",
            "doc_name": f"ACME_{2024 - (n == 1)}_10K",
            "question_type": "metrics-generated",
            "question_reasoning": "lookup",
            "domain_question_num": None,
            "question": question,
            "answer": answer,
            "justification": "",
            "evidence": [
                {
                    "doc_name": f"ACME_{2024 - (n == 1)}_10K",
                    "evidence_page_num": page,
                    "evidence_text": answer,
                    "evidence_text_full_page": "Total revenue",
                }
            ],
        }
        for n, (question, answer, page) in enumerate(QUESTIONS)
    ]
    folder = data_dir / "financebench"
    folder.mkdir(parents=True)
    lines = [json.dumps(r) for r in [*rows, absent]]
    (folder / "financebench_dev.jsonl").write_text("\n".join(lines) + "\n")


def slow(reply: object):
    def answer(prompt: str) -> object:
        CLOCK.advance(CALL_SECONDS)
        if callable(reply):
            return reply(prompt)
        return reply

    return answer


def program_of(prompt: str) -> str:
    question = prompt.rsplit("Question:", 1)[-1].lower()
    if "net income" in question:
        return fenced("result = 140.0")
    return fenced("result = 1000.0" if "2023" in question else "result = 1250.0")


RULES: list[Rule] = [
    (AMBIGUITY, slow(NO_AMBIGUITY)),
    (DECOMPOSE, slow({"steps": [{"question": "total revenue", "kind": "retrieval"}]})),
    (REWRITE, slow({"company": "Acme", "period": "", "variants": ["total revenue"]})),
    (HYDE, slow({"hypotheses": [{"query": "revenue", "passage": "Total revenue was"}]})),
    (CURATE, slow({"keep": [1, 2, 3], "answerable": True, "missing": "",
                   "complementary_query": ""})),
    (WRITE, slow(program_of)),
    (VERIFY, slow(ACCEPT)),
    (EXPLAIN, slow({"quote": "Total revenue"})),
]  # fmt: skip


@pytest.fixture(autouse=True)
def _timed_by_the_scripted_lm(monkeypatch: pytest.MonkeyPatch) -> None:
    time_rows_by(CLOCK, monkeypatch)


@pytest.fixture
def run(tmp_path: Path) -> CompileRun:
    data_dir = write_data_dir(tmp_path / "data")
    write_financebench(data_dir)
    index = tmp_path / "financebench-index"
    build_index(
        index, paths=write_filings(tmp_path / "filings"), embedder=fake_embedder(), progress=False
    )
    settings = preset("structure", "light", local=True).model_copy(
        update={
            "dev": [f"tatqa:{SPLIT}:6"],
            "confirm": [],
            "pool": [],
            "open_dev": ["financebench:dev"],
            "open_pages": ["financebench:dev"],
            "open_confirm": [],
            "open_index": str(index),
        }
    )
    request = CompileRequest(
        name="open",
        out_dir=tmp_path / "out",
        backbone=Backbone.parse("rules/test"),
        settings=settings,
        skip_retriever=True,
    )
    plan = plan_compile(request, data_dir)
    return CompileRun(
        plan=plan,
        lm=marker_lm(RULES),
        data_dir=data_dir,
        embedder=fake_embedder(),
        progress=False,
        say=lambda line: None,
    )


def kept_start(structure: Structure | None = None) -> KeptProgram:
    structure = structure or Structure()
    kept = "uncompiled" if structure == Structure() else "compiled"
    selection = Selection(kept=kept, wins=0, losses=0, p_value=1.0, max_p_value=0.1)
    return KeptProgram(
        selection=selection, program=structure.build(), structure=structure, worked_examples=None
    )


def test_the_plan_draws_the_open_questions_and_names_the_index(run: CompileRun) -> None:
    plan = run.plan
    assert len(plan.open_dev) == 3 and plan.open_index is not None
    held = indexed_documents(plan.open_index)
    assert held is not None and {"ACME_2023_10K", "ACME_2024_10K"} <= held
    # the question about a filing the index lacks would be answered before any search
    drawn = [*plan.open_dev, *plan.open_pages, *plan.open_confirm]
    assert ABSENT_FILING not in held and all(ABSENT_FILING not in r.documents for r in drawn)
    assert "open corpus: 3 questions (financebench:dev) searching" in describe_plan(plan)
    assert "open-corpus search" in plan.estimate.calls
    assert len(plan.open_pages) == 3 and "open-corpus pages" in plan.estimate.calls
    assert "first search alone on 3 questions (financebench:dev)" in describe_plan(plan)


def test_the_cheapest_structure_tied_with_the_most_accurate_is_kept(run: CompileRun) -> None:
    with dspy.context(lm=run.lm, adapter=dspy.JSONAdapter()):
        kept, stage = choose_retrieval(run, kept_start())
    verdicts = {c.key: c for c in stage.candidates}
    assert stage.questions == 3 and all(c.accuracy == 1.0 for c in stage.candidates)
    assert stage.index == run.settings.open_index
    assert {c.verdict for c in stage.candidates} == {"kept", "tied"}
    winner = next(c for c in stage.candidates if c.verdict == "kept")
    assert winner.seconds == min(c.seconds for c in stage.candidates)
    assert winner.seconds < verdicts["start"].seconds
    assert kept.structure.key == winner.key
    assert not kept.structure.query_writing  # the costliest step went
    assert {"curation=false", "query_writing=false", "k=5"} <= set(verdicts)
    assert (run.out / OPEN_DIR / "start.jsonl").is_file()  # rows kept: a rerun resumes
    assert stage.page_questions == 3 and all(c.page_questions == 3 for c in stage.candidates)
    searched = {path.stem for path in (run.out / OPEN_DIR / PAGES_DIR).glob("*.json")}
    assert searched == set(verdicts)  # every structure's first searches, kept
    saved = kept.structure.build()  # program.json holds every predictor the pick adds
    saved.load(str(run.out / PROGRAM_FILE))
    assert set(saved.dump_state()) == set(kept.program.dump_state())


def test_the_stage_searches_reranked_by_the_reranker_the_compile_trained(
    run: CompileRun, monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copytree(shipped_artifact_dir(), run.out / RERANKER_DIR)  # as stage 4 leaves it
    used: list[Reranker | None] = []
    reranked = FilingSearch.with_reranker

    def recording(search: FilingSearch, reranker: Reranker | None) -> FilingSearch:
        used.append(reranker)
        return reranked(search, reranker)

    monkeypatch.setattr(FilingSearch, "with_reranker", recording)
    with dspy.context(lm=run.lm, adapter=dspy.JSONAdapter()):
        kept, _ = choose_retrieval(run, kept_start())
    assert used and all(r is not None and r.trained for r in used)
    assert kept.program.reranker.trained  # the kept program searches as the stage did


def test_without_the_index_the_stage_is_skipped_and_says_how_to_build_it(
    run: CompileRun, tmp_path: Path
) -> None:
    settings = run.settings.model_copy(update={"open_index": str(tmp_path / "missing")})
    request = run.plan.request.model_copy(update={"settings": settings})
    plan = plan_compile(request, run.data_dir)
    assert plan.open_dev == [] and "filingqa index --dataset financebench" in (
        plan.open_skipped or ""
    )
    assert "open corpus: skipped" in describe_plan(plan)
    skipped = CompileRun(plan=plan, lm=run.lm, progress=False, say=lambda line: None)
    kept, stage = choose_retrieval(skipped, kept_start())
    assert kept.structure == Structure() and stage.structure is None
    assert stage.describe().startswith("skipped: no index at")


def open_candidates(kept: Structure) -> list[Structure]:
    return candidates(open_start(kept), open_space(kept), worked_examples=False)


def test_a_voting_pick_starts_with_one_vote_over_searched_evidence_and_its_votes_compete() -> None:
    voting = Structure(samples=5)
    assert open_start(voting) == Structure(samples=5, searched_samples=1)
    tried = [s.key for s in open_candidates(voting)]
    assert tried[0] == "samples=5,searched_samples=1" and "samples=5" in tried
    single = [s.key for s in open_candidates(Structure())]
    assert single[0] == "start" and not any("samples" in key for key in single)
    assert Structure(samples=3, searched_samples=3) == Structure(samples=3)


def test_a_voting_pick_keeps_its_votes_over_gold_context_and_weighs_them_over_the_index(
    run: CompileRun,
) -> None:
    with dspy.context(lm=run.lm, adapter=dspy.JSONAdapter()):
        kept, stage = choose_retrieval(run, kept_start(Structure(samples=3)))
    verdicts = {c.key: c for c in stage.candidates}
    assert {"samples=3,searched_samples=1", "samples=3"} <= set(verdicts)  # start, votes
    assert all(key.startswith("samples=3") for key in verdicts)
    assert kept.structure.samples == 3 and kept.program.reason.pot.samples == 3
    chosen = next(c.key for c in stage.candidates if c.verdict == "kept")
    assert kept.structure.key == chosen
    assert kept.program.reason.searched_samples == kept.structure.searched_samples


def confirming(run: CompileRun) -> CompileRun:
    """``run`` choosing on one question and confirming on the other filing's."""
    settings = run.settings.model_copy(
        update={"open_dev": ["financebench:dev:1"], "open_confirm": ["financebench:dev"]}
    )
    plan = plan_compile(run.plan.request.model_copy(update={"settings": settings}), run.data_dir)
    return CompileRun(
        plan=plan,
        lm=run.lm,
        data_dir=run.data_dir,
        embedder=run.embedder,
        progress=False,
        say=lambda line: None,
    )


def test_the_confirmation_shares_no_filing_with_the_choice_or_the_page_check(
    run: CompileRun,
) -> None:
    plan = confirming(run).plan
    confirmed = {d for r in plan.open_confirm for d in r.documents}
    assert plan.open_confirm and len(plan.open_dev) == 1
    assert not confirmed & {d for r in [*plan.open_dev, *plan.open_pages] for d in r.documents}
    assert "open confirmation" in plan.estimate.calls
    assert "open-corpus confirmation: a structure chosen over the start" in describe_plan(plan)


def test_a_cheaper_structure_that_holds_on_the_confirmation_is_kept(run: CompileRun) -> None:
    checked = confirming(run)
    with dspy.context(lm=checked.lm, adapter=dspy.JSONAdapter()):
        kept, stage = choose_retrieval(checked, kept_start())
    confirmation = stage.confirmation
    assert confirmation is not None and confirmation.held
    assert confirmation.start == "start" and confirmation.candidate == kept.structure.key
    assert confirmation.questions == len(checked.plan.open_confirm)
    assert confirmation.seconds[kept.structure.key] < confirmation.seconds["start"]
    assert (checked.out / OPEN_DIR / CONFIRM_DIR / "start.jsonl").is_file()
    assert "confirmation (" in stage.describe() and f"keeps the {kept.structure.key}" in (
        stage.describe()
    )


def test_a_structure_the_confirmation_does_not_keep_gives_way_to_the_start(
    run: CompileRun, monkeypatch: pytest.MonkeyPatch
) -> None:
    checked = confirming(run)

    def lost(before, after, max_p_value, *, start, candidate):  # the start told better
        confirmed = confirm(before, after, max_p_value, start=start, candidate=candidate)
        return confirmed.model_copy(update={"kept": start, "losses": len(before)})

    monkeypatch.setattr(open_corpus_stage, "confirm", lost)
    with dspy.context(lm=checked.lm, adapter=dspy.JSONAdapter()):
        kept, stage = choose_retrieval(checked, kept_start())
    assert stage.confirmation is not None and not stage.confirmation.held
    assert kept.structure == Structure() and stage.structure == Structure()
    assert next(c for c in stage.candidates if c.verdict == "kept").key != "start"


def answered_rows(seconds: float, right: set[str]) -> list[Row]:
    """Six questions' rows: ``right`` ones scored right, each taking ``seconds``."""
    return [
        judged_row(id=f"q{n}", score=float(f"q{n}" in right), seconds=seconds) for n in range(6)
    ]


def test_changes_that_cost_less_or_win_at_the_same_cost_are_combined() -> None:
    start = Structure()
    usual = {"q2", "q3", "q4", "q5"}
    rows = {
        start.key: answered_rows(10.0, usual),
        "k=5": answered_rows(6.0, usual),  # cheaper, no answer changed
        "answer_forms=guess": answered_rows(10.2, usual | {"q0", "q1"}),  # same cost, wins 2
        "curation=false": answered_rows(10.2, usual),  # same cost, wins nothing
        "hypotheses=1": answered_rows(12.0, usual | {"q0"}),  # wins, but costs more
        "decompose=false": answered_rows(5.0, set()),  # cheap, but told worse: loses 4
    }
    tried = [
        Structure(k=5),
        Structure(answer_forms="guess"),
        Structure(curation=False),
        Structure(hypotheses=1),
        Structure(decompose=False),
    ]
    assert [s.key for s in tried] == list(rows)[1:]
    together = changes_together(start, tried, rows)
    assert together == Structure(k=5, answer_forms="guess")
    one_earns = {key: rows[key] for key in (start.key, "k=5", "curation=false")}
    assert changes_together(start, [tried[0], tried[2]], one_earns) is None
