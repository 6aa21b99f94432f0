"""An adapter for code-bearing signatures: the LM answers with one fenced Python block.

Small models write code far more reliably as plain fenced text than as an escaped JSON
string or inside ``[[ ## field ## ]]`` sections; the inputs keep ChatAdapter's layout.
"""

from __future__ import annotations

import re
import textwrap
from typing import Any

import dspy
from dspy.adapters.utils import format_field_value
from dspy.utils.exceptions import AdapterParseError

_FENCE = re.compile(r"```[ \t]*(?:python|py)?[ \t]*\n(.*?)(?:```|\Z)", re.DOTALL | re.IGNORECASE)


def extract_code(completion: str) -> str:
    """The code in the first fenced block of ``completion``, or the whole text if unfenced.

    An unclosed final fence (generation cut off) still yields what was written.
    """
    match = _FENCE.search(completion)
    return (match.group(1) if match else completion).strip()


class FencedCodeAdapter(dspy.ChatAdapter):
    """Inputs as plain labelled text; the single output field is a fenced ```python block.

    Field names are not shown as identifiers: small models otherwise treat an input such
    as ``evidence`` as a Python variable or a file their code can read.
    """

    def __init__(self) -> None:
        super().__init__(use_json_adapter_fallback=False)

    def format_system_message(self, signature: type[dspy.Signature]) -> str:
        return (
            f"{self.format_task_description(signature)}\n\n{self.format_field_structure(signature)}"
        )

    def format_field_structure(self, signature: type[dspy.Signature]) -> str:
        return (
            f"Reply with the {_describe_output(signature)} only, as one fenced code block "
            "(```python ... ```). The code runs on its own: it cannot see the text you are "
            "given, so type every number it needs into the code."
        )

    def format_task_description(self, signature: type[dspy.Signature]) -> str:
        return textwrap.dedent(signature.instructions).strip()

    def format_user_message_content(
        self,
        signature: type[dspy.Signature],
        inputs: dict[str, Any],
        prefix: str = "",
        suffix: str = "",
        main_request: bool = False,
    ) -> str:
        sections = [prefix]
        for name, field in signature.input_fields.items():
            if name in inputs:
                label = name.replace("_", " ").capitalize()
                sections.append(f"{label}:\n{format_field_value(field, inputs[name])}")
        if main_request:
            sections.append(self.user_message_output_requirements(signature))
        sections.append(suffix)
        return "\n\n".join(part for part in sections if part).strip()

    def user_message_output_requirements(self, signature: type[dspy.Signature]) -> str:
        return f"Reply with the {_describe_output(signature)} as one ```python code block."

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


def _describe_output(signature: type[dspy.Signature]) -> str:
    name = _code_field(signature)
    desc = signature.output_fields[name].json_schema_extra.get("desc", "")
    return desc if desc and not desc.startswith("${") else name.replace("_", " ")


def _code_field(signature: type[dspy.Signature]) -> str:
    names = list(signature.output_fields)
    if len(names) != 1:
        raise ValueError(
            f"FencedCodeAdapter needs exactly one output field, {signature.__name__} has {names}"
        )
    return names[0]
