"""Structure search: candidates, successive halving, and the choice a scripted backbone earns."""

from __future__ import annotations

import inspect
from pathlib import Path

import dspy
import pytest

from filingqa.datasets import load_dataset
from filingqa.lm.trace import Step
from filingqa.metrics.judge import StrictJudge
from filingqa.optimizers.cost_selection import priced, priced_rows
from filingqa.optimizers.structure_search import (
    ScoredStructure,
    Structure,
    StructureSearch,
    answer_by_question,
    candidates,
    combined,
    rung_sizes,
)
from filingqa.program.financial_qa import FinancialQA
from filingqa.program.worked_examples import WorkedExample, WorkedExamples
from filingqa.records import QARecord

from ..kit.data import judged_row
from ..retrieval.filings import fake_embedder
from .compile_fakes import SPLIT, rule_lm, write_data_dir

START = Structure(loop="never", detect_ambiguity=False)


@pytest.fixture
def dev(tmp_path: Path) -> list[QARecord]:
    return load_dataset(f"tatqa:{SPLIT}", write_data_dir(tmp_path / "data", contexts=4))


def scored(structure: Structure, accuracy: float, calls: float = 2.0) -> ScoredStructure:
    return ScoredStructure(
        key=structure.key,
        structure=structure,
        questions=10,
        accuracy=accuracy,
        lm_calls=calls,
        seconds=1.0,
        rung=0,
    )


def search(tmp_path: Path, space, **options) -> StructureSearch:
    return StructureSearch(
        judge=StrictJudge(lm=None),
        rows_dir=tmp_path / "search",
        space=space,
        start=START,
        first_rung=4,
        eta=2,
        progress=False,
        say=lambda line: None,
        **options,
    )


def test_the_key_names_the_changes_from_the_defaults() -> None:
    assert Structure().key == "start"
    assert Structure(samples=5, sign_check=False).key == "samples=5,sign_check=false"


def test_candidates_are_the_start_and_every_single_change() -> None:
    space = {"samples": (1, 3), "loop": ("never", "always"), "examples_per_question": (2,)}
    found = candidates(START, space, worked_examples=False)
    assert [s.key for s in found] == [
        START.key,
        f"samples=3,{START.key}",
        "loop=always,detect_ambiguity=false",
    ]


def test_a_pool_adds_the_worked_example_candidates() -> None:
    found = candidates(Structure(), {"examples_per_question": (1, 2)}, worked_examples=True)
    assert [s.examples_per_question for s in found] == [0, 1, 2]


def test_the_changes_that_beat_the_start_are_combined() -> None:
    start = Structure()
    runs = [
        scored(start, 0.5),
        scored(Structure(samples=3), 0.6),
        scored(Structure(samples=5), 0.7),
        scored(Structure(loop="never"), 0.6, calls=1.0),
        scored(Structure(cell_check=False), 0.4),
    ]
    assert combined(start, runs) == Structure(samples=5, loop="never")
    assert combined(start, runs[:3]) is None  # one option changed: already a candidate


def test_changes_are_counted_from_the_start_not_the_defaults() -> None:
    runs = [
        scored(START, 0.5),
        scored(START.model_copy(update={"loop": "always"}), 0.7),
        scored(START.model_copy(update={"detect_ambiguity": True}), 0.6),
    ]
    assert combined(START, runs) == Structure(loop="always")


def test_rungs_grow_by_eta_up_to_every_question() -> None:
    assert rung_sizes(40, 8, 3) == [8, 24, 40]
    assert rung_sizes(40, 10, 2) == [10, 20, 40]
    assert rung_sizes(5, 8, 3) == [5]


