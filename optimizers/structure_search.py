"""Structure search: which of the program's options suit one backbone, chosen on dev.

A small model gains little from tuned prompt text; what it needs is the right structure:
how many programs to sample and vote over, whether the verify-revise loop earns its calls,
which deterministic checks run, how much evidence it reads, how the answer's form picks the
path, how many worked examples it is shown. A :class:`Structure` is one setting of those
options of :class:`~filingqa.program.financial_qa.FinancialQA`; the search starts from the
uncompiled program's and tries every single change of it the :data:`SearchSpace` allows,
then the start with every change that beat it, combined.

Candidates are compared by successive halving on the dev questions, by strict accuracy
(ties: fewer LM calls, then the earlier candidate, the start first): every candidate answers
the first ``first_rung`` questions, the best ``1/eta`` of them answer ``eta`` times as
many, and so on until the survivors have answered every dev question; a rung's cheapest
structure the paired test cannot tell from its most accurate goes on too. Of the last rung's
and the start, the pick is the cheapest the paired test cannot tell from the most accurate
(:mod:`~filingqa.optimizers.cost_selection`: a structure that costs more must win more).
A rung goes question by question, every candidate answering one question before
the next, so their requests over that question's evidence follow each other and an engine
that reuses a shared prefix's KV cache reads the evidence once per question. Each
candidate's rows are kept in ``rows_dir/<key>.jsonl``, so a rung reuses the questions the
candidate already answered and an interrupted search resumes. The pick is
not yet kept: the compile still compares it with the uncompiled program, paired
(:mod:`~filingqa.optimizers.selection`).

The retrieval options (``k``, ``hypotheses``, ``decompose``, ``query_writing``,
``curation``) act only when the program searches an index; the dev questions are answered
over their gold context, so they stay at their defaults here and the compile's open-corpus
stage chooses them (:mod:`~filingqa.optimizers.open_corpus_stage`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import dspy
from pydantic import BaseModel, ConfigDict, model_validator
from tqdm import tqdm

from filingqa.evaluation.modes import Mode, gold_program
from filingqa.evaluation.runner import Row, run_mode
from filingqa.metrics.judge import StrictJudge
from filingqa.optimizers.cost_selection import CostedCandidate, cheapest_tied
from filingqa.program.answer_form_decision import FormChoice
from filingqa.program.financial_qa import EVIDENCE_CHARS, FinancialQA
from filingqa.program.reasoning_loop import DEFAULT_ROUNDS, Explanations
from filingqa.program.worked_examples import WorkedExamples
from filingqa.records import QARecord
from filingqa.router.rule import LoopPolicy, loop_router


class Structure(BaseModel):
    """One setting of the program's structural options (the defaults: the uncompiled
    program's)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    samples: int = 1
    searched_samples: int | None = None
    loop: LoopPolicy = "rule"
    max_rounds: int = DEFAULT_ROUNDS
    examples_per_question: int = 0
    sign_check: bool = True
    cell_check: bool = True
    formula_notes: bool = True
    answer_forms: FormChoice = "off"
    evidence_chars: int = EVIDENCE_CHARS
    detect_ambiguity: bool = True
    k: int = 8
    hypotheses: int = 3
    decompose: bool = True
    query_writing: bool = True
    curation: bool = True
    explanations: Explanations = "free"

    @model_validator(mode="before")
    @classmethod
    def _votes_once(cls, data: Any) -> Any:
        """Votes over searched evidence equal to ``samples`` are no option of their own."""
        if isinstance(data, dict) and data.get("searched_samples") == data.get("samples", 1):
            return {**data, "searched_samples": None}
        return data

    @property
    def key(self) -> str:
        """A short stable name: the options changed from the defaults, or ``start``."""
        changed = self.model_dump(exclude_defaults=True)
        return ",".join(f"{name}={_shown(value)}" for name, value in changed.items()) or "start"

    def program_options(self) -> dict[str, Any]:
        """The options as :class:`FinancialQA` keyword arguments (the loop policy is its
        router: :func:`loop_router`)."""
        return self.model_dump(exclude={"loop"})

    def build(self, worked_examples: WorkedExamples | None = None) -> FinancialQA:
        """A fresh program with this structure."""
        return FinancialQA(
            **self.program_options(),
            router=loop_router(self.loop),
            worked_examples=worked_examples,
        )


