"""An adapter for code-bearing signatures: the LM answers with one fenced Python block.

Small models write code far more reliably as plain fenced text than as an escaped JSON
string or inside ``[[ ## field ## ]]`` sections.
"""

from __future__ import annotations

import re
from typing import Any

import dspy
from dspy.utils.exceptions import AdapterParseError

from filingqa.lm.evidence_first import EvidenceFirstLayout, instructions, request_sections

_FENCE = re.compile(r"```[ \t]*(?:python|py)?[ \t]*\n(.*?)(?:```|\Z)", re.DOTALL | re.IGNORECASE)


def extract_code(completion: str) -> str:
    """The code in the first fenced block of ``completion``, or the whole text if unfenced.

    An unclosed final fence (generation cut off) still yields what was written.
    """
    match = _FENCE.search(completion)
    return (match.group(1) if match else completion).strip()


class FencedCodeAdapter(EvidenceFirstLayout, dspy.ChatAdapter):
    """One user message laid out like a bare prompt; the single output is a fenced block.

    The request is laid out evidence first (:mod:`~filingqa.lm.evidence_first`): the
    evidence as it is, ``Question: ...``, the other inputs as ``Label: value``, then the
    signature's instructions; there is no system message. For
    :class:`~filingqa.signatures.pot.WriteProgram` this is exactly the bare prompt ("write
    Python that stores ``result``"): with DSPy's usual
    system-message layout a small model often writes one-line programs that take the wrong
    cells, and labelling the first field ``Evidence:`` does worse than leaving it bare (the
    layouts compared: docs/experiments.md). Field names are not shown as identifiers: small
    models otherwise treat an input such as ``evidence`` as a Python variable or a file
    their code can read. Demos are earlier user/assistant turns of the same shape.
    """

    def __init__(self) -> None:
        super().__init__(use_json_adapter_fallback=False)

    def lays_out(self, signature: type[dspy.Signature]) -> bool:
        """Every code-writing request is laid out here."""
        return True

    def request(self, signature: type[dspy.Signature], inputs: dict[str, Any]) -> str:
        """The inputs, then the instructions (the output is always one fenced block)."""
        _code_field(signature)
        sections = request_sections(signature, inputs)
        sections.append(instructions(signature))
        return "\n\n".join(sections)

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
