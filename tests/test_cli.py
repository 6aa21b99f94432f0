import json
from pathlib import Path

import pytest

from filingqa.cli import main


def test_help_lists_the_commands(capsys) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["--help"])
    assert exit_.value.code == 0
    out = capsys.readouterr().out
    for command in ("ask", "models", "data", "judge", "index", "eval", "compile"):
        assert command in out


def test_models_status_without_models_names_the_fix(isolated_home: Path, capsys) -> None:
    assert main(["models", "status"]) == 1
    out = capsys.readouterr().out
    assert out.count("run `filingqa models pull`") == 2


def test_ask_without_model_is_a_one_line_error(isolated_home: Path, capsys) -> None:
    assert main(["ask", "What was revenue?"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("filingqa: error: local LLM not ready")
    assert "\n" not in err


def test_data_list_shows_splits_with_counts(shared_data_dir: Path, capsys) -> None:
    assert main(["data", "list", "--data-dir", str(shared_data_dir)]) == 0
    out = capsys.readouterr().out
    assert "financebench:dev" in out and "tatqa:dev" in out
    assert "1,668" in out or "1668" in out


def test_data_list_with_missing_dir_is_a_clear_error(tmp_path: Path, capsys) -> None:
    assert main(["data", "list", "--data-dir", str(tmp_path / "nope")]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_judge_without_llm_scores_each_line_and_summarises(tmp_path: Path, capsys) -> None:
    lines = [
        {"question": "Capex?", "gold": "$303.00", "prediction": "302.6M"},
        {"question": "Change?", "gold": "12.6", "prediction": "-12.6"},
        "not json",
    ]
    path = tmp_path / "answers.jsonl"
    path.write_text("\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines))
    assert main(["judge", str(path), "--no-llm"]) == 0
    out = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [row.get("score") for row in out[:2]] == [1, 0]
    assert "error" in out[2]
    summary = out[-1]["summary"]
    assert summary["count"] == 3 and summary["errors"] == 1


def test_judge_without_llm_rejects_a_ratio_with_a_scale_word_and_reads_scales(
    tmp_path: Path, capsys
) -> None:
    ratio = "What is Block's FY2016 working capital ratio? Round your answer to two decimals."
    capex = "How much was the capital expenditure? Answer in USD millions."
    lines = [
        {"question": ratio, "gold": "1.73", "prediction": "1.73 thousand"},
        {"question": ratio, "gold": "1.73", "prediction": "1.73"},
        {
            "question": capex,
            "gold": "$1,577.00",
            "prediction": "$1.577 billion",
            "scale": "million",
        },
    ]
    path = tmp_path / "answers.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines))
    assert main(["judge", str(path), "--no-llm"]) == 0
    out = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [row["score"] for row in out[:3]] == [0, 1, 1]
    assert "is a ratio" in out[0]["reason"]


def test_ask_rejects_zero_samples(capsys) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["ask", "What was revenue?", "--samples", "0"])
    assert exit_.value.code == 2
    assert "must be at least 1" in capsys.readouterr().err