SearchSpace = Mapping[str, Sequence[Any]]
"""For each option searched, the values tried (a value equal to the start's is skipped)."""

LOCAL_SPACE: SearchSpace = {
    "samples": (5,),
    "loop": ("never", "always"),
    "examples_per_question": (1, 2),
    "sign_check": (False,),
    "cell_check": (False,),
    "formula_notes": (False,),
    "answer_forms": ("guess", "decide"),
    "evidence_chars": (4000,),
    "detect_ambiguity": (False,),
}
"""The space for a backbone on this machine: every option that acts over gold context."""


FRESH_SHARE: dict[str, float] = {
    "samples": 1.0,
    "loop": 0.5,
    "examples_per_question": 0.4,
    "answer_forms": 0.1,
    "evidence_chars": 0.1,
    "sign_check": 0.05,
    "cell_check": 0.05,
    "formula_notes": 0.1,
    "detect_ambiguity": 0.05,
}
"""For an option changed from the start, about the time of a candidate's answer in the
time of a start's answer, for the part not answered from DSPy's cache (the requests it
shares with the start) or from the engine's KV prefix (the evidence block it shares).
A check switched off changes only the questions it would have sent back for revision, a
smaller evidence budget only the questions whose evidence exceeds it; worked examples sit
after the evidence, so the evidence's prefill is reused; ``loop`` is the ``always`` policy,
whose first passes are the start's (``never`` costs nothing: its single passes are the
start's first passes). Fitted on the local compile's search rows (docs/experiments.md)."""
EXTRA_SAMPLE_SHARE = 0.15
"""Per sample beyond the start's, the extra time of an answer: the samples are decoded in
one batch over one prefill, so only their generation adds."""


def fresh_cost(structure: Structure, start: Structure) -> float:
    """A rough time of one of ``structure``'s answers in fresh answers of the start, for
    the up-front estimate (the compile re-estimates itself once it has measured)."""
    changed = changes(structure, start) & FRESH_SHARE.keys()
    if structure.loop == "never":
        changed.discard("loop")
    if not changed:
        return 0.0  # the start's answers are the dev score before
    share = max(FRESH_SHARE[name] for name in changed)
    extra = EXTRA_SAMPLE_SHARE * max(0, structure.samples - start.samples)
    return share * (1.0 + extra)


class ScoredStructure(BaseModel):
    """A candidate and how it did on the questions it answered."""

    model_config = ConfigDict(extra="forbid")

    key: str
    structure: Structure
    questions: int
    accuracy: float
    lm_calls: float
    seconds: float
    rung: int

    @classmethod
    def of(cls, structure: Structure, rows: Sequence[Row], rung: int) -> ScoredStructure:
        n = len(rows)
        return cls(
            key=structure.key,
            structure=structure,
            questions=n,
            accuracy=round(sum(r.score for r in rows) / n, 4),
            lm_calls=round(sum(r.lm_calls for r in rows) / n, 2),
            seconds=round(sum(r.seconds for r in rows) / n, 2),
            rung=rung,
        )


def candidates(
    start: Structure, space: SearchSpace, *, worked_examples: bool = True
) -> list[Structure]:
    """The start, then every structure one option away from it; structures that show worked
    examples only when there is a pool."""
    found = [start]
    for name, values in space.items():
        for value in values:
            changed = Structure.model_validate(start.model_dump() | {name: value})
            if name == "examples_per_question" and value and not worked_examples:
                continue
            if changed not in found:
                found.append(changed)
    return found


def combined(start: Structure, scored: Sequence[ScoredStructure]) -> Structure | None:
    """The start with, for every option, the single change that beat it most (higher
    accuracy on the same questions); None unless at least two options changed."""
    baseline = next(s for s in scored if s.structure == start)
    best: dict[str, ScoredStructure] = {}
    for s in scored:
        changed = changes(s.structure, start)
        if len(changed) != 1 or s.accuracy <= baseline.accuracy:
            continue
        (name,) = changed
        if name not in best or _rank(s) < _rank(best[name]):
            best[name] = s
    if len(best) < 2:
        return None
    update = {name: getattr(s.structure, name) for name, s in best.items()}
    return Structure.model_validate(start.model_dump() | update)


