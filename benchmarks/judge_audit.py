"""The judge audit: every verdict of a published eval run against a careful reading by hand.

Each answer in the run's rows (every setting) is judged again by the current judge and set
beside the reading, a score per answer written by someone who read it against the gold
(``benchmarks/judge_audit/<run>.reading.json``, with the rule it applies). Prints the
agreement of the current judge and of the verdicts stored in the rows (the judge of the
run), per setting and per stage, and every disagreement with the judge's reason; writes
the audit as JSON beside the reading.

    python benchmarks/judge_audit.py                      # the deterministic stages alone
    python benchmarks/judge_audit.py --judge-lm local     # the LLM stage for what they leave
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path
from typing import Any

from filingqa.datasets.registry import load_dataset
from filingqa.evaluation.published import restore
from filingqa.lm.backbone import Backbone, get_lm
from filingqa.metrics.judge import StrictJudge
from filingqa.records import QARecord

AUDIT_DIR = Path(__file__).parent / "judge_audit"
DEFAULT_READING = AUDIT_DIR / "financebench-dev-report-pages37.reading.json"


def audit(
    reading: dict[str, Any], records: dict[str, QARecord], judge: StrictJudge
) -> list[dict[str, Any]]:
    """One entry per read answer: the reading, the stored verdict and the current one."""
    entries = []
    run = Path(reading["run"])
    for setting, answers in reading["readings"].items():
        published = restore(run / f"{setting}.jsonl", list(records.values()))
        rows = {row.id: row for row in published}
        for qid, read in answers.items():
            record, row = records[qid], rows[qid]
            verdict = judge.judge(
                record.question,
                record.answer,
                row.answer,
                answer_type=record.answer_type,
                scale=record.scale or None,
                unit=record.unit,
            )
            entries.append(
                {
                    "setting": setting,
                    "id": qid,
                    "reading": read["score"],
                    "note": read["note"],
                    "stored": row.score,
                    "stored_stage": row.judge_stage,
                    "judged": verdict.score,
                    "stage": verdict.stage,
                    "reason": verdict.reason,
                }
            )
    return entries


def agreement(entries: list[dict[str, Any]], key: str) -> tuple[int, int]:
    """How many entries' ``key`` score equals the reading, of how many."""
    return sum(entry[key] == entry["reading"] for entry in entries), len(entries)


def _share(agreed: int, total: int) -> str:
    return f"{agreed}/{total} ({agreed / total:.1%})" if total else "0/0"


def report(entries: list[dict[str, Any]]) -> dict[str, Any]:
    """Print the agreement tables and the disagreements; return the figures."""
    figures: dict[str, Any] = {
        "current": agreement(entries, "judged"),
        "stored": agreement(entries, "stored"),
    }
    print(f"current judge agrees with the reading on {_share(*figures['current'])}")
    print(f"stored verdicts (the run's judge) agree on {_share(*figures['stored'])}")
    print("\nsetting               reading  current  stored   agreement (current)")
    for setting in dict.fromkeys(entry["setting"] for entry in entries):
        rows = [entry for entry in entries if entry["setting"] == setting]
        totals = [sum(entry[key] for entry in rows) for key in ("reading", "judged", "stored")]
        shown = "  ".join(f"{total:7.1f}" for total in totals)
        print(f"{setting:20s} {shown}   {_share(*agreement(rows, 'judged'))}")
        figures[setting] = {"reading": totals[0], "current": totals[1], "stored": totals[2]}
    stages = Counter(entry["stage"] for entry in entries)
    print("\nstage       verdicts  agreement")
    for stage, count in stages.most_common():
        rows = [entry for entry in entries if entry["stage"] == stage]
        print(f"{stage:10s} {count:9d}  {_share(*agreement(rows, 'judged'))}")
    figures["stages"] = {
        stage: agreement([e for e in entries if e["stage"] == stage], "judged") for stage in stages
    }
    disagreements = [entry for entry in entries if entry["judged"] != entry["reading"]]
    print(f"\n{len(disagreements)} disagreements of the current judge:")
    for entry in disagreements:
        print(
            f"  {entry['setting']} {entry['id']}: read {entry['reading']:g}, judged "
            f"{entry['judged']:g} ({entry['reason']})\n      reading: {entry['note']}"
        )
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reading", type=Path, default=DEFAULT_READING)
    parser.add_argument("--judge-lm", help="LM for the judge's LLM stage (default: none)")
    parser.add_argument(
        "--data-dir", type=Path, help="datasets folder (default: $FILINGQA_DATA_DIR)"
    )
    args = parser.parse_args()
    reading = json.loads(args.reading.read_text())
    records = {record.id: record for record in load_dataset("financebench:dev", args.data_dir)}
    lm = get_lm(Backbone.parse(args.judge_lm)) if args.judge_lm else None
    entries = audit(reading, records, StrictJudge(lm=lm))
    figures = report(entries)
    name = args.reading.name.removesuffix(".reading.json")
    suffix = "llm" if args.judge_lm else "no-llm"
    out = AUDIT_DIR / f"{name}.audit-{suffix}.json"
    payload = {
        "judge_lm": args.judge_lm,
        "slice": reading["slice"],
        "figures": figures,
        "verdicts": entries,
    }
    out.write_text(json.dumps(payload, indent=1) + "\n")
    print(f"\nwrote {out}")


if __name__ == "__main__":
    main()
