"""``filingqa compile``: compile the program for one backbone into ``artifacts/<name>/``.

The stages, one function each returning its record
(:mod:`~filingqa.optimizers.compile_records`), each checkpointed in the out dir so a rerun
(after ctrl-C or a crash) resumes:

0. plan and estimate (:func:`~filingqa.optimizers.compile_plan.plan_compile`), the estimate
   timed on the backbone's first dev answer (:func:`measure_speed`);
1. dev score before: the uncompiled program over the dev draw (``eval/before.jsonl``);
2. optimization (:mod:`~filingqa.optimizers.optimization_stage`): the structure search (its
   worked examples in ``worked_examples.json``, each candidate's rows in ``search/``, the
   start's copied from the dev score before), or a DSPy prompt optimizer of the registry
   (:mod:`~filingqa.optimizers.optimizer_registry`), metric = the strict judge
   (``optimized.json`` + ``optimizer.json``);
3. dev score after (``eval/after.jsonl``; the search's rows of its pick), and the choice of
   the program the artifact keeps (``program.json``): the compiled one only if it beats the
   uncompiled one on dev, paired, and then holds on the confirmation draw, questions of
   other contexts both programs answer (``eval/confirm-*.jsonl``): there the cheaper of the
   two is kept unless the costlier is told better (:mod:`~filingqa.optimizers.selection`);
4. the encoder (``encoder/``, :func:`~filingqa.optimizers.encoder_stage.train_artifact_encoder`:
   the embedder fine-tuned on what the served search returns; skipped with a line without
   the ``train`` extra), then the reranker (``reranker/``,
   :func:`~filingqa.optimizers.train_reranker.train_reranker`, the path that trains the
   shipped one: it builds the indexes of its training splits under ``FILINGQA_HOME/indexes``
   when missing, else reuses them; embedded by the encoder when one was trained, so the
   reranker learns the dense scores the artifact's indexes will give);
5. the open-corpus stage (:mod:`~filingqa.optimizers.open_corpus_stage`): the retrieval
   steps chosen by cost over an index when it is built, searching it reranked as the
   artifact will (each structure's rows in ``open/``), ``program.json`` saved again with
   the chosen structure;
6. the router: calibration questions run single-pass and full-loop with the kept
   structure (``router/*.jsonl``), then LightGBM on the question features
   (``router/model.txt``); ``load`` routes with it only when it beats the structure's own
   loop policy on those questions;
7. ``manifest.json``, assembled from the records
   (:mod:`~filingqa.optimizers.compile_manifest`).

The settings a run started with are kept in ``compile.json``; rerunning the same out dir
with other settings is refused.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import dspy

from filingqa.artifacts.manifest import Manifest, write_manifest
from filingqa.lm.backbone import adapter_for
from filingqa.optimizers.budget import call_seconds, re_estimate
from filingqa.optimizers.compile_clock import CompileClock
from filingqa.optimizers.compile_manifest import assemble_manifest, outcome
from filingqa.optimizers.compile_plan import CompilePlan, CompileRequest
from filingqa.optimizers.compile_stages import (
    CompileRun,
    keep_program,
    label_router,
    score_after,
    score_before,
    train_artifact_reranker,
)
from filingqa.optimizers.encoder_stage import train_artifact_encoder
from filingqa.optimizers.open_corpus_stage import choose_retrieval
from filingqa.optimizers.optimization_stage import optimize_prompts, search_structure
from filingqa.optimizers.optimizer_registry import STRUCTURE
from filingqa.optimizers.presets import OptimizerSettings
from filingqa.retrieval.index.embedder import Embedder

SETTINGS_FILE = "compile.json"


def measure_speed(
    plan: CompilePlan,
    *,
    lm: dspy.BaseLM,
    judge_lm: dspy.BaseLM | None = None,
    progress: bool = True,
    clock: CompileClock | None = None,
) -> CompilePlan:
    """``plan`` with its estimate at ``lm``'s speed, timed on the first dev question's
    uncompiled answer (stage 1's first row: written to its rows file, so it is not asked
    again), on ``clock`` when given. Unchanged when that answer came from the cache.

    Raises:
        ValueError: the out dir holds a compile started with other settings.
    """
    claim(plan.request)
    run = CompileRun(plan=plan, lm=lm, judge_lm=judge_lm, progress=progress)
    clock = clock or CompileClock(plan.request.out_dir)
    clock.begin()
    with (
        dspy.context(lm=lm, adapter=adapter_for(lm)),
        clock.counting([lm, judge_lm]),
        clock.stage("timing the backbone"),
    ):
        first = score_before(run, plan.dev[:1])
    timing = call_seconds(first.rows)
    if timing is None:
        return plan
    return plan.model_copy(update={"estimate": timing.applied(plan.estimate)})


def run_compile(
    plan: CompilePlan,
    *,
    lm: dspy.BaseLM,
    teacher_lm: dspy.BaseLM | None = None,
    judge_lm: dspy.BaseLM | None = None,
    data_dir: Path | None = None,
    embedder: Embedder | None = None,
    progress: bool = True,
    say: Callable[[str], None] = print,
    clock: CompileClock | None = None,
) -> Manifest:
    """Run (or resume) every stage of ``plan`` and write the artifact; return its manifest.
    ``embedder`` finds the worked examples nearest a question (default: the offline MiniLM);
    ``clock`` times the stages from the command's start (default: from this call's).

    Raises:
        ValueError: the out dir holds a compile started with other settings.
        RuntimeError: the optimizer was cancelled (ctrl-C inside DSPy's evaluation).
    """
    request, s = plan.request, plan.request.settings
    claim(request)
    run = CompileRun(
        plan=plan,
        lm=lm,
        teacher_lm=teacher_lm,
        judge_lm=judge_lm,
        data_dir=data_dir,
        embedder=embedder,
        progress=progress,
        say=say,
    )
    clock = clock or CompileClock(request.out_dir)
    clock.begin()
    lms = [lm, teacher_lm, judge_lm]
    with dspy.context(lm=lm, adapter=adapter_for(lm)), clock.counting(lms):
        say("1/7 dev score before compiling")
        with clock.stage("dev score before"):
            before = score_before(run)
        say(f"    {before.describe()}{re_estimate(before.rows, plan.estimate)}")
        say(f"2/7 optimizing with {s.optimizer}")
        with clock.stage("optimization"):
            optimized = search_structure if s.optimizer == STRUCTURE else optimize_prompts
            optimization = optimized(run)
        say("3/7 dev score after compiling")
        with clock.stage("dev score after, selection and confirmation"):
            after = score_after(run, optimization)
            kept = keep_program(run, before, after, optimization)
        say(f"    {after.describe()}; {kept.selection.describe()}")
        with clock.stage("encoder"):
            encoder = None
            if request.fine_tunes_encoder:
                encoder = train_artifact_encoder(
                    request.out_dir, data_dir, progress=progress, say=say
                )
            elif not request.skip_retriever:
                say("4/7 encoder: not fine-tuned (--encoder to fine-tune it)")
        with clock.stage("reranker"):
            reranker = (
                None
                if request.skip_retriever
                else train_artifact_reranker(
                    request.out_dir, data_dir, encoder, progress=progress, say=say
                )
            )
        say("5/7 open corpus: the retrieval steps by what they cost and earn")
        with clock.stage("open corpus (answers and page check)"):
            kept, open_stage = choose_retrieval(run, kept)
        say(f"    {open_stage.describe()}")
        say("6/7 router labels (single pass vs full loop)")
        with clock.stage("router labels"):
            router = label_router(run, kept)
    say(f"    {router.describe()}")
    manifest = assemble_manifest(
        plan,
        lm,
        before=before,
        optimization=optimization,
        after=after,
        kept=kept,
        router=router,
        reranker=reranker,
        encoder=encoder,
        open_stage=open_stage,
        data_dir=data_dir,
        clock=clock.finished(),
    )
    write_manifest(manifest, request.out_dir)
    say(f"7/7 wrote {request.out_dir / 'manifest.json'}")
    say(outcome(manifest, kept))
    return manifest


def claim(request: CompileRequest) -> None:
    """Record the request's settings in its out dir (``compile.json``), or check a resumed
    run has the same ones. Settings this version no longer has are ignored in what an
    earlier run wrote.

    Raises:
        ValueError: the out dir holds a compile started with other settings.
    """
    out = request.out_dir
    out.mkdir(parents=True, exist_ok=True)
    path = out / SETTINGS_FILE
    mine = request.public()
    if not path.exists():
        path.write_text(json.dumps(mine, indent=2) + "\n", encoding="utf-8")
        return
    theirs = _current(json.loads(path.read_text(encoding="utf-8")))
    if theirs != mine:
        changed = sorted(k for k in mine.keys() | theirs.keys() if mine.get(k) != theirs.get(k))
        raise ValueError(
            f"{out} holds a compile with other settings ({', '.join(changed)} differ); "
            "use another --out, or delete the folder to start over"
        )


def _current(written: dict[str, Any]) -> dict[str, Any]:
    """``compile.json`` as written, without the optimizer settings since retired, with the
    settings since added at what the compile that wrote it did."""
    skipped = written.get("skip_encoder", True)  # before the encoder stage: none trained
    opted = {"encoder": not skipped}  # before the encoder was opt-in
    written = opted | {k: v for k, v in written.items() if k != "skip_encoder"}
    settings = written.get("settings")
    if not isinstance(settings, dict):
        return written
    known = {k: v for k, v in settings.items() if k in OptimizerSettings.model_fields}
    return written | {"settings": {"confirm": []} | known}  # before the confirmation