def changes(structure: Structure, start: Structure) -> set[str]:
    """The options ``structure`` sets otherwise than ``start``."""
    return {name for name, value in structure.model_dump().items() if value != getattr(start, name)}


def rung_sizes(questions: int, first_rung: int, eta: int) -> list[int]:
    """How many dev questions each rung answers: ``first_rung`` times powers of ``eta``,
    the last rung all of them."""
    sizes = [min(first_rung, questions)]
    while sizes[-1] < questions:
        sizes.append(min(sizes[-1] * eta, questions))
    return sizes


ModeOf = Callable[[FinancialQA], Mode]
"""How a program answers a record: over its gold context (:func:`gold_program`), or searching
an index (:func:`~filingqa.evaluation.modes.searching_program` over an open corpus)."""


def answer_by_question(
    programs: Mapping[str, FinancialQA],
    records: Sequence[QARecord],
    *,
    judge: StrictJudge,
    rows_dir: Path,
    mode_of: ModeOf = gold_program,
    progress: bool = True,
    desc: str = "answers",
) -> dict[str, list[Row]]:
    """Every program's judged answers to ``records`` (over their gold context unless
    ``mode_of`` says otherwise), question by question (every program answers one question
    before the next, so an engine that reuses a shared prefix's KV cache reads each
    question's evidence once); the rows of the program named ``name`` are kept in
    ``rows_dir/<name>.jsonl`` (a rerun resumes there)."""
    modes = {name: mode_of(program) for name, program in programs.items()}
    rows: dict[str, list[Row]] = {name: [] for name in programs}
    with tqdm(total=len(records) * len(modes), desc=desc, disable=not progress) as bar:
        for record in records:
            for name, mode in modes.items():
                rows[name] += run_mode(
                    [record],
                    mode,
                    judge=judge,
                    rows_path=rows_dir / f"{name}.jsonl",
                    progress=False,
                )
                bar.update()
    return rows


def _rank(s: ScoredStructure) -> tuple[float, float]:
    return (-s.accuracy, s.lm_calls)


