"""A self-contained HTML report of a ``filingqa eval`` run (inline SVG, no assets).

Reads ``results.json`` and the ``<setting>.jsonl`` rows next to it; shows each setting's
accuracy (and the official dataset metrics), cost and gold-page hit rate, accuracy by answer
type (with the official metrics per type) and by question type, accuracy against LM calls
per setting, failure classes (:mod:`~filingqa.evaluation.failure_classes`) per setting, and
every question's trace in click-to-open ``<details>`` elements.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping
from html import escape
from pathlib import Path
from typing import Any

from filingqa.evaluation.failure_classes import CLASS_NAMES, FailureClass, classify
from filingqa.evaluation.paired import Paired, compare_all
from filingqa.evaluation.runner import Row, read_rows
from filingqa.evaluation.summary import (
    COST_COLUMNS,
    Summary,
    cost_cells,
    format_official,
    summarize,
)
from filingqa.evaluation.svg_charts import grouped_bars, scatter

_STYLE = """
body{font-family:sans-serif;margin:2em;max-width:70em;color:#222}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}
th:first-child,td:first-child,td.text{text-align:left}details{margin:2px 0}
summary{cursor:pointer}pre{background:#f6f6f6;padding:6px;white-space:pre-wrap}
.ok{color:#2a7a2a}.bad{color:#b22}.half{color:#b80}dt{font-weight:bold}dd{margin:0}
dl{margin:4px 0 8px 1.5em;display:grid;grid-template-columns:max-content auto;gap:2px 1em}
"""


def load_rows(results_json: Path) -> dict[str, list[Row]]:
    """Each setting's rows, read from ``<setting>.jsonl`` beside ``results_json``."""
    results = json.loads(results_json.read_text(encoding="utf-8"))
    folder = results_json.parent
    return {name: read_rows(folder / f"{name}.jsonl") for name in results.get("summaries", {})}


def write_html_report(
    results_json: Path,
    out: Path,
    manual: Mapping[str, FailureClass] | None = None,
) -> Path:
    """Render the report of ``results_json`` into ``out``; return ``out``.

    ``manual`` assigns failure classes by hand (row id → class), e.g. C and D.

    Raises:
        FileNotFoundError: ``results_json`` does not exist.
    """
    results = json.loads(results_json.read_text(encoding="utf-8"))
    rows = load_rows(results_json)
    sections = [
        _header(results),
        _section("Settings", _summary_table(results.get("summaries", {}))),
        _section("Paired", _paired_table(compare_all(rows))),
        _section(
            "Accuracy by answer type",
            _by_category(rows, lambda row: row.answer_type) + _official_by_answer_type(rows),
        ),
        _section("Accuracy by question type", _by_category(rows, lambda row: row.question_type)),
        _section("Accuracy vs LM calls per question", _accuracy_vs_calls(results)),
        _section("Failure classes", _failures(rows, manual or {})),
        _section("Questions", _traces(rows, manual or {})),
    ]
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(
        "<!DOCTYPE html><html><head><meta charset='utf-8'><title>filingqa eval report</title>"
        f"<style>{_STYLE}</style></head><body>{''.join(sections)}</body></html>\n",
        encoding="utf-8",
    )
    return out


def _section(title: str, body: str) -> str:
    slug = title.lower().replace(" ", "-")
    return f'<section id="{escape(slug)}"><h2>{escape(title)}</h2>{body}</section>'


def _header(results: dict[str, Any]) -> str:
    settings = results.get("settings", {})
    facts = {
        "dataset": settings.get("dataset"),
        "backbone": settings.get("lm"),
        "filters": settings.get("where") or "-",
        "limit": settings.get("limit") or "-",
        "wall time (this run)": f"{results.get('wall_seconds', 0)} s",
        "question time (all rows)": f"{_question_seconds(results):,.1f} s",
    }
    items = "".join(f"<dt>{escape(k)}</dt><dd>{escape(str(v))}</dd>" for k, v in facts.items())
    return f"<h1>filingqa eval report</h1><dl>{items}</dl>"


def _question_seconds(results: dict[str, Any]) -> float:
    """Seconds the rows took to answer, resumed rows included (a resumed run's wall time
    counts only what it answered itself)."""
    summaries = results.get("summaries", {}).values()
    return sum(s.get("seconds", 0) * s.get("questions", 0) for s in summaries)


def _summary_table(summaries: dict[str, dict[str, Any]]) -> str:
    columns = ["setting", "n", "accuracy", "official", "LM calls/q", "tokens/q", "s/q"]
    columns += [label for label, _, _ in COST_COLUMNS]
    columns += ["gold given", "gold searched", "cached calls", "errors"]
    head = "<tr>" + "".join(f"<th>{c}</th>" for c in columns) + "</tr>"
    body = "".join(_summary_line(name, Summary.model_validate(s)) for name, s in summaries.items())
    return f"<table>{head}{body}</table>"


def _summary_line(name: str, s: Summary) -> str:
    given, hit = (
        "-" if rate is None else f"{rate:.1%}" for rate in (s.given_hit_rate, s.retrieval_hit_rate)
    )
    cells = [
        name,
        str(s.questions),
        f"{s.accuracy:.1%}",
        format_official(s.official) or "-",
        f"{s.lm_calls:.2f}",
        f"{s.tokens:.0f}",
        f"{s.seconds:.1f}",
        *cost_cells(s),
        given,
        hit,
        str(s.cached_calls),
        str(s.errors),
    ]
    return "<tr>" + "".join(f"<td>{escape(cell)}</td>" for cell in cells) + "</tr>"


def _paired_table(comparisons: list[Paired]) -> str:
    """A row per pair of settings: questions, wins, losses, sign-test p, per answer type, and
    the yes/no each withheld that the other got right (``-`` without yes/no questions)."""
    if not comparisons:
        return "<p>one setting: nothing to pair</p>"
    head = "".join(
        f"<th>{c}</th>"
        for c in (
            "A vs B",
            "n",
            "A wins",
            "A losses",
            "p (A better)",
            "by type",
            "yes/no withheld (A, B)",
        )
    )
    lines = []
    for p in comparisons:
        cells = [
            f"{p.candidate} vs {p.baseline}",
            str(p.questions),
            str(p.wins),
            str(p.losses),
            f"{p.p_value:.3f}",
            p.by_type_text() or "-",
            f"{p.candidate_withheld}, {p.baseline_withheld}" if p.yes_no else "-",
        ]
        lines.append("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in cells) + "</tr>")
    return f"<table><tr>{head}</tr>{''.join(lines)}</table>"


def _by_category(rows: dict[str, list[Row]], category: Callable[[Row], str]) -> str:
    """Grouped accuracy bars per ``category`` of the rows (rows without one left out)."""
    scores: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for setting, setting_rows in rows.items():
        for row in setting_rows:
            if label := category(row):
                scores[label][setting].append(row.score)
    groups = {
        f"{kind} (n={max(len(v) for v in by_setting.values())})": {
            setting: sum(values) / len(values) for setting, values in by_setting.items()
        }
        for kind, by_setting in sorted(scores.items())
    }
    return grouped_bars(groups, maximum=1.0, percent=True) if groups else "<p>not labelled</p>"


def _official_by_answer_type(rows: dict[str, list[Row]]) -> str:
    """A table per answer type and setting: questions, strict accuracy and the official
    metrics beside it (empty when no row has an official metric)."""
    if not any(row.official for found in rows.values() for row in found):
        return ""
    lines = []
    for setting, setting_rows in rows.items():
        summary = summarize(setting_rows)
        for kind, accuracy in summary.by_answer_type.items():
            official = format_official(summary.official_by_answer_type.get(kind, {}))
            count = sum(row.answer_type == kind for row in setting_rows)
            cells = [kind, setting, str(count), f"{accuracy:.1%}", official or "-"]
            lines.append((kind, "<tr>" + "".join(f"<td>{escape(c)}</td>" for c in cells) + "</tr>"))
    head = "".join(f"<th>{c}</th>" for c in ("answer type", "setting", "n", "accuracy", "official"))
    body = "".join(line for _, line in sorted(lines, key=lambda item: item[0]))
    return f"<table><tr>{head}</tr>{body}</table>"


def _accuracy_vs_calls(results: dict[str, Any]) -> str:
    points = {
        name: (float(s.get("lm_calls", 0)), float(s.get("accuracy", 0)))
        for name, s in results.get("summaries", {}).items()
    }
    if not points:
        return "<p>no settings</p>"
    return scatter(points, x_label="LM calls per question", y_label="accuracy")


def _failures(rows: dict[str, list[Row]], manual: Mapping[str, FailureClass]) -> str:
    counts: dict[str, Counter[str]] = {}
    for setting, setting_rows in rows.items():
        found = (classify(row, manual) for row in setting_rows)
        counts[setting] = Counter(f.label for f in found if f is not None)
    groups = {
        f"{label} {name}": {s: float(c[label]) for s, c in counts.items()}
        for label, name in CLASS_NAMES.items()
        if any(c[label] for c in counts.values())
    }
    if not groups:
        return "<p>no failures</p>"
    legend = "".join(f"<li><b>{k}</b> {escape(v)}</li>" for k, v in CLASS_NAMES.items())
    return grouped_bars(groups) + f"<ul>{legend}</ul>"


def _traces(rows: dict[str, list[Row]], manual: Mapping[str, FailureClass]) -> str:
    blocks = []
    for setting, setting_rows in rows.items():
        items = "".join(_trace(row, manual) for row in setting_rows)
        blocks.append(
            f"<details><summary><b>{escape(setting)}</b> ({len(setting_rows)} questions)"
            f"</summary>{items}</details>"
        )
    return "".join(blocks) or "<p>no rows</p>"


def _trace(row: Row, manual: Mapping[str, FailureClass]) -> str:
    failure = classify(row, manual)
    mark, css = ("✓", "ok") if row.score >= 1 else ("½", "half") if row.score > 0 else ("✗", "bad")
    tag = f" [{failure.label} {escape(failure.name)}]" if failure else ""
    facts = {
        "gold": row.gold,
        "answer": row.answer,
        "outcome": row.outcome,
        "judge": f"{row.score:g} ({row.judge_stage}): {row.judge_reason}",
        "official": format_official(row.official),
        "type": ", ".join(t for t in (row.answer_type, row.question_type) if t),
        "failure": f"{failure.label} {failure.name}: {failure.why}" if failure else "",
        "cost": f"{row.lm_calls} LM calls ({row.cached_calls} cached), {row.tokens} tokens, "
        f"{row.seconds:.1f} s",
        "note": row.note,
        "error": row.error or "",
        "cited": ", ".join(f"{doc} p{page}" for doc, page in row.cited),
        "retrieved": ", ".join(f"{doc} p{page}" for doc, page in row.retrieved or []),
    }
    listed = "".join(
        f"<dt>{escape(k)}</dt><dd>{escape(str(v))}</dd>" for k, v in facts.items() if v
    )
    working = f"<pre>{escape(row.working)}</pre>" if row.working else ""
    return (
        f'<details><summary><span class="{css}">{mark}</span> {escape(row.id)}: '
        f"{escape(row.question)}{tag}</summary><dl>{listed}</dl>{_steps(row)}{working}</details>"
    )


def _steps(row: Row) -> str:
    """The program's steps as a table: name, LM calls, tokens, seconds, fault and note."""
    if not row.steps:
        return ""
    lines = "".join(
        f"<tr><td>{escape(s.name)}</td><td>{s.lm_calls}</td><td>{s.tokens}</td>"
        f'<td>{s.seconds:.1f}</td><td class="text">{escape(s.fault or "")}</td>'
        f'<td class="text">{escape(s.note)}</td></tr>'
        for s in row.steps
    )
    head = "".join(f"<th>{h}</th>" for h in ("step", "calls", "tokens", "s", "fault", "note"))
    return f"<table><tr>{head}</tr>{lines}</table>"
