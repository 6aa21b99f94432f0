import dspy

from filingqa.program.pot import ProgramOfThought, answer_text
from filingqa.sandbox import ExecutionResult


def fenced(code: str) -> str:
    return f"```python\n{code}\n```"


def test_first_program_that_runs_is_the_answer(scripted_lm) -> None:
    lm = scripted_lm([fenced("a = 412.6\nb = 355.0\nresult = (a - b) / b * 100")])
    with dspy.context(lm=lm):
        prediction = ProgramOfThought()(question="Growth?", evidence="412.6 and 355.0")
    assert abs(prediction.value - 16.2254) < 1e-3
    assert prediction.answer == "16.2254"
    assert len(prediction.attempts) == 1


def test_repair_receives_the_sandbox_error(scripted_lm) -> None:
    lm = scripted_lm(
        [
            fenced("result = capex_2024 - 1"),
            fenced("capex_2024 = 10\nresult = capex_2024 - 1"),
        ]
    )
    with dspy.context(lm=lm):
        prediction = ProgramOfThought()(question="Q?", evidence="capex 10")
    assert prediction.value == 9
    assert [a.execution.ok for a in prediction.attempts] == [False, True]
    repair_prompt = lm.engine.prompt_text(1)
    assert "capex_2024" in repair_prompt
    assert "NameError" in repair_prompt
    assert "result = capex_2024 - 1" in repair_prompt  # the failed program is shown


def test_repairs_stop_after_the_limit(scripted_lm) -> None:
    lm = scripted_lm([fenced("result = 1 / 0")] * 3)
    with dspy.context(lm=lm):
        prediction = ProgramOfThought(max_repairs=2)(question="Q?", evidence="E")
    assert len(prediction.attempts) == 3
    assert not prediction.execution.ok
    assert prediction.execution.error.kind == "runtime"
    assert prediction.answer == ""
    assert lm.engine.replies == []  # exactly three LM calls


def test_forbidden_import_is_reported_not_run(scripted_lm) -> None:
    lm = scripted_lm([fenced("import os\nresult = 1"), fenced("result = 2")])
    with dspy.context(lm=lm):
        prediction = ProgramOfThought()(question="Q?", evidence="E")
    assert prediction.attempts[0].execution.error.kind == "forbidden"
    assert prediction.value == 2


def test_answer_text_formats_values() -> None:
    def ok(value) -> ExecutionResult:
        return ExecutionResult(
            ok=True, value=value, result_source="result", error=None, stdout="", elapsed_s=0.0
        )

    assert answer_text(ok(0.1234567)) == "0.123457"
    assert answer_text(ok(12_345_678.9)) == "12,345,678.90"
    assert answer_text(ok(True)) == "True"
    assert answer_text(ok({"2023": 1.5})) == "2023: 1.5"
