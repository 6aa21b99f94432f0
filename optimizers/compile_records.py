"""What each stage of ``filingqa compile`` did, as one typed record per stage; the manifest
is assembled from them (:mod:`~filingqa.optimizers.compile_manifest`).

:class:`OptimizerLog` and :class:`RerankerStage` are also what the out dir keeps
(``optimizer.json``; the manifest's ``reranker`` entry), in the JSON earlier runs wrote.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from filingqa.artifacts.manifest import ROUTER_DIR, Scores, Selection
from filingqa.evaluation.runner import Row
from filingqa.optimizers.cost_selection import CostedCandidate
from filingqa.optimizers.reranker_cv import FoldScores
from filingqa.optimizers.structure_search import ScoredStructure, Structure
from filingqa.program.financial_qa import FinancialQA
from filingqa.program.worked_examples import WorkedExamples
from filingqa.router.rule import LoopPolicy
from filingqa.router.training import RouterReport


@dataclass(frozen=True)
class DevScore:
    """A program's judged answers to the dev draw (or its first questions), from
    ``rows_file``; ``charged`` is False when the rows were copied from the structure
    search, which counted their cost already."""

    rows_file: Path
    rows: tuple[Row, ...]
    charged: bool = True

    @property
    def accuracy(self) -> float:
        """Mean strict score."""
        return sum(r.score for r in self.rows) / len(self.rows)

    @property
    def lm_calls(self) -> int:
        """The LM calls this stage is charged (cached ones included)."""
        return sum(r.lm_calls for r in self.rows) if self.charged else 0

    def scores(self) -> Scores:
        """Accuracy and mean cost per question, for the manifest."""
        n = len(self.rows)
        return Scores(
            questions=n,
            accuracy=round(self.accuracy, 4),
            lm_calls=round(sum(r.lm_calls for r in self.rows) / n, 2),
            seconds=round(sum(r.seconds for r in self.rows) / n, 2),
        )

    def describe(self) -> str:
        """``dev accuracy …% on n questions``."""
        return f"dev accuracy {self.accuracy:.1%} on {len(self.rows)} questions"


class OptimizerLog(BaseModel):
    """The optimization stage's log (``optimizer.json``): the candidates' scores, its LM
    calls and seconds; for the structure search also every structure scored, the pick and
    the rows file of the pick's dev answers (relative to the out dir)."""

    candidates: list[float]
    structures: list[ScoredStructure] | None = None
    costs: list[CostedCandidate] | None = None
    structure: Structure | None = None
    rows: str | None = None
    lm_calls: int
    seconds: float

    @classmethod
    def read(cls, path: Path) -> OptimizerLog:
        """The log an earlier run wrote to ``path``."""
        return cls.model_validate(json.loads(path.read_text(encoding="utf-8")))

    def write(self, path: Path) -> None:
        """Write the log to ``path`` (the fields a prompt optimizer has not, left out)."""
        data = self.model_dump(mode="json", exclude_none=True)
        path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


@dataclass(frozen=True)
class Optimization:
    """What the optimization stage made: the compiled program, its log and (structure
    search) the worked examples it was searched with."""

    program: FinancialQA
    log: OptimizerLog
    worked_examples: WorkedExamples | None = None

    @property
    def searched_rows(self) -> str | None:
        """The rows file of the search's pick over the dev draw (None: not a search)."""
        return self.log.rows


@dataclass(frozen=True)
class KeptProgram:
    """The selection stage: the paired verdict and the program the artifact keeps (saved
    as ``program.json``), with its structure and the worked examples it is shown, and the
    two programs' answers to the confirmation draw (None: not asked)."""

    selection: Selection
    program: FinancialQA
    structure: Structure
    worked_examples: WorkedExamples | None
    confirmation: tuple[DevScore, DevScore] | None = None

    @property
    def confirmation_lm_calls(self) -> int:
        """The LM calls of the two programs' answers to the confirmation draw."""
        return sum(score.lm_calls for score in self.confirmation or ())


class RouterConfirmation(BaseModel):
    """The router against the loop policy on the confirmation draw: of its ``questions``,
    those the two send different ways (``differing``), answered both ways; the router's
    wins and losses there, each policy's LM calls on them, and whether ``load`` routes."""

    model_config = ConfigDict(extra="forbid")

    questions: int
    differing: int
    wins: int
    losses: int
    routed_calls: int
    loop_calls: int
    routes: bool

    def describe(self) -> str:
        """One clause for a terminal."""
        return (
            f"confirmation: {self.differing} of {self.questions} other questions routed "
            f"otherwise, router wins {self.wins}, loses {self.losses}, {self.routed_calls} "
            f"LM calls vs {self.loop_calls}: "
            + ("routes" if self.routes else "keeps the loop policy")
        )


@dataclass(frozen=True)
class RouterStage:
    """The router stage: the trained router's report, whether ``load`` routes with it
    (else by the kept structure's ``loop``), its confirmation (None: not asked), and the LM
    calls of its labels."""

    report: RouterReport
    use_router: bool
    loop: LoopPolicy
    lm_calls: int
    confirmation: RouterConfirmation | None = None

    def manifest_entry(self) -> dict[str, Any]:
        """The manifest's ``router`` entry: the report, its confirmation and where the
        router lies."""
        confirmed = self.confirmation.model_dump() if self.confirmation else None
        return self.report.model_dump() | {"dir": ROUTER_DIR, "confirmation": confirmed}

    def describe(self) -> str:
        """One line for a terminal."""
        r = self.report
        return (
            f"router: CV accuracy {r.cv_accuracy:.1%} (majority {r.majority_accuracy:.1%}), "
            f"call savings {r.call_savings:.1%} vs always full loop, accuracy "
            f"{r.routed.accuracy:.1%} vs {r.always_full.accuracy:.1%} "
            f"(threshold {r.threshold:.3g}); "
            + (f"{self.confirmation.describe()}; " if self.confirmation else "")
            + "load() "
            + ("routes with it" if self.use_router else f"keeps the structure's loop ({self.loop})")
        )


class RerankerStage(BaseModel):
    """The reranker stage, as the manifest's ``reranker`` entry: where the reranker lies,
    its training splits, its cross-validation and its training seconds."""

    dir: str
    train_specs: list[str]
    embedder: str | None = Field(
        default=None, description="the encoder its training indexes were embedded by (None: MiniLM)"
    )
    cross_validation: FoldScores
    seconds: float
