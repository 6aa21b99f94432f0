"""The kill-resume check (:mod:`filingqa.evaluation.robustness.kill_resume`) with the scripted
backbone: eval SIGKILLed twice resumes to the uninterrupted run's results (the benchmark's full run
uses 30 questions)."""

from __future__ import annotations

from filingqa.evaluation.robustness.kill_resume import SCRIPTED, Plan, compare, drive


def test_eval_killed_twice_finishes_with_the_uninterrupted_results() -> None:
    report = drive(Plan(lm=SCRIPTED, questions=6))
    assert report["identical"], report["differences"]
    assert report["differences"] == []
    assert [kill["killed"] for kill in report["kills"]] == [True, True]
    assert report["cost_reference"]["pot"]["lm_calls"] > 0  # mean LM calls per question


def test_compare_finds_duplicates_and_changed_answers() -> None:
    row = {"id": "a", "answer": "1", "outcome": "answered", "score": 1.0}
    summary = {"summaries": {"pot": {"questions": 1, "accuracy": 1.0}}}
    reference = {"rows": {"pot": [row]}, "results": summary}
    duplicated = {"rows": {"pot": [row, row]}, "results": summary}
    changed = {"rows": {"pot": [{**row, "answer": "2"}]}, "results": summary}
    assert compare(reference, reference) == []
    assert compare(reference, duplicated) == ["pot: duplicate rows"]
    assert compare(reference, changed) == ["pot a: answer differs"]
