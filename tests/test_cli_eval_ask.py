"""``filingqa eval`` and ``filingqa ask``: options, dispatch and wiring (scripted LM, fakes)."""

import json
import sys
import types
from contextlib import contextmanager
from pathlib import Path

import pytest

from filingqa.artifacts.shipped import program_name
from filingqa.ask import FilingAnswer
from filingqa.cli import main
from filingqa.evaluation.open_corpus import OpenCorpus

from .kit.data import write_financebench
from .kit.passages import ListSearch
from .kit.replies import chat


@pytest.fixture
def no_lm(monkeypatch: pytest.MonkeyPatch) -> None:
    """Loading an LM fails the test (errors must come before it)."""

    def get_lm(*_, **__):
        raise AssertionError("the LM was loaded")

    monkeypatch.setattr("filingqa.lm.backbone.get_lm", get_lm)


@pytest.fixture
def lm_replies(monkeypatch: pytest.MonkeyPatch, scripted_lm):
    """``lm_replies([...])``: ``get_lm`` gives a scripted LM with these replies."""

    def use(replies: list[str]):
        lm = scripted_lm(replies)
        monkeypatch.setattr("filingqa.lm.backbone.get_lm", lambda *_, **__: lm)
        return lm

    return use


def build_index(home: Path, name: str = "financebench") -> Path:
    directory = home / "indexes" / name
    directory.mkdir(parents=True)
    (directory / "index.json").write_text("{}")
    return directory