@pytest.mark.parametrize(("loop_helps", "chosen"), [(True, "always"), (False, "never")])
def test_the_loop_goes_to_a_backbone_it_helps_and_not_to_one_it_does_not(
    tmp_path: Path, dev: list[QARecord], loop_helps: bool, chosen: str
) -> None:
    optimizer = search(tmp_path, {"loop": ("always",)})
    with dspy.context(lm=rule_lm(demos_help=False, loop_helps=loop_helps)):
        program = optimizer.compile(FinancialQA(), trainset=[], valset=dev)
    assert program.structure.loop == chosen
    assert isinstance(program, FinancialQA)
    assert {s.key for s in optimizer.scored} == {START.key, "loop=always,detect_ambiguity=false"}
    best = optimizer.scored[0]
    assert best.structure.loop == chosen and best.questions == len(dev)
    if loop_helps:
        assert best.accuracy == 1.0 and optimizer.scored[1].accuracy == 0.5
    else:  # the same accuracy: the loop's extra calls decide
        assert best.lm_calls < optimizer.scored[1].lm_calls


def test_worked_examples_are_chosen_when_they_help(tmp_path: Path, dev: list[QARecord]) -> None:
    pool = WorkedExamples(
        [
            WorkedExample(
                id="x",
                question="What was the percentage change in the revenue from 2018 to 2019?",
                program="new = 5\nold = 4\nresult = (new - old) / old * 100",
            )
        ],
        embedder=fake_embedder(),
    )
    optimizer = search(tmp_path, {"examples_per_question": (1,)}, worked_examples=pool)
    with dspy.context(lm=rule_lm()):
        program = optimizer.compile(FinancialQA(), trainset=[], valset=dev)
    assert program.structure.examples_per_question == 1
    assert program.pot.worked_examples is pool and program.pot.examples_per_question == 1


def test_a_rerun_answers_from_the_rows_it_kept(tmp_path: Path, dev: list[QARecord]) -> None:
    lm = rule_lm(demos_help=False)
    with dspy.context(lm=lm):
        search(tmp_path, {"loop": ("always",)}).compile(FinancialQA(), valset=dev)
    calls = lm.engine.calls
    with dspy.context(lm=lm):
        again = search(tmp_path, {"loop": ("always",)})
        again.compile(FinancialQA(), valset=dev)
    assert lm.engine.calls == calls
    assert again.scored[0].structure.loop == "always"


def test_a_rung_goes_question_by_question(tmp_path: Path, dev: list[QARecord]) -> None:
    lm = rule_lm(demos_help=False)
    questions = dev[:4]
    with dspy.context(lm=lm):
        search(tmp_path, {"loop": ("always",)}).compile(FinancialQA(), valset=questions)
    asked = [
        next(i for i, record in enumerate(questions) if record.question in prompt)
        for prompt in lm.engine.prompts
    ]
    assert asked == sorted(asked)  # both structures answer a question before the next
    assert len(set(asked)) == len(questions)


def test_named_programs_answer_every_question_into_their_own_rows(
    tmp_path: Path, dev: list[QARecord]
) -> None:
    programs = {
        "start": START.build(),
        "always": START.model_copy(update={"loop": "always"}).build(),
    }
    with dspy.context(lm=rule_lm(demos_help=False)):
        rows = answer_by_question(
            programs, dev[:3], judge=StrictJudge(lm=None), rows_dir=tmp_path, progress=False
        )
    assert {name: [r.id for r in found] for name, found in rows.items()} == {
        "start": [r.id for r in dev[:3]],
        "always": [r.id for r in dev[:3]],
    }
    assert sorted(p.name for p in tmp_path.glob("*.jsonl")) == ["always.jsonl", "start.jsonl"]
    assert rows["always"][0].lm_calls > rows["start"][0].lm_calls  # the loop always runs


def test_halving_keeps_the_better_share_each_rung(tmp_path: Path, dev: list[QARecord]) -> None:
    said: list[str] = []
    optimizer = search(tmp_path, {"loop": ("always",), "samples": (3,)})
    optimizer.say = said.append
    with dspy.context(lm=rule_lm(demos_help=False)):
        optimizer.compile(FinancialQA(), valset=dev)
    assert said[0].strip() == "rung 1/2: 3 structures × 4 questions"
    assert said[2].strip() == "rung 2/2: 2 structures × 8 questions"
    assert [s.rung for s in optimizer.scored] == [1, 1, 0]


def test_no_dev_questions_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="dev questions"):
        search(tmp_path, {}).compile(FinancialQA(), valset=[])