class StructureSearch(dspy.teleprompt.Teleprompter):
    """Choose the student's structure by successive halving on ``valset`` (see the module
    docstring). ``valset`` holds the dev :class:`~filingqa.datasets.QARecord` s, answered
    over their gold context and judged by ``judge``; ``trainset`` is not read (worked
    examples come from ``worked_examples``, a pool derived from gold). The student's
    prompts and demos carry over to every candidate.

    After :meth:`compile`, ``scored`` holds every candidate at the last rung it reached, in
    rank order (best first), and ``rows_of`` maps a structure to its rows file.
    """

    def __init__(
        self,
        *,
        judge: StrictJudge,
        rows_dir: Path,
        space: SearchSpace = LOCAL_SPACE,
        start: Structure | None = None,
        first_rung: int = 8,
        eta: int = 3,
        worked_examples: WorkedExamples | None = None,
        mode_of: ModeOf = gold_program,
        progress: bool = True,
        say: Callable[[str], None] = print,
    ) -> None:
        super().__init__()
        if first_rung < 1 or eta < 2:
            raise ValueError("first_rung must be at least 1 and eta at least 2")
        self.judge = judge
        self.rows_dir = rows_dir
        self.space = space
        self.start = start or Structure()
        self.first_rung = first_rung
        self.eta = eta
        self.worked_examples = worked_examples
        self.progress = progress
        self.say = say
        self.mode_of = mode_of
        self.scored: list[ScoredStructure] = []
        self.verdicts: list[CostedCandidate] = []

    def compile(
        self,
        student: FinancialQA,
        *,
        trainset: list[Any] | None = None,
        teacher: dspy.Module | None = None,
        valset: list[QARecord] | None = None,
        **kwargs: Any,
    ) -> FinancialQA:
        """The best structure's program, carrying the student's state.

        Raises:
            ValueError: no dev questions.
        """
        if not valset:
            raise ValueError("structure search needs dev questions (valset)")
        state = student.dump_state()
        alive = candidates(self.start, self.space, worked_examples=self.worked_examples is not None)
        final: dict[Structure, ScoredStructure] = {}
        sizes = rung_sizes(len(valset), self.first_rung, self.eta)
        for rung, size in enumerate(sizes):
            shape = f"{len(alive)} structures × {size} questions"
            self.say(f"    rung {rung + 1}/{len(sizes)}: {shape}")
            scored = self._score(alive, valset[:size], state, rung)
            if rung == 0:
                mixed = combined(self.start, scored)
                if mixed is not None and mixed not in alive:
                    alive.append(mixed)
                    scored += self._score([mixed], valset[:size], state, rung)
            scored.sort(key=_rank)
            final.update({s.structure: s for s in scored})
            last = rung == len(sizes) - 1
            keep = len(scored) if last else max(1, math.ceil(len(scored) / self.eta))
            alive = [s.structure for s in scored[:keep]]
            self.say("      " + "; ".join(_describe(s) for s in scored[:keep]))
            if not last:
                alive += self._cheapest_going_on(scored, alive, valset[:size], state)
        self.scored = sorted(final.values(), key=lambda s: (-s.rung, *_rank(s)))
        best = self._cheapest_tied(alive, valset, state)
        program = best.build(self.worked_examples)
        program.load_state(state)
        program.structure = best
        return program

    def _cheapest_tied(
        self, finalists: list[Structure], valset: list[QARecord], state: dict[str, Any]
    ) -> Structure:
        """Among the last rung's structures and the start (whose rows the search resumes),
        the cheapest the paired test cannot tell from the most accurate
        (:func:`~filingqa.optimizers.cost_selection.cheapest_tied`)."""
        self.verdicts, kept = self._cost_aware(finalists, valset, state, "final")
        self.say("      cost-aware pick: " + "; ".join(c.describe() for c in self.verdicts))
        return kept

    def _cheapest_going_on(
        self,
        scored: Sequence[ScoredStructure],
        alive: Sequence[Structure],
        records: Sequence[QARecord],
        state: dict[str, Any],
    ) -> list[Structure]:
        """The rung's cheapest structure the paired test cannot tell from its most accurate,
        when the ranking by accuracy did not send it on and it is not the start (which the
        last rung weighs anyway): halving by accuracy alone would drop the structure the
        cost-aware pick could keep."""
        _, cheapest = self._cost_aware([s.structure for s in scored], records, state, "cost")
        if cheapest in alive or cheapest == self.start:
            return []
        self.say(f"      and the cheapest not told worse than the best: {cheapest.key}")
        return [cheapest]

    def _cost_aware(
        self,
        structures: Sequence[Structure],
        records: Sequence[QARecord],
        state: dict[str, Any],
        desc: str,
    ) -> tuple[list[CostedCandidate], Structure]:
        """The verdicts of ``structures`` and the start over ``records``, and the structure
        kept: the cheapest the paired test cannot tell from the most accurate."""
        contenders = list(dict.fromkeys([*structures, self.start]))
        programs = {s.key: self._program(s, state) for s in contenders}
        rows = answer_by_question(
            programs,
            records,
            judge=self.judge,
            rows_dir=self.rows_dir,
            mode_of=self.mode_of,
            progress=self.progress,
            desc=desc,
        )
        verdicts = cheapest_tied(rows, self.start.key)
        kept = next(c.key for c in verdicts if c.verdict == "kept")
        return verdicts, next(s for s in contenders if s.key == kept)

    def rows_of(self, structure: Structure) -> Path:
        """Where the rows of ``structure``'s dev answers are kept."""
        return self.rows_dir / f"{structure.key}.jsonl"

    def _score(
        self,
        structures: Sequence[Structure],
        records: Sequence[QARecord],
        state: dict[str, Any],
        rung: int,
    ) -> list[ScoredStructure]:
        """Every structure's answers to ``records``, question by question."""
        programs = {s.key: self._program(s, state) for s in structures}
        rows = answer_by_question(
            programs,
            records,
            judge=self.judge,
            rows_dir=self.rows_dir,
            mode_of=self.mode_of,
            progress=self.progress,
            desc=f"rung {rung + 1}",
        )
        return [ScoredStructure.of(s, rows[s.key], rung) for s in structures]

    def _program(self, structure: Structure, state: dict[str, Any]) -> FinancialQA:
        program = structure.build(self.worked_examples)
        program.load_state(state)
        return program


def _shown(value: object) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def _describe(s: ScoredStructure) -> str:
    return f"{s.key} {s.accuracy:.0%} ({s.lm_calls:g} calls/q)"