def one_line_error(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert err.startswith("filingqa: error: ") and "\n" not in err
    return err


# --- eval -----------------------------------------------------------------------------------


def test_eval_without_the_index_names_the_fix_before_loading_the_lm(
    isolated_home: Path, no_lm, capsys
) -> None:
    assert main(["eval", "--dataset", "financebench:dev", "--mode", "naive-rag"]) == 2
    err = one_line_error(capsys)
    assert "build it with `filingqa index --dataset financebench`" in err
    assert str(isolated_home / "indexes" / "financebench") in err


def test_eval_naive_rag_over_the_index_prints_the_table_and_writes_json(
    isolated_home: Path, tmp_path: Path, lm_replies, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    index = build_index(isolated_home)
    plain = ListSearch()
    opened: list[tuple[str, Path | None]] = []

    @contextmanager
    def open_corpus(spec: str, directory: Path | None = None, search: object = None):
        opened.append((spec, directory))
        yield OpenCorpus(search=ListSearch(), plain=plain, k=2)

    monkeypatch.setattr("filingqa.evaluation.command.open_corpus", open_corpus)
    lm_replies([chat(reasoning="the cash flow table", answer="399.8 million")])
    data_dir = write_financebench(tmp_path / "data")
    out, copy = tmp_path / "out", tmp_path / "results.json"
    argv = ["eval", "--dataset", "financebench:dev", "--mode", "naive-rag", "--limit", "1"]
    argv += ["--data-dir", str(data_dir), "--out", str(out), "--json", str(copy)]
    assert main([*argv, "--index", str(index)]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert printed[1].split()[-5:] == ["gold", "given", "gold", "searched", "outcomes"]
    row = printed[2].split()
    setting, n, accuracy, calls, tokens, _seconds, *costs, given, hit = row[:13]
    outcomes = row[13:]
    assert costs == ["10", "10", "5", "-", "-"]  # prompt, evaluated, generated, prefill, gen s
    assert (setting, n, accuracy, calls, tokens, given, hit) == (
        "naive-rag",
        "1",
        "100.0%",
        "1.00",
        "15",
        "100.0%",
        "100.0%",
    )
    assert outcomes == ["answered", "1"]
    assert opened == [("financebench:dev", index)]
    assert json.loads(copy.read_text()) == json.loads((out / "results.json").read_text())
    assert json.loads(copy.read_text())["index"] == str(index)


def test_eval_compiled_runs_the_shipped_artifact_compiled_for_the_backbone(
    lm_replies, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys
) -> None:
    ran = []
    monkeypatch.setattr(
        "filingqa.evaluation.command.run_evaluation",
        lambda settings, **_: ran.append(settings) or {},
    )
    lm_replies([])
    argv = ["eval", "--dataset", "tatqa:dev", "--mode", "program,compiled"]
    assert main([*argv, "--out", str(tmp_path / "out")]) == 0
    artifact = Path(__file__).resolve().parents[1] / "artifacts" / "qwen-local"
    assert ran[0].program == artifact
    assert f"compiled={artifact}" in capsys.readouterr().out.splitlines()[0]


def test_eval_compiled_for_a_backbone_no_artifact_was_compiled_for_names_the_fix(
    no_lm, capsys
) -> None:
    argv = ["eval", "--dataset", "tatqa:dev", "--mode", "compiled", "--lm", "openai/gpt-4o-mini"]
    assert main(argv) == 2
    err = one_line_error(capsys)
    assert "no shipped artifact is compiled for openai/gpt-4o-mini" in err
    assert "give --program DIR" in err


def test_eval_retrieval_mode_dispatches_to_the_retrieval_evaluation(
    no_lm, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys
) -> None:
    calls: list[tuple[str, dict]] = []
    module = types.ModuleType("filingqa.evaluation.retrieval.quality")
    module.run_retrieval_evaluation = lambda dataset, **kwargs: calls.append((dataset, kwargs))
    module.format_retrieval_table = lambda results: "RETRIEVAL TABLE"
    monkeypatch.setitem(sys.modules, "filingqa.evaluation.retrieval.quality", module)
    argv = ["eval", "--dataset", "financebench:dev", "--mode", "retrieval", "--limit", "3"]
    argv += ["--setting", "naive, full", "--json", str(tmp_path / "r.json"), "--data-dir", "D"]
    assert main(argv) == 0
    assert capsys.readouterr().out.strip() == "RETRIEVAL TABLE"
    assert calls == [
        (
            "financebench:dev",
            {
                "settings": ["naive", "full"],
                "limit": 3,
                "data_dir": "D",
                "index": None,
                "json_out": tmp_path / "r.json",
                "progress": True,
                "search_settings": {},
            },
        )
    ]


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--mode", "retrieval,pot"], "--mode retrieval runs alone"),
        (["--mode", "pot", "--setting", "full"], "use it with --mode retrieval"),
        (["--mode", "naive-rag", "--context", "gold"], "naive-rag retrieves its evidence"),
        (["--mode", "magic"], "unknown eval mode(s) ['magic']"),
    ],
)
def test_eval_option_mistakes_are_one_line_errors(
    extra: list[str], message: str, no_lm, capsys
) -> None:
    assert main(["eval", "--dataset", "financebench:dev", *extra]) == 2
    assert message in one_line_error(capsys)


@pytest.mark.parametrize("fresh", [False, True])
def test_eval_passes_fresh_cache_to_the_run(
    fresh: bool, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys
) -> None:
    seen: list = []

    def run_evaluation(settings, **__) -> dict:
        seen.append(settings.fresh_cache)
        return {}

    monkeypatch.setattr("filingqa.lm.backbone.get_lm", lambda spec, **_: spec)
    monkeypatch.setattr("filingqa.evaluation.command.run_evaluation", run_evaluation)
    argv = ["eval", "--dataset", "tatqa:dev", "--mode", "pot", "--out", str(tmp_path)]
    assert main([*argv, *(["--fresh-cache"] if fresh else [])]) == 0
    assert seen == [fresh]


def test_eval_parses_the_backbone_once_and_passes_it_down(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys
) -> None:
    from filingqa.lm.backbone import Backbone

    loaded: list = []
    ran: list = []

    def get_lm(backbone, **kwargs):
        loaded.append((backbone, kwargs))
        return backbone.spec

    def run_evaluation(settings, **kwargs) -> dict:
        ran.append((settings.lm, kwargs["lm"], kwargs["judge_lm"]))
        return {}

    monkeypatch.setattr("filingqa.lm.backbone.get_lm", get_lm)
    monkeypatch.setattr("filingqa.evaluation.command.run_evaluation", run_evaluation)
    argv = ["eval", "--dataset", "tatqa:dev", "--mode", "pot", "--out", str(tmp_path)]
    lm = ["--lm", "openai/m", "--api-base", "http://h/v1", "--judge-lm", "openai/judge"]
    assert main([*argv, *lm]) == 0
    assert loaded == [
        (Backbone.parse("openai/m", "http://h/v1"), {}),
        (Backbone.parse("openai/judge"), {}),
    ]
    assert ran == [("openai/m", "openai/m", "openai/judge")]


def test_eval_context_takes_gold_or_retrieved(capsys) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["eval", "--dataset", "tatqa:dev", "--context", "oracle"])
    assert exit_.value.code == 2
    assert "invalid choice: 'oracle'" in capsys.readouterr().err


