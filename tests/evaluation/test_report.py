import json
import re
from pathlib import Path

from filingqa.evaluation.report import write_html_report
from filingqa.evaluation.runner import Row
from filingqa.evaluation.summary import summarize
from filingqa.lm.trace import Step

from ..kit.data import judged_row


def rows(scores: list[float], calls: int, kind: str = "number") -> list[Row]:
    return [
        judged_row(
            id=f"q{i}",
            question=f"What was <b>item</b> {i}?",
            gold="25.5",
            answer="25.5" if score == 1 else "41",
            score=score,
            judge_reason="numeric check",
            answer_type=kind if i % 2 else "span",
            lm_calls=calls,
            tokens=100,
            seconds=2.0,
            working=f"result = {i} < 3",
            official={"tatqa_em": score, "tatqa_f1": score},
            question_type="table" if i < 2 else "text",
        )
        for i, score in enumerate(scores)
    ]


def write_results(folder: Path) -> Path:
    settings = {"direct": rows([1, 0, 0, 0], 1), "pot": rows([1, 1, 0, 1], 2)}
    for name, found in settings.items():
        (folder / f"{name}.jsonl").write_text("".join(r.model_dump_json() + "\n" for r in found))
    results = {
        "settings": {"dataset": "tatqa:dev", "lm": "local", "where": {}, "limit": 4},
        "wall_seconds": 12.5,
        "summaries": {name: summarize(found).model_dump() for name, found in settings.items()},
    }
    path = folder / "results.json"
    path.write_text(json.dumps(results))
    return path


def test_report_has_every_section_and_trace(tmp_path: Path) -> None:
    out = write_html_report(write_results(tmp_path), tmp_path / "report" / "index.html")
    html = out.read_text()
    for section in (
        "settings",
        "paired",
        "accuracy-by-answer-type",
        "accuracy-by-question-type",
        "accuracy-vs-lm-calls-per-question",
        "failure-classes",
        "questions",
    ):
        assert f'<section id="{section}">' in html
    assert html.count("<svg") == 4
    assert "tatqa:dev" in html and "75.0%" in html and "25.0%" in html
    # the settings table gives the official metric beside the judge's accuracy
    assert "<td>pot</td><td>4</td><td>75.0%</td><td>EM 75.0% F1 75.0%</td>" in html
    assert "table (n=2)" in html and "text (n=2)" in html
    # the official metrics per answer type, beside the strict accuracy
    assert "<td>span</td><td>pot</td><td>2</td><td>50.0%</td><td>EM 50.0% F1 50.0%</td>" in html
    assert "<td>number</td><td>direct</td><td>2</td><td>0.0%</td><td>EM 0.0% F1 0.0%</td>" in html
    # pot against direct, question by question: q1 and q3 won (both numbers)
    assert (
        "<td>pot vs direct</td><td>4</td><td>2</td><td>0</td><td>0.250</td>"
        "<td>number 2/0, span 0/0</td><td>-</td>"  # no yes/no questions to withhold
    ) in html
    # one trace per row, nested under its setting, with the working escaped
    assert html.count("<details>") == 2 + 8
    assert "What was &lt;b&gt;item&lt;/b&gt; 1?" in html and "<b>item</b>" not in html
    assert "result = 0 &lt; 3" in html
    assert "[F period/semantic]" in html
    assert re.search(r"<script|src=|href=", html) is None  # self-contained
    # resumed rows count in the question time: 8 rows of 2 s each
    assert "<dt>question time (all rows)</dt><dd>16.0 s</dd>" in html
    # the x axis of accuracy vs calls is labelled from 0 to beyond the largest (2 calls/q)
    assert ">0.0</text>" in html and ">2.3</text>" in html


def test_manual_failure_classes_show_up(tmp_path: Path) -> None:
    out = write_html_report(write_results(tmp_path), tmp_path / "r.html", manual={"q1": "D"})
    assert "D question self-contradiction" in out.read_text()


def test_a_program_row_shows_its_steps(tmp_path: Path) -> None:
    path = write_results(tmp_path)
    row = rows([1], 2)[0].model_copy(
        update={
            "steps": [
                Step(name="ambiguity", note="not asked: no qualifier or term"),
                Step(name="reason 1", lm_calls=1, tokens=640, seconds=12.25, note="<ok>"),
            ]
        }
    )
    (tmp_path / "pot.jsonl").write_text(row.model_dump_json() + "\n")
    html = write_html_report(path, tmp_path / "r.html").read_text()
    assert '<td>ambiguity</td><td>0</td><td>0</td><td>0.0</td><td class="text"></td>' in html
    reason = '<td>12.2</td><td class="text"></td><td class="text">&lt;ok&gt;</td>'
    assert reason in html


def test_the_paired_table_gives_the_yes_no_each_setting_withheld(tmp_path: Path) -> None:
    path = write_results(tmp_path)
    yes = judged_row(id="q0", answer="Yes", answer_type="yes_no")
    undecided = yes.model_copy(update={"answer": "Undecided: no figure", "score": 0.0})
    (tmp_path / "direct.jsonl").write_text(yes.model_dump_json() + "\n")
    (tmp_path / "pot.jsonl").write_text(undecided.model_dump_json() + "\n")
    html = write_html_report(path, tmp_path / "r.html").read_text()
    assert "<th>yes/no withheld (A, B)</th>" in html
    assert "<td>pot vs direct</td><td>1</td><td>0</td><td>1</td><td>1.000</td>" in html
    assert "<td>-</td><td>1, 0</td></tr>" in html
