"""``filingqa eval``: settings compared on a dataset split (or its retrieval quality), judged."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from filingqa.cli.options import (
    Commands,
    add_lm_options,
    add_rerank_options,
    backbone_of,
    comma_list,
    key_value,
    positive_int,
    rerank_settings,
)

if TYPE_CHECKING:
    from filingqa.lm.backbone import Backbone


def add_parser(commands: Commands) -> None:
    """Add the command's parser to ``commands``, its handler set."""
    run = commands.add_parser(
        "eval", help="compare settings on a dataset split (gold or retrieved context), judged"
    )
    run.add_argument("--dataset", required=True, help="name:split, e.g. tatqa:dev")
    run.add_argument(
        "--mode",
        default="direct,pot,program",
        help="comma-separated settings: direct, cot, pot, naive-rag, program (uncompiled; "
        "program+forms, program+guess, program-forms: with the answer form decided, guessed "
        "from the wording, or not used), compiled, compiled+router (--program DIR, default the "
        "shipped artifact compiled for --lm) "
        "(default: direct,pot,program); or retrieval alone (search quality, no LM)",
    )
    run.add_argument(
        "--context",
        choices=["gold", "retrieved"],
        help="evidence: the record's gold context, or passages searched in the index "
        "(default: retrieved for financebench, gold for the rest; naive-rag always retrieves)",
    )
    run.add_argument(
        "--index",
        type=Path,
        metavar="DIR",
        help="index to search (default: the dataset's, FILINGQA_HOME/indexes/<dataset>)",
    )
    run.add_argument(
        "--setting",
        metavar="A,B",
        help="comma-separated retrieval settings to compare (with --mode retrieval)",
    )
    run.add_argument("--json", type=Path, metavar="OUT", help="also write the results JSON to OUT")
    run.add_argument("--limit", type=positive_int, help="the first N matching questions")
    run.add_argument(
        "--skip",
        type=positive_int,
        default=0,
        metavar="N",
        help="leave out the first N matching questions (after --per-type, before --limit): "
        "a later block of the same list, e.g. --skip 100 --limit 100 for questions 101-200",
    )
    run.add_argument(
        "--per-type",
        type=positive_int,
        metavar="N",
        help="the first N matching questions of each answer type (all of a rarer type), "
        "before --limit: a stratified set, e.g. 50 each of TAT-QA's arithmetic, span and "
        "multi-span questions and its 10 counts",
    )
    run.add_argument(
        "--slice",
        metavar="NAME",
        help="only the questions of this committed slice of the dataset, in dataset order, "
        "before --where and --limit: <name>-<split>-tuning to tune on, <name>-<split>-report "
        "to report on (e.g. tatqa-dev-report)",
    )
    run.add_argument(
        "--where",
        type=key_value,
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="keep records whose field or meta entry equals VALUE "
        "(e.g. tatqa_answer_type=arithmetic); repeatable",
    )
    run.add_argument("--concurrency", type=positive_int, default=1)
    run.add_argument(
        "--out",
        type=Path,
        help="output folder (default: results/eval/<dataset>); rerunning resumes",
    )
    run.add_argument("--data-dir", help="evaluation data dir (default: $FILINGQA_DATA_DIR)")
    run.add_argument(
        "--judge-lm",
        help="LM for the judge's LLM stage (non-numeric golds); default: exact match only. "
        "Rows of an earlier run graded by exact match are graded again with it",
    )
    run.add_argument(
        "--program",
        type=Path,
        metavar="DIR",
        help="compiled artifact that the compiled and compiled+router settings run (default: "
        "the shipped one compiled for --lm, artifacts/qwen-local for local)",
    )
    run.add_argument(
        "--regrade",
        action="store_true",
        help="grade every row already written again with the current judge (answers kept), "
        "e.g. after the judge changed",
    )
    run.add_argument(
        "--fresh-cache",
        action="store_true",
        help="start every setting from an empty in-memory LM cache, so tokens and seconds are "
        "a first run's (replies cached by earlier runs or by another setting are not reused, "
        "for the judge neither)",
    )
    run.add_argument(
        "--publish",
        type=Path,
        metavar="DIR",
        help="also keep each setting's rows in DIR without the dataset's text (question, gold, "
        "judge's reason), to commit; a run on another machine given the same DIR restores the "
        "rows its --out lacks and goes on",
    )
    add_lm_options(run)
    add_rerank_options(run)
    run.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    from filingqa.evaluation.command import (
        REPORT_FILE,
        EvalSettings,
        check_index,
        check_slice,
        paired_results,
        run_evaluation,
    )
    from filingqa.evaluation.paired import format_paired
    from filingqa.evaluation.summary import (
        format_by_answer_type,
        format_step_costs,
        format_table,
    )
    from filingqa.lm.backbone import Backbone, get_lm

    modes = comma_list(args.mode)
    if "retrieval" in modes and (choosing := _question_choosing_options(args)):
        verb = "chooses" if len(choosing) == 1 else "choose"
        raise ValueError(
            f"{', '.join(choosing)} {verb} the questions to answer: not with --mode retrieval"
        )
    if "retrieval" in modes:
        return _run_retrieval_eval(args, modes)
    if args.setting:
        raise ValueError("--setting chooses retrieval settings: use it with --mode retrieval")
    backbone = backbone_of(args)
    settings = EvalSettings(
        dataset=args.dataset,
        modes=modes,
        lm=backbone.spec,
        judge_lm=args.judge_lm,
        regrade=args.regrade,
        program=_compiled_artifact(args.program, modes, backbone),
        skip=args.skip,
        limit=args.limit,
        per_type=args.per_type,
        slice=args.slice,
        where=dict(args.where),
        concurrency=args.concurrency,
        context=args.context,
        index=args.index,
        out_dir=args.out or Path("results") / "eval" / args.dataset.replace(":", "_"),
        json_out=args.json,
        fresh_cache=args.fresh_cache,
        publish=args.publish,
        search=rerank_settings(args),
    )
    check_slice(settings)  # before loading the LM: a bad slice name fails at once
    check_index(settings)  # before loading the LM: a missing index fails at once
    lm = get_lm(backbone)
    judge_lm = get_lm(Backbone.parse(args.judge_lm)) if args.judge_lm else None
    summaries = run_evaluation(settings, lm=lm, judge_lm=judge_lm, data_dir=args.data_dir)
    compiled = f", compiled={settings.program}" if settings.program else ""
    print(
        f"{settings.dataset}, lm={settings.lm}{compiled}, slice={settings.slice or '-'}, "
        f"where={settings.where or '-'}"
    )
    print(format_table(summaries))
    retrieved = {
        name: s for name, s in summaries.items() if any(c.step == "retrieve" for c in s.steps)
    }
    if steps := format_step_costs(retrieved):
        print(steps)
    if by_type := format_by_answer_type(summaries):
        print(by_type)
    if paired := format_paired(paired_results(settings)):
        print(paired)
    written = [settings.out_dir / "results.json", settings.out_dir / REPORT_FILE]
    print(f"wrote {', '.join(map(str, written))}" + (f" and {args.json}" if args.json else ""))
    return 0


