"""Fast inference off vs on: the same questions through the program with the earlier
request layout and engine ("off": DSPy's layout, llama-cpp-python's own last-request reuse,
samples decoded in turn) and the new ones ("on": evidence-first requests, saved contexts,
samples decoded together), interleaved question by question in one process.

Each setting has its own in-process model (the weights are memory-mapped once), DSPy's
response cache is off, and the two run in alternating order so that a slower stretch of
the machine falls on both.
"""

from __future__ import annotations

import json
import resource
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from statistics import mean
from typing import Any

import dspy

from filingqa.datasets import load_dataset
from filingqa.datasets.gold_context import gold_passages
from filingqa.evaluation.modes import ModeAnswer
from filingqa.evaluation.paired import paired_outcomes, sign_test
from filingqa.evaluation.runner import Row, answer_and_judge
from filingqa.evidence.render import render
from filingqa.lm.backbone import adapter_for
from filingqa.lm.llama_engine import DEFAULT_CONTEXT_TOKENS, LlamaCppEngine
from filingqa.lm.prefix_states import DEFAULT_STATES
from filingqa.metrics.judge import StrictJudge
from filingqa.program.financial_qa import FinancialQA
from filingqa.program.pot import ProgramOfThought
from filingqa.records import QARecord
from filingqa.records.search_handle import SearchHandle

TATQA_FIRST, TATQA_LAST = 101, 120  # arithmetic questions, 1-based, in dataset order
FINANCEBENCH_QUESTIONS = 10


@dataclass(frozen=True)
class Setting:
    """One way to run the model: request layout and engine reuse."""

    name: str
    evidence_first: bool
    prefix_states: int
    parallel_samples: bool


OFF = Setting("off", evidence_first=False, prefix_states=0, parallel_samples=False)
ON = Setting("on", evidence_first=True, prefix_states=DEFAULT_STATES, parallel_samples=True)


def local_lm(model: Path, setting: Setting) -> dspy.LM:
    """The embedded model under ``setting``, with DSPy's response cache off."""
    engine = LlamaCppEngine(
        model,
        n_ctx=DEFAULT_CONTEXT_TOKENS,
        prefix_states=setting.prefix_states,
        parallel_samples=setting.parallel_samples,
    )
    return dspy.LM(
        model=f"local/{model.name}",
        engine=engine,
        temperature=0.0,
        max_tokens=1024,
        cache=False,
        num_retries=0,
    )


def tatqa_questions(data_dir: Path | None = None) -> list[QARecord]:
    """TAT-QA dev arithmetic questions 101–120 in dataset order (gold context)."""
    records = load_dataset("tatqa:dev", data_dir)
    arithmetic = [r for r in records if r.meta.get("tatqa_answer_type") == "arithmetic"]
    return arithmetic[TATQA_FIRST - 1 : TATQA_LAST]


def financebench_questions(data_dir: Path, count: int = FINANCEBENCH_QUESTIONS) -> list[QARecord]:
    """The first ``count`` FinanceBench dev questions whose filing's PDF is present."""
    pdfs = data_dir / "financebench" / "pdfs"
    present = [
        r
        for r in load_dataset("financebench:dev", data_dir)
        if r.documents and all((pdfs / f"{doc}.pdf").is_file() for doc in r.documents)
    ]
    return present[:count]


def program_mode(search: SearchHandle | None = None) -> Callable[[QARecord], ModeAnswer]:
    """The uncompiled program over each record's gold context, or searching ``search``."""

    def mode(record: QARecord) -> ModeAnswer:
        qa = FinancialQA()
        if search is None:
            final = qa(question=record.question, passages=gold_passages(record)).final
        else:
            final = qa(question=record.question, search=search).final
        return ModeAnswer(
            answer=final.answer,
            outcome=final.outcome,
            working=final.working,
            note=final.reason,
            steps=final.trace.steps,
        )

    return mode


def pot_mode(samples: int) -> Callable[[QARecord], ModeAnswer]:
    """Program-of-Thought alone with ``samples`` programs over the gold context."""

    def mode(record: QARecord) -> ModeAnswer:
        out = ProgramOfThought(samples=samples)(
            question=record.question, evidence=render(gold_passages(record))
        )
        return ModeAnswer(answer=out.answer, working=out.program)

    return mode


@contextmanager
def under(lm: dspy.LM, setting: Setting) -> Iterator[None]:
    """``lm`` with the request layout of ``setting``."""
    with dspy.context(lm=lm, adapter=adapter_for(lm, evidence_first=setting.evidence_first)):
        yield


def summarize(rows: list[Row]) -> dict[str, Any]:
    """Per-setting figures: accuracy, LM calls, prompt tokens sent and evaluated,
    generated tokens, prefill and generation seconds and seconds, per question."""

    def per_question(key: str) -> float:
        return round(mean(float(getattr(row, key) or 0) for row in rows), 2) if rows else 0.0

    return {
        "questions": len(rows),
        "accuracy": round(mean(row.score for row in rows), 3) if rows else 0.0,
        **{
            key: per_question(key)
            for key in (
                "lm_calls",
                "prompt_tokens",
                "prompt_tokens_evaluated",
                "generated_tokens",
                "prefill_seconds",
                "generation_seconds",
                "seconds",
            )
        },
    }


