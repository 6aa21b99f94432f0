import json

import pytest

from filingqa.lm.json_output import escape_raw_control_chars


@pytest.mark.parametrize(
    ("raw", "parsed"),
    [
        ('{"program": "a = 1\nresult = a"}', {"program": "a = 1\nresult = a"}),
        ('{"a": "tab\there"}', {"a": "tab\there"}),
        ('{\n  "a": "x",\n  "b": 2\n}', {"a": "x", "b": 2}),  # layout newlines stay
        ('{"a": "quote \\" then\nnewline"}', {"a": 'quote " then\nnewline'}),
        ('{"a": "already \\n escaped"}', {"a": "already \n escaped"}),
        ('{"a": "back\\\\"}', {"a": "back\\"}),
    ],
)
def test_raw_control_chars_inside_strings_are_escaped(raw: str, parsed: dict) -> None:
    assert json.loads(escape_raw_control_chars(raw)) == parsed


def test_text_without_strings_is_unchanged() -> None:
    assert escape_raw_control_chars("[1,\n 2]") == "[1,\n 2]"