def test_the_start_is_the_uncompiled_program() -> None:
    defaults = {
        name: parameter.default
        for name, parameter in inspect.signature(FinancialQA.__init__).parameters.items()
        if parameter.default is not inspect.Parameter.empty
    }
    options = Structure().program_options()
    assert {name: defaults[name] for name in options} == options
    assert Structure().build().router is defaults["router"]


def test_a_step_answered_from_the_cache_is_priced_at_the_starts_step() -> None:
    def step(name: str, seconds: float, tokens: int, evaluated: int = 0, generated: int = 0):
        return Step(
            name=name,
            seconds=seconds,
            lm_calls=1,
            tokens=tokens,
            prompt_tokens_evaluated=evaluated,
            generated_tokens=generated,
        )

    start = judged_row(
        id="q",
        seconds=100.0,
        prompt_tokens_evaluated=4000,
        generated_tokens=500,
        steps=[step("retrieve", 26.0, 800, 700, 350), step("curate", 57.0, 3100, 3000, 20),
               step("reason 1", 17.0, 400, 300, 130)],
    )  # fmt: skip
    without_curation = judged_row(
        id="q",
        seconds=25.2,
        prompt_tokens_evaluated=2500,
        generated_tokens=120,
        steps=[step("retrieve", 0.1, 0), step("reason 1", 25.0, 2620, 2500, 120)],
    )
    cost = priced(without_curation, start)
    assert cost.seconds == pytest.approx(25.2 - 0.1 + 26.0)
    assert (cost.prompt_tokens_evaluated, cost.generated_tokens) == (3200, 470)
    assert priced(start, start).seconds == 100.0  # nothing of its own was cached
    assert priced(without_curation, None).seconds == 25.2  # no start row: as measured
    assert [c.seconds for c in priced_rows([without_curation], [start])] == [cost.seconds]


def write_rows(
    rows_dir: Path, structure: Structure, dev: list[QARecord], wrong: set[int], seconds: float
) -> None:
    """``structure``'s kept rows over ``dev``: right but for the questions ``wrong``."""
    rows_dir.mkdir(parents=True, exist_ok=True)
    rows = [
        judged_row(id=r.id, score=float(n not in wrong), seconds=seconds) for n, r in enumerate(dev)
    ]
    lines = [row.model_dump_json() for row in rows]
    (rows_dir / f"{structure.key}.jsonl").write_text("\n".join(lines) + "\n")


def test_a_rungs_cheapest_structure_not_told_worse_goes_on_and_can_be_picked(
    tmp_path: Path, dev: list[QARecord]
) -> None:
    always = START.model_copy(update={"loop": "always"})
    voting = START.model_copy(update={"samples": 3})
    unchecked = START.model_copy(update={"sign_check": False})
    # first rung (4 questions): the loop 4/4, the start, the votes and the unchecked 2/4
    # each; over all 8 the loop 8/8, the start 4/8, the unchecked 6/8 at half its seconds
    for structure, wrong, seconds in [
        (START, {0, 1, 4, 5}, 1.0),
        (always, set(), 3.0),
        (voting, {0, 1}, 3.0),
        (unchecked, {0, 1}, 0.5),
    ]:
        write_rows(tmp_path / "search", structure, dev[:8], wrong, seconds)
    said: list[str] = []
    optimizer = search(tmp_path, {"loop": ("always",), "samples": (3,), "sign_check": (False,)})
    optimizer.say = said.append
    lm = rule_lm(demos_help=False)
    with dspy.context(lm=lm):
        program = optimizer.compile(FinancialQA(), valset=dev[:8])
    assert lm.engine.calls == 0  # every answer came from the kept rows
    by_accuracy = f"{always.key} 100% (1 calls/q); {START.key} 50% (1 calls/q)"
    assert said[1].strip() == by_accuracy
    assert said[2].strip() == f"and the cheapest not told worse than the best: {unchecked.key}"
    assert said[3].strip() == "rung 2/2: 3 structures × 8 questions"
    assert program.structure == unchecked  # the loop's 2 wins of 8 do not pay for 6× the time
    verdicts = {c.key: c.verdict for c in optimizer.verdicts}
    assert verdicts == {unchecked.key: "kept", always.key: "tied", START.key: "worse"}
