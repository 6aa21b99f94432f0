import dspy
import pytest

from filingqa.lm.code_adapter import FencedCodeAdapter, extract_code
from filingqa.signatures.pot import WriteProgram


@pytest.mark.parametrize(
    ("completion", "code"),
    [
        ("```python\nresult = 1 + 2\n```", "result = 1 + 2"),
        ("Here you go:\n```py\nx = 3\nresult = x\n```\nDone.", "x = 3\nresult = x"),
        ("```\nresult = 4\n```", "result = 4"),
        ("result = 5", "result = 5"),
        ("```python\nresult = 6\n", "result = 6"),  # cut off before the closing fence
        ("```python\nfirst = 1\n```\n```python\nsecond = 2\n```", "first = 1"),
    ],
)
def test_extract_code_takes_the_first_fenced_block(completion: str, code: str) -> None:
    assert extract_code(completion) == code


def test_predict_with_fenced_adapter_returns_the_code(scripted_lm) -> None:
    lm = scripted_lm(["```python\nrevenue = 10.0\nresult = revenue * 2\n```"])
    with dspy.context(lm=lm, adapter=FencedCodeAdapter()):
        prediction = dspy.Predict(WriteProgram)(question="Double it?", evidence="Revenue 10")
    assert prediction.program == "revenue = 10.0\nresult = revenue * 2"
    prompt = lm.engine.prompts[0]
    assert "Revenue 10\n\nQuestion: Double it?" in prompt
    assert "[[ ##" not in prompt  # field names are not presented as identifiers


def test_the_request_is_the_bare_prompt_evidence_question_instruction(
    scripted_lm,
) -> None:
    lm = scripted_lm(["```python\nresult = 1\n```"])
    with dspy.context(lm=lm, adapter=FencedCodeAdapter()):
        dspy.Predict(WriteProgram)(question="Double it?", evidence="| Revenue | 10 |\n| Cost | 4 |")
    (message,) = lm.engine.requests[0].messages
    assert message.role == "user"
    assert message.text == (
        "| Revenue | 10 |\n| Cost | 4 |\n\nQuestion: Double it?\n\n"
        "Write Python code that computes the answer and stores it in a variable named `result`."
    )


def test_a_formula_note_follows_the_question_and_none_leaves_the_bare_prompt(
    scripted_lm,
) -> None:
    lm = scripted_lm(["```python\nresult = 1\n```", "```python\nresult = 2\n```"])
    with dspy.context(lm=lm, adapter=FencedCodeAdapter()):
        dspy.Predict(WriteProgram)(question="Change?", evidence="E", formula="Change = b - a.")
        dspy.Predict(WriteProgram)(question="Change?", evidence="E", formula=None)
    noted, bare = (request.messages[0].text for request in lm.engine.requests)
    assert noted.startswith("E\n\nQuestion: Change?\n\nFormula: Change = b - a.\n\nWrite Python")
    assert bare.startswith("E\n\nQuestion: Change?\n\nWrite Python")
    assert "Formula" not in bare


def test_demos_are_rendered_as_fenced_code(scripted_lm) -> None:
    lm = scripted_lm(["```python\nresult = 1\n```"])
    predict = dspy.Predict(WriteProgram)
    predict.demos = [dspy.Example(question="q", evidence="e", program="result = 42")]
    with dspy.context(lm=lm, adapter=FencedCodeAdapter()):
        predict(question="Q?", evidence="E")
    request = lm.engine.requests[0]
    assert any(
        m.role == "assistant" and m.text == "```python\nresult = 42\n```" for m in request.messages
    )


def test_empty_reply_is_a_parse_error(scripted_lm) -> None:
    lm = scripted_lm(["```python\n```"])
    with dspy.context(lm=lm, adapter=FencedCodeAdapter()), pytest.raises(Exception) as failure:
        dspy.Predict(WriteProgram)(question="Q?", evidence="E")
    assert "no code" in str(failure.value)


def test_adapter_refuses_signatures_with_several_outputs() -> None:
    with pytest.raises(ValueError, match="exactly one output field"):
        FencedCodeAdapter().format(dspy.Signature("question -> a, b"), [], {"question": "q"})
