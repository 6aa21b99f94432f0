"""The first stage of ``filingqa compile``: the request, the questions it draws and what the
compile will cost (:func:`plan_compile`), described for a terminal (:func:`describe_plan`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from filingqa.artifacts.manifest import redact_url
from filingqa.datasets import DatasetError
from filingqa.lm.backbone import Backbone
from filingqa.optimizers import compile_data, encoder_stage
from filingqa.optimizers.budget import BudgetEstimate, StageCost, estimate
from filingqa.optimizers.compile_data import SplitSpec
from filingqa.optimizers.encoder_fine_tune import trainable
from filingqa.optimizers.optimizer_registry import STRUCTURE
from filingqa.optimizers.presets import OptimizerSettings
from filingqa.optimizers.structure_search import LOCAL_SPACE, Structure, candidates, rung_sizes
from filingqa.optimizers.train_reranker import expected_cost
from filingqa.records import QARecord
from filingqa.retrieval.index.locations import default_index_dir, index_built
from filingqa.retrieval.search.pipeline import saved_metadata
from filingqa.router.rule import route_by_rule

MIN_CALIBRATION = 5


class CompileRequest(BaseModel):
    """What to compile, for which backbone (with the teacher and judge models, if any),
    into which folder."""

    model_config = ConfigDict(extra="forbid")

    name: str
    out_dir: Path
    backbone: Backbone
    teacher_backbone: Backbone | None = None
    judge_backbone: Backbone | None = None
    settings: OptimizerSettings
    calibration: list[str] | None = None
    skip_retriever: bool = False
    encoder: bool = False
    """Fine-tune the encoder (opt-in: its gain on held-out companies is not yet shown, and
    an index must be embedded by it anew for it to act)."""

    @property
    def fine_tunes_encoder(self) -> bool:
        """Whether the compile fine-tunes the encoder (asked, and the retriever trained)."""
        return self.encoder and not self.skip_retriever

    def public(self) -> dict[str, Any]:
        """The request as the JSON of ``compile.json``: backbones as their strings, the API
        base without credentials."""
        return {
            "name": self.name,
            "out_dir": str(self.out_dir),
            "lm": self.backbone.spec,
            "api_base": redact_url(self.backbone.api_base),
            "teacher_lm": _spec(self.teacher_backbone),
            "judge_lm": _spec(self.judge_backbone),
            "settings": self.settings.model_dump(mode="json"),
            "calibration": self.calibration,
            "skip_retriever": self.skip_retriever,
            "encoder": self.encoder,
        }


def _spec(backbone: Backbone | None) -> str | None:
    return backbone.spec if backbone is not None else None


class CompilePlan(BaseModel):
    """A request with its drawn questions and the cost estimate; ``open_dev`` the
    open-corpus stage's questions over the index ``open_index`` (none: ``open_skipped``
    says why), ``open_pages`` those its page check searches, ``open_confirm`` those that
    confirm its choice."""

    model_config = ConfigDict(extra="forbid")

    request: CompileRequest
    train: list[QARecord]
    dev: list[QARecord]
    confirm: list[QARecord] = []
    calibration: list[QARecord]
    estimate: BudgetEstimate
    open_dev: list[QARecord] = []
    open_pages: list[QARecord] = []
    open_confirm: list[QARecord] = []
    open_index: Path | None = None
    open_skipped: str | None = None


def plan_compile(request: CompileRequest, data_dir: Path | None = None) -> CompilePlan:
    """Draw train, dev (no context shared with train), confirmation (no context shared with
    either) and calibration (default: dev, or its first ``calibration_questions``)
    questions, and estimate the cost.

    Raises:
        ValueError: a split spec is malformed or leaves no question.
    """
    s = request.settings
    train = compile_data.draw(
        [SplitSpec.parse(t) for t in s.train], target=s.target, seed=s.seed, data_dir=data_dir
    )
    used = {d for r in train for d in r.documents}
    dev = compile_data.draw(
        [SplitSpec.parse(t) for t in s.dev],
        target=s.target,
        exclude_documents=used,
        seed=s.seed,
        data_dir=data_dir,
    )
    confirm = compile_data.draw(
        [SplitSpec.parse(t) for t in s.confirm],
        target=s.target,
        exclude_documents=used | {d for r in dev for d in r.documents},
        seed=s.seed,
        data_dir=data_dir,
    )
    calibration = (
        compile_data.draw(
            [SplitSpec.parse(t) for t in request.calibration],
            target=s.target,
            exclude_documents=used,
            seed=s.seed,
            data_dir=data_dir,
        )
        if request.calibration
        else dev[: s.calibration_questions or None]
    )
    if len(calibration) < MIN_CALIBRATION:
        raise ValueError(f"the router needs at least {MIN_CALIBRATION} calibration questions")
    open_index, open_skipped = _open_index(s)
    open_dev: list[QARecord] = []
    open_pages: list[QARecord] = []
    open_confirm: list[QARecord] = []
    if open_index is not None:
        held = indexed_documents(open_index)
        try:
            open_dev = _draw_open(s.open_dev, s.seed, data_dir, held)
            asked = {d for r in open_dev for d in r.documents}
            open_confirm = _draw_open(s.open_confirm, s.seed, data_dir, held, exclude=asked)
            confirming = {d for r in open_confirm for d in r.documents}
            open_pages = _draw_open(s.open_pages, s.seed, data_dir, held, exclude=confirming)
        except DatasetError as missing:
            specs = ", ".join([*s.open_dev, *s.open_pages, *s.open_confirm])
            open_index, open_skipped = None, f"{specs}: {missing}"
            open_dev = open_pages = open_confirm = []
    encoder = _encoder_cost() if request.fine_tunes_encoder else None
    cost = estimate(
        s,
        train=len(train),
        dev=len(dev),
        confirm=len(confirm),
        calibration=len(calibration),
        local=request.backbone.local_model,
        reranker=None if request.skip_retriever else expected_cost(new_encoder=bool(encoder)),
        encoder=encoder,
        calibration_is_dev=not request.calibration,
        calibration_looped=sum(route_by_rule(r.question).full_loop for r in calibration),
        open_questions=len(open_dev),
        page_questions=len(open_pages),
        open_confirm=len(open_confirm),
    )
    return CompilePlan(
        request=request,
        train=train,
        dev=dev,
        confirm=confirm,
        calibration=calibration,
        estimate=cost,
        open_dev=open_dev,
        open_pages=open_pages,
        open_confirm=open_confirm,
        open_index=open_index,
        open_skipped=open_skipped,
    )


def _encoder_cost() -> StageCost | None:
    """The encoder stage's cost as its reference run measured it; None when the ``train``
    extra is missing (the stage is then skipped)."""
    return encoder_stage.expected_cost() if trainable() else None


def _draw_open(
    specs: list[str],
    seed: int,
    data_dir: Path | None,
    held: set[str] | None,
    exclude: set[str] | None = None,
) -> list[QARecord]:
    """The open-corpus questions of ``specs`` (none: []) about filings the index holds
    (``held``; None: not known), none about the ``exclude`` filings. A question about a
    filing the index lacks is answered "not in the index" before any search, so it
    weighs no retrieval step."""
    if not specs:
        return []
    return compile_data.draw(
        [SplitSpec.parse(t) for t in specs],
        target="program",
        exclude_documents=exclude or (),
        within_documents=held,
        seed=seed,
        data_dir=data_dir,
    )


def indexed_documents(index: Path) -> set[str] | None:
    """The filings ``index`` holds, from the metadata saved beside it (None: none saved)."""
    metadata = saved_metadata(index)
    if metadata is None:
        return None
    return {record.document.doc_id for record in metadata.records()}


def _open_index(s: OptimizerSettings) -> tuple[Path | None, str | None]:
    """The built index the open-corpus questions search, or why the stage is skipped."""
    if not s.open_dev:
        return None, None
    named = not Path(s.open_index).is_dir() and len(Path(s.open_index).parts) == 1
    directory = default_index_dir(s.open_index) if named else Path(s.open_index)
    if not index_built(directory):
        dataset = SplitSpec.parse(s.open_dev[0]).dataset.split(":")[0]
        return None, (
            f"no index at {directory}: build it with `filingqa index --dataset {dataset}` "
            "to weigh the retrieval steps"
        )
    return directory, None


def describe_plan(plan: CompilePlan, *, with_estimate: bool = True) -> str:
    """The plan for a terminal: sizes, optimizer, and (``with_estimate``) the budget
    estimate."""
    s = plan.request.settings
    if s.optimizer == STRUCTURE:
        rungs = rung_sizes(len(plan.dev), s.first_rung or len(plan.dev), s.eta)
        count = len(candidates(Structure(), LOCAL_SPACE, worked_examples=bool(s.pool)))
        method = (
            f"  {count} structures (+ the best changes combined), successive halving over "
            f"{' → '.join(map(str, rungs))} dev questions (the best 1/{s.eta} go on, and "
            f"the cheapest not told worse); worked examples from {', '.join(s.pool) or 'none'}"
        )
    else:
        method = f"  demos ≤ {s.max_demos}, candidates {s.candidates}, threads {s.threads}"
    lines = [
        f"compile {plan.request.name}: {s.optimizer} ({s.budget}) on the {s.target} "
        f"module, backbone {plan.request.backbone.spec}",
        f"  train {len(plan.train)} ({', '.join(s.train) or 'none'}), dev {len(plan.dev)} "
        f"({', '.join(s.dev)}), confirmation {len(plan.confirm)} "
        f"({', '.join(s.confirm) or 'none'}), calibration {len(plan.calibration)}",
        f"{method}; the compiled program is kept only if it beats the uncompiled one on "
        f"dev (paired sign test p ≤ {s.max_p_value:g}) or costs less there without being "
        "told worse"
        + (
            " and, on the confirmation questions, is the cheaper of the two or better at "
            "that p-value"
            if plan.confirm
            else ""
        ),
    ]
    if plan.open_dev:
        lines.append(
            f"  open corpus: {len(plan.open_dev)} questions ({', '.join(s.open_dev)}) searching "
            f"{plan.open_index}: the retrieval steps kept by cost (the cheapest structure the "
            "paired test cannot tell from the most accurate)"
        )
        if plan.open_pages:
            lines.append(
                f"  open-corpus pages: each structure's first search alone on "
                f"{len(plan.open_pages)} questions ({', '.join(s.open_pages)}) misses at most "
                "one gold page more than it finds against the most accurate"
            )
        if plan.open_confirm:
            lines.append(
                f"  open-corpus confirmation: a structure chosen over the start is kept only if "
                f"on {len(plan.open_confirm)} questions of other filings "
                f"({', '.join(s.open_confirm)}) it is the cheaper of the two or better "
                f"(p ≤ {s.max_p_value:g})"
            )
    elif plan.open_skipped:
        lines.append(f"  open corpus: skipped ({plan.open_skipped})")
    if with_estimate:
        lines += ["budget estimate:", plan.estimate.describe()]
    return "\n".join(lines)
