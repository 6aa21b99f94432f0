"""The last stage of ``filingqa compile``: the artifact's manifest assembled from the other
stages' records (:mod:`~filingqa.optimizers.compile_records`), and the compile's last line
for a terminal."""

from __future__ import annotations

import platform
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path

import dspy

from filingqa.artifacts.manifest import DataSplit, Manifest, redact_url
from filingqa.artifacts.worked_examples import POOL_FILE
from filingqa.datasets.registry import split_hashes
from filingqa.optimizers import compile_data
from filingqa.optimizers.compile_clock import ClockRecord
from filingqa.optimizers.compile_data import SplitSpec
from filingqa.optimizers.compile_plan import CompilePlan
from filingqa.optimizers.compile_records import (
    DevScore,
    KeptProgram,
    Optimization,
    RerankerStage,
    RouterStage,
)
from filingqa.optimizers.encoder_stage import EncoderStage
from filingqa.optimizers.open_corpus_stage import OpenCorpusStage


def assemble_manifest(
    plan: CompilePlan,
    lm: dspy.BaseLM,
    *,
    before: DevScore,
    optimization: Optimization,
    after: DevScore,
    kept: KeptProgram,
    router: RouterStage,
    reranker: RerankerStage | None,
    encoder: EncoderStage | None = None,
    open_stage: OpenCorpusStage | None = None,
    data_dir: Path | None = None,
    clock: ClockRecord,
) -> Manifest:
    """The manifest of the compile that made these records with ``lm``, timed by
    ``clock``."""
    request, s = plan.request, plan.request.settings
    log = optimization.log
    opened = open_stage or OpenCorpusStage()
    return Manifest(
        name=request.name,
        created=datetime.now(UTC).isoformat(timespec="seconds"),
        backbone=request.backbone.spec,
        lm_model=str(getattr(lm, "model", type(lm).__name__)),
        api_base=redact_url(request.backbone.api_base),
        model_file=request.backbone.model_file(),
        teacher_lm=request.teacher_backbone.spec if request.teacher_backbone else None,
        versions=_versions(),
        optimizer=s.model_dump(mode="json"),
        program_options=kept.structure.program_options(),
        loop=kept.structure.loop,
        use_router=router.use_router,
        worked_examples=POOL_FILE if kept.worked_examples is not None else None,
        structures=[x.model_dump(mode="json") for x in log.structures or []],
        costs=[x.model_dump(mode="json") for x in log.costs or []],
        open_corpus=open_stage.model_dump(mode="json") if open_stage is not None else None,
        data=_data_splits(plan, data_dir),
        before=before.scores(),
        after=after.scores(),
        candidates=log.candidates,
        selection=kept.selection,
        router=router.manifest_entry(),
        reranker=reranker.model_dump() if reranker is not None else None,
        encoder=encoder.model_dump() if encoder is not None else None,
        estimate=plan.estimate.model_dump()
        | {
            "minutes": round(plan.estimate.minutes, 1),
            "minutes_if_compiled": round(plan.estimate.minutes_if_compiled, 1),
        },
        lm_calls={
            "dev before": before.lm_calls,
            "optimizer": log.lm_calls,
            "dev after": after.lm_calls,
            "confirmation": kept.confirmation_lm_calls,
            "open corpus": opened.lm_calls,
            "router labels": router.lm_calls,
        },
        stages={name: t.model_dump() for name, t in clock.stages.items()},
        wall_seconds=clock.wall_seconds,
    )


def outcome(manifest: Manifest, kept: KeptProgram) -> str:
    """The compile's last line: the program kept, its dev score, and the compile's time
    against the estimate."""
    compiled = kept.selection.kept == "compiled"
    scores = manifest.after if compiled else manifest.before
    shape = f"structure {kept.structure.key}, loop {manifest.loop}"
    went_on = compiled or kept.selection.confirmation is not None
    estimated = manifest.estimate["minutes_if_compiled" if went_on else "minutes"]
    return (
        f"kept the {'compiled' if compiled else 'uncompiled'} program ({shape}"
        f"{', routed' if manifest.use_router else ''}): dev accuracy {scores.accuracy:.1%} "
        f"(uncompiled {manifest.before.accuracy:.1%}) on {scores.questions} questions; "
        f"{manifest.wall_seconds / 60:.0f} min by the clock, estimated {estimated:.0f} min"
    )


def _versions() -> dict[str, str]:
    versions = {"python": platform.python_version()}
    for package in ("filingqa", "dspy", "lightgbm"):
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            versions[package] = "unknown"
    return versions


def _data_splits(plan: CompilePlan, data_dir: Path | None) -> dict[str, DataSplit]:
    s = plan.request.settings
    named = {
        "train": (s.train, plan.train),
        "dev": (s.dev, plan.dev),
        "confirmation": (s.confirm, plan.confirm),
        "calibration": (plan.request.calibration or s.dev, plan.calibration),
    }
    return {
        name: DataSplit(
            specs=specs,
            questions=len(records),
            ids_sha256=compile_data.ids_sha256(records),
            files=split_hashes([SplitSpec.parse(t).dataset for t in specs], data_dir),
        )
        for name, (specs, records) in named.items()
    }