# --- ask ------------------------------------------------------------------------------------


def answers_kept(calls: list[dict]):
    """A stand-in for an answering function: it keeps each call's arguments and answers."""

    def answer(question: str, **kwargs) -> FilingAnswer:
        calls.append({"question": question, **kwargs})
        return FilingAnswer(
            question=question,
            program=program_name(kwargs.get("program")),
            answer="399.8 million",
            value=399.8,
            working="result = 812.4 - 412.6",
            citations=[],
            untraced_numbers=[],
            refused=False,
            outcome="answered",
            lm_calls=5,
            cached_calls=0,
            tokens=75,
            seconds=0.1,
        )

    return answer


@pytest.fixture
def index_answers(monkeypatch: pytest.MonkeyPatch) -> list[dict]:
    """``answer_over_index`` replaced: each call's arguments are kept."""
    calls: list[dict] = []
    monkeypatch.setattr("filingqa.ask.answer_over_index", answers_kept(calls))
    return calls


@pytest.fixture
def filing_answers(monkeypatch: pytest.MonkeyPatch) -> list[dict]:
    """``answer_over_filing`` replaced: each call's arguments are kept."""
    calls: list[dict] = []
    monkeypatch.setattr("filingqa.ask.answer_over_filing", answers_kept(calls))
    return calls


def test_ask_company_and_doc_search_the_default_index(
    isolated_home: Path, lm_replies, index_answers: list[dict], capsys
) -> None:
    index = build_index(isolated_home, "default")
    lm = lm_replies([])
    argv = ["ask", "What was FCF?", "--company", "Acme", "--doc", "A_10K", "--doc", "B_10K"]
    assert main([*argv, "--uncompiled"]) == 0
    assert index_answers == [
        {
            "question": "What was FCF?",
            "index": index,
            "lm": lm,
            "company": "Acme",
            "doc_ids": ["A_10K", "B_10K"],
            "samples": 1,
            "program": None,
            "search_settings": {},
        }
    ]
    out = capsys.readouterr().out
    assert "Answer:   399.8 million" in out and "Program:  uncompiled" in out


def test_ask_program_answers_over_the_index_with_the_artifacts_structure(
    isolated_home: Path, lm_replies, index_answers: list[dict]
) -> None:
    build_index(isolated_home, "default")
    lm_replies([])
    artifact = Path(__file__).resolve().parents[1] / "artifacts" / "qwen-local"
    assert main(["ask", "What was FCF?", "--company", "Acme", "--program", str(artifact)]) == 0
    program = index_answers[0]["program"]
    options = program.manifest.program_options
    assert program.pot.samples == options["samples"]
    assert program.form.choice == options["answer_forms"]


