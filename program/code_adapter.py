"""An adapter for code-bearing signatures: the LM answers with one fenced Python block.

Small models write code far more reliably as plain fenced text than as an escaped JSON
string or inside ``[[ ## field ## ]]`` sections; the inputs keep ChatAdapter's layout.
"""

from __future__ import annotations

import re
from typing import Any

import dspy
from dspy.utils.exceptions import AdapterParseError

_FENCE = re.compile(r"```[ \t]*(?:python|py)?[ \t]*\n(.*?)(?:```|\Z)", re.DOTALL | re.IGNORECASE)


def extract_code(completion: str) -> str:
    """The code in the first fenced block of ``completion``, or the whole text if unfenced.

    An unclosed final fence (generation cut off) still yields what was written.
    """
    match = _FENCE.search(completion)
    return (match.group(1) if match else completion).strip()


class FencedCodeAdapter(dspy.ChatAdapter):
    """ChatAdapter inputs; the single output field is a fenced ```python block."""

    def __init__(self) -> None:
        super().__init__(use_json_adapter_fallback=False)

    def format_field_structure(self, signature: type[dspy.Signature]) -> str:
        field = _code_field(signature)
        inputs = "\n\n".join(f"[[ ## {name} ## ]]\n{{{name}}}" for name in signature.input_fields)
        return (
            "Inputs come in sections like these:\n\n"
            f"{inputs}\n\n"
            f"Reply with the {field} only: one fenced code block, ```python ... ```."
        )

    def user_message_output_requirements(self, signature: type[dspy.Signature]) -> str:
        return f"Reply with the {_code_field(signature)} as one ```python code block."

    def format_assistant_message_content(
        self,
        signature: type[dspy.Signature],
        outputs: dict[str, Any],
        missing_field_message: str | None = None,
    ) -> str:
        code = outputs.get(_code_field(signature), missing_field_message) or ""
        return f"```python\n{str(code).strip()}\n```"

    def parse(self, signature: type[dspy.Signature], completion: str) -> dict[str, Any]:
        field = _code_field(signature)
        code = extract_code(completion)
        if not code:
            raise AdapterParseError(
                adapter_name="FencedCodeAdapter",
                signature=signature,
                lm_response=completion,
                message="the reply holds no code",
            )
        return {field: code}


def _code_field(signature: type[dspy.Signature]) -> str:
    names = list(signature.output_fields)
    if len(names) != 1:
        raise ValueError(
            f"FencedCodeAdapter needs exactly one output field, {signature.__name__} has {names}"
        )
    return names[0]