def step_seconds(rows: list[Row]) -> dict[str, float]:
    """Seconds per question by step family (the step name without its round number)."""
    totals: dict[str, float] = {}
    for row in rows:
        for step in row.steps:
            family = step.name.rstrip("0123456789 ")
            totals[family] = totals.get(family, 0.0) + step.seconds
    count = max(1, len(rows))
    return {name: round(total / count, 2) for name, total in sorted(totals.items())}


def comparison(baseline: list[Row], candidate: list[Row]) -> dict[str, Any]:
    """Paired figures of ``candidate`` against ``baseline`` on the same questions, and each
    changed answer."""
    wins, losses = paired_outcomes(baseline, candidate)
    before = {row.id: row for row in baseline}
    changed = [
        {
            "id": row.id,
            "question": row.question,
            "gold": row.gold,
            "before": before[row.id].answer,
            "after": row.answer,
            "score_before": before[row.id].score,
            "score_after": row.score,
        }
        for row in candidate
        if row.answer != before[row.id].answer
    ]
    return {
        "wins": wins,
        "losses": losses,
        "p_value": round(sign_test(wins, losses), 4),
        "speedup": _ratio(baseline, candidate, "seconds"),
        "evaluated_ratio": _ratio(baseline, candidate, "prompt_tokens_evaluated"),
        "changed": changed,
    }


def _ratio(baseline: list[Row], candidate: list[Row], key: str) -> float | None:
    old = sum(float(getattr(row, key) or 0) for row in baseline)
    new = sum(float(getattr(row, key) or 0) for row in candidate)
    return round(old / new, 2) if new else None


class RowStore:
    """Rows of each setting in ``DIR/<setting>.jsonl``, appended as they finish; a rerun
    skips the questions already answered."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)

    def rows(self, setting: str) -> list[Row]:
        path = self.folder / f"{setting}.jsonl"
        if not path.is_file():
            return []
        return [Row.model_validate_json(line) for line in path.read_text().splitlines() if line]

    def add(self, setting: str, row: Row) -> None:
        with (self.folder / f"{setting}.jsonl").open("a") as sink:
            sink.write(row.model_dump_json() + "\n")


def run_paired(
    records: list[QARecord],
    settings: list[tuple[str, Setting, dspy.LM, Callable[[QARecord], ModeAnswer]]],
    store: RowStore,
    say: Callable[[str], None] = print,
) -> dict[str, list[Row]]:
    """Every record through every setting, alternating their order by question; rows of
    questions already in ``store`` are kept."""
    judge = StrictJudge()
    done = {name: {row.id: row for row in store.rows(name)} for name, *_ in settings}
    for number, record in enumerate(records):
        order = settings if number % 2 == 0 else list(reversed(settings))
        for name, setting, lm, mode in order:
            if record.id in done[name]:
                continue
            with under(lm, setting):
                row = answer_and_judge(record, mode, judge)
            store.add(name, row)
            done[name][record.id] = row
            say(
                f"[{number + 1}/{len(records)}] {name:<12} {row.seconds:7.1f} s  "
                f"score {row.score:.1f}  {row.answer[:40]!r}"
            )
    return {name: [done[name][r.id] for r in records] for name, *_ in settings}


def served_timings(timings: list[Any]) -> dict[str, Any]:
    """The server's own figures over its requests: prompt tokens evaluated, those served
    from its KV cache (prefix-match hits), prefill and generation seconds."""
    return {
        "requests": len(timings),
        "prompt_tokens_evaluated": sum(t.prompt_tokens for t in timings),
        "prefix_hit_tokens": sum(t.prefix_hit_tokens or 0 for t in timings),
        "prefill_seconds": round(sum(t.prefill_ms for t in timings) / 1000, 2),
        "generation_seconds": round(sum(t.generation_ms for t in timings) / 1000, 2),
    }


def ask_peak_rss_gb(question: str, index: str = "financebench") -> tuple[float, str]:
    """Peak resident memory of ``filingqa ask QUESTION --index INDEX`` run as its own
    process, in GB, and the tail of what it printed."""
    import subprocess
    import sys

    command = [sys.executable, "-m", "filingqa.cli", "ask", question, "--index", index]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024**2
    return round(peak, 2), (done.stdout + done.stderr)[-600:]


def peak_rss_gb() -> float:
    """This process's peak resident memory so far, in GB."""
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024**2, 2)


def table(summaries: dict[str, dict[str, Any]]) -> str:
    """The per-setting figures as an aligned text table."""
    columns = [
        ("questions", "q"),
        ("accuracy", "acc"),
        ("lm_calls", "calls"),
        ("prompt_tokens", "sent"),
        ("prompt_tokens_evaluated", "evaluated"),
        ("generated_tokens", "generated"),
        ("prefill_seconds", "prefill s"),
        ("generation_seconds", "gen s"),
        ("seconds", "s/q"),
    ]
    width = max(len(name) for name in summaries) + 2
    lines = [f"{'setting':<{width}}" + "".join(f"{label:>11}" for _, label in columns)]
    for name, summary in summaries.items():
        cells = "".join(f"{summary[key]:>11}" for key, _ in columns)
        lines.append(f"{name:<{width}}{cells}")
    return "\n".join(lines)


def write_json(path: Path, report: dict[str, Any]) -> None:
    """``report`` as indented JSON at ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report, indent=2, default=str) + "\n")
