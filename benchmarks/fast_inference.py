"""Fast inference off vs on (issue 21): the same questions, one process, paired.

"off" is the earlier request layout and engine (DSPy's layout, llama-cpp-python's own
last-request KV reuse, self-consistency samples decoded in turn); "on" is evidence-first
requests, saved contexts and samples decoded together
(:mod:`filingqa.evaluation.robustness.fast_inference`).

    python benchmarks/fast_inference.py --out benchmarks/runs/fast_inference \
        [--tatqa] [--samples] [--financebench] [--limit N]

--tatqa         TAT-QA dev arithmetic questions 101-120 (gold context), the program off vs on
--samples       the same questions, Program-of-Thought alone, samples=1 vs 5, each on its own
                "on" engine (neither reuses the other's prompt evaluation)
--financebench  the first 10 FinanceBench dev questions whose PDFs are present, searching the
                FinanceBench index (``filingqa index --dataset financebench``)
--served        the first 5 of the TAT-QA questions through ``local@URL`` (llama-cpp-python's
                server, started here on loopback) against in process, both "on": the answers,
                and the server's own timings of its prompt tokens evaluated and reused
--ask-rss       peak RSS of ``filingqa ask`` over the FinanceBench index, run as its own process

Prints per setting: questions, accuracy, LM calls, prompt tokens sent and evaluated,
generated tokens, prefill s, generation s, s/question; the paired comparison (wins, losses,
sign-test p, speed-up, evaluated-token ratio, every changed answer); seconds per step; the
peak RSS of this process (every model loaded). Rows go to OUT/<part>/<setting>.jsonl as they
finish (a rerun resumes); the report to OUT/report.json.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import dspy

from filingqa.core.config import data_dir
from filingqa.evaluation.open_corpus import open_corpus
from filingqa.evaluation.robustness import fast_inference as fi
from filingqa.lm.backbone import get_lm
from filingqa.lm.llama_engine import DEFAULT_CONTEXT_TOKENS
from filingqa.lm.server_launch import served_model
from filingqa.models.store import ensure_llm

SERVED = 5


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path("benchmarks/runs/fast_inference"))
    parser.add_argument("--tatqa", action="store_true")
    parser.add_argument("--samples", action="store_true")
    parser.add_argument("--financebench", action="store_true")
    parser.add_argument("--served", action="store_true")
    parser.add_argument("--ask-rss", action="store_true")
    parser.add_argument("--limit", type=int, default=None, help="only the first N questions")
    args = parser.parse_args()
    model, root = ensure_llm(), data_dir()
    lms = {s.name: fi.local_lm(model, s) for s in (fi.OFF, fi.ON)}
    report: dict = {"parts": {}}
    if args.tatqa or args.samples:
        records = fi.tatqa_questions(root)[: args.limit]
        if args.tatqa:
            report["parts"]["tatqa"] = part(
                args.out / "tatqa",
                records,
                [
                    ("off", fi.OFF, lms["off"], fi.program_mode()),
                    ("on", fi.ON, lms["on"], fi.program_mode()),
                ],
            )
        if args.samples:
            report["parts"]["samples"] = part(
                args.out / "samples",
                records,
                [
                    ("samples=1", fi.ON, fi.local_lm(model, fi.ON), fi.pot_mode(1)),
                    ("samples=5", fi.ON, fi.local_lm(model, fi.ON), fi.pot_mode(5)),
                ],
            )
    if args.financebench:
        records = fi.financebench_questions(root)[: args.limit]
        with open_corpus("financebench:dev") as corpus:
            report["parts"]["financebench"] = part(
                args.out / "financebench",
                records,
                [
                    ("off", fi.OFF, lms["off"], fi.program_mode(corpus.search)),
                    ("on", fi.ON, lms["on"], fi.program_mode(corpus.search)),
                ],
            )
    if args.served:
        records = fi.tatqa_questions(root)[: min(args.limit or SERVED, SERVED)]
        report["parts"]["served"] = served(args.out / "served", records, model, lms["on"])
    if args.ask_rss:
        question = fi.financebench_questions(root, 1)[0].question
        peak, said = fi.ask_peak_rss_gb(question)
        report["ask_peak_rss_gb"] = peak
        print(f"\npeak RSS of `filingqa ask` over the FinanceBench index: {peak} GB\n{said}")
    report["peak_rss_gb"] = fi.peak_rss_gb()
    print(f"\npeak RSS of this process (every model loaded): {report['peak_rss_gb']} GB")
    fi.write_json(args.out / "report.json", report)
    print(f"report: {args.out / 'report.json'}")


def served(out: Path, records: list, model: Path, in_process: dspy.LM) -> dict:
    """The questions through the served model and in process ("on" both): same answers?"""
    with served_model(model, n_ctx=DEFAULT_CONTEXT_TOKENS, cache=False) as server:
        lm = get_lm(f"local@{server.url}", cache=False)
        figures = part(
            out,
            records,
            [
                ("in-process", fi.ON, in_process, fi.program_mode()),
                ("served", fi.ON, lm, fi.program_mode()),
            ],
        )
        timings = fi.served_timings(server.timings())
    same = figures["paired"]["changed"] == []
    print(f"served answers equal the in-process ones: {same}; server-side: {timings}")
    return {**figures, "same_answers": same, "server": timings}


def part(out: Path, records: list, settings: list) -> dict:
    """One paired comparison: run, print and return its figures."""
    rows = fi.run_paired(records, settings, fi.RowStore(out))
    (base, *_), (cand, *_) = settings
    summaries = {name: fi.summarize(rows[name]) for name in rows}
    paired = fi.comparison(rows[base], rows[cand])
    print(f"\n== {out.name}: {len(records)} questions ==")
    print(fi.table(summaries))
    print(
        f"{cand} vs {base}: {paired['wins']} wins, {paired['losses']} losses "
        f"(sign test p = {paired['p_value']}); seconds {paired['speedup']}x lower, "
        f"prompt tokens evaluated {paired['evaluated_ratio']}x lower"
    )
    for change in paired["changed"]:
        print(
            f"  changed {change['id']}: {change['before']!r} ({change['score_before']}) -> "
            f"{change['after']!r} ({change['score_after']}); gold {change['gold']!r}"
        )
    steps = {name: fi.step_seconds(rows[name]) for name in rows}
    for name, by_step in steps.items():
        print(f"  seconds per step, {name}: {by_step}")
    return {"summaries": summaries, "paired": paired, "step_seconds": steps}


if __name__ == "__main__":
    main()