def test_ask_answers_with_the_shipped_artifact_compiled_for_the_backbone_by_default(
    isolated_home: Path, lm_replies, index_answers: list[dict], filing_answers: list[dict], capsys
) -> None:
    build_index(isolated_home, "default")
    lm_replies([])
    assert main(["ask", "What was FCF?"]) == 0
    assert main(["ask", "What was FCF?", "--company", "Acme", "--json"]) == 0
    (over_filing,), (over_index,) = filing_answers, index_answers
    assert over_filing["program"].manifest.name == "qwen-local"
    assert over_index["program"].manifest.name == "qwen-local"
    captured = capsys.readouterr()
    assert "Program:  qwen-local (compiled)" in captured.out
    assert '"program": "qwen-local"' in captured.out
    assert captured.err == ""


def test_ask_with_a_backbone_no_artifact_was_compiled_for_runs_uncompiled_and_says_how_to_compile(
    lm_replies, filing_answers: list[dict], capsys
) -> None:
    lm_replies([])
    assert main(["ask", "What was FCF?", "--lm", "openai/gpt-4o-mini"]) == 0
    assert filing_answers[0]["program"] is None
    captured = capsys.readouterr()
    assert "Program:  uncompiled" in captured.out
    (note,) = captured.err.strip().splitlines()
    assert note.startswith("filingqa: no shipped program is compiled for openai/gpt-4o-mini")
    assert "`filingqa compile --lm openai/gpt-4o-mini --out DIR`" in note


def test_ask_program_and_uncompiled_exclude_each_other(no_lm, capsys) -> None:
    artifact = Path(__file__).resolve().parents[1] / "artifacts" / "qwen-local"
    with pytest.raises(SystemExit):
        main(["ask", "What was FCF?", "--program", str(artifact), "--uncompiled"])
    assert "not allowed with argument" in capsys.readouterr().err


def test_ask_samples_votes_the_uncompiled_program_only(no_lm, capsys) -> None:
    assert main(["ask", "What was FCF?", "--samples", "3"]) == 2
    assert "--samples votes the uncompiled program; qwen-local" in one_line_error(capsys)


def test_ask_index_takes_a_name_or_a_directory(
    isolated_home: Path, tmp_path: Path, lm_replies, index_answers: list[dict]
) -> None:
    named = build_index(isolated_home)
    other = build_index(tmp_path, "mine")
    lm_replies([])
    assert main(["ask", "What was FCF?", "--index", "financebench"]) == 0
    assert main(["ask", "What was FCF?", "--index", str(other)]) == 0
    assert [call["index"] for call in index_answers] == [named, other]
    assert index_answers[0]["company"] is None and index_answers[0]["doc_ids"] == []


def test_ask_answers_over_the_sample_filing_even_when_an_index_is_built(
    isolated_home: Path, lm_replies, index_answers: list[dict], capsys
) -> None:
    build_index(isolated_home, "default")
    lm_replies(["```python\nresult = 812.4 - 412.6\n```"])
    assert main(["ask", "What was Northwind's free cash flow in fiscal 2024?", "--uncompiled"]) == 0
    out = capsys.readouterr().out
    assert "Answer:   399.8 million" in out and "Program:  uncompiled" in out
    assert "NORTHWIND_2024_10K, page 4, table" in out
    assert index_answers == []


def test_ask_without_the_index_names_the_fix(isolated_home: Path, no_lm, capsys) -> None:
    assert main(["ask", "What was FCF?", "--doc", "3M_2018_10K"]) == 2
    assert "build it with `filingqa index PATH...`" in one_line_error(capsys)
    assert main(["ask", "What was FCF?", "--index", "financebench"]) == 2
    assert "build it with `filingqa index --dataset financebench`" in one_line_error(capsys)


def test_ask_filing_and_index_options_exclude_each_other(no_lm, capsys) -> None:
    assert main(["ask", "Q?", "--filing", "x.txt", "--company", "Acme"]) == 2
    assert "--filing answers over that file" in one_line_error(capsys)