def _compiled_artifact(given: Path | None, modes: list[str], backbone: Backbone) -> Path | None:
    """The artifact the compiled settings run: ``given``, else the shipped one compiled for
    ``backbone`` (None when no compiled setting runs).

    Raises:
        ValueError: a compiled setting runs and no shipped artifact was compiled for it.
    """
    from filingqa.artifacts.shipped import shipped_artifact_for
    from filingqa.evaluation.modes import COMPILED_MODES

    if given is not None or not any(m in COMPILED_MODES for m in modes):
        return given
    shipped = shipped_artifact_for(backbone)
    if shipped is None:
        raise ValueError(
            f"no shipped artifact is compiled for {backbone.spec}: compile one with "
            f"`filingqa compile --lm {backbone.spec} --out DIR` and give --program DIR"
        )
    return shipped


def _question_choosing_options(args: argparse.Namespace) -> list[str]:
    """The given options that choose which questions are answered (``--mode retrieval`` scores
    every question of the dataset, or its first ``--limit``)."""
    given = {
        "--slice": args.slice,
        "--where": args.where,
        "--per-type": args.per_type,
        "--skip": args.skip,
    }
    return [name for name, value in given.items() if value]


def _run_retrieval_eval(args: argparse.Namespace, modes: list[str]) -> int:
    """``--mode retrieval``: search quality of each retrieval setting (no LM)."""
    if modes != ["retrieval"]:
        raise ValueError("--mode retrieval runs alone: it measures search, not answers")
    from filingqa.evaluation.retrieval.quality import (
        format_retrieval_table,
        run_retrieval_evaluation,
    )

    results = run_retrieval_evaluation(
        args.dataset,
        settings=comma_list(args.setting) if args.setting else None,
        limit=args.limit,
        data_dir=args.data_dir,
        index=args.index,
        json_out=args.json,
        progress=True,
        search_settings=rerank_settings(args),
    )
    print(format_retrieval_table(results))
    return 0
