"""Evidence-first requests: every step about one question's evidence opens with the same block.

A step that reads the evidence sends one user message, with no system message (a chat
template then inserts the same default system prompt, if any, before every one):

    <evidence, as rendered>            ← the leading block: identical for every step
    <worked examples, if any>            that reads this question over this evidence
    Question: <question>
    <other inputs, "Label: value">     ← the step's own inputs
    <the step's instructions>
    <its output fields and format>

A server or engine that reuses the KV cache of a shared prefix (llama.cpp, vLLM) then
reads the evidence once per question instead of once per step. Steps without evidence
(query writing, ambiguity) have no block to share and keep the adapter's own layout: laid
out like this, the small model split unambiguous questions into readings. Field names are
not shown as identifiers: small models otherwise treat an input such as ``evidence`` as a
variable their code can read.
"""

from __future__ import annotations

import textwrap
from typing import Any

import dspy
from dspy.adapters.utils import format_field_value, translate_field_type

SHARED_FIELD = "evidence"
"""The input shown bare at the very start of a request: its steps share a leading block."""
QUESTION_FIELD = "question"
EXAMPLES_FIELD = "examples_from_other_filings"
"""Solved questions shown between the evidence and the question, so that the question is
read last, right before the instructions."""


def request_sections(signature: type[dspy.Signature], inputs: dict[str, Any]) -> list[str]:
    """The input sections of a request: the evidence bare, then worked examples, then
    ``Question: ...``, then the other inputs as ``Label: value`` in the signature's order;
    inputs that are absent (or optional and left out) are skipped."""
    fields = signature.input_fields
    order = [name for name in (SHARED_FIELD, EXAMPLES_FIELD, QUESTION_FIELD) if name in fields]
    order += [name for name in fields if name not in order]
    sections = []
    for name in order:
        if inputs.get(name) is None:
            continue
        value = str(format_field_value(fields[name], inputs[name]))
        if name == SHARED_FIELD:
            sections.append(value)
        else:
            label = name.replace("_", " ").capitalize()
            sections.append(f"{label}:\n{value}" if "\n" in value else f"{label}: {value}")
    return sections


def instructions(signature: type[dspy.Signature]) -> str:
    """The signature's instructions on one line."""
    return " ".join(textwrap.dedent(signature.instructions).split())


def output_description(signature: type[dspy.Signature]) -> str:
    """The output fields in order, each with its description and its format when not text."""
    lines = ["Your output fields, in this order:"]
    for name, field in signature.output_fields.items():
        description = (field.json_schema_extra or {}).get("desc", "")
        shown = "" if description.startswith("${") else description
        note = translate_field_type(name, field).partition("# note: ")[2]
        details = "; ".join(part for part in (shown, note) if part)
        lines.append(f"- `{name}`" + (f": {details}" if details else ""))
    return "\n".join(lines)


class EvidenceFirstLayout:
    """Lays a DSPy adapter's requests for steps with evidence out evidence first (see the
    module docstring); the adapter keeps its own output format, parsing and fallbacks, and
    its own layout for the other steps. Demos are earlier user/assistant turns of the same
    shape."""

    def format(
        self,
        signature: type[dspy.Signature],
        demos: list[dict[str, Any]],
        inputs: dict[str, Any],
    ) -> list[dict[str, Any]]:
        if not self.lays_out(signature):
            return super().format(signature, demos, inputs)  # type: ignore[misc]
        messages: list[dict[str, Any]] = []
        for demo in demos:
            if not all(name in demo for name in signature.output_fields):
                continue
            messages.append({"role": "user", "content": self.request(signature, demo)})
            content = self.format_assistant_message_content(signature, demo)  # type: ignore[attr-defined]
            messages.append({"role": "assistant", "content": content})
        messages.append({"role": "user", "content": self.request(signature, inputs)})
        return messages

    def lays_out(self, signature: type[dspy.Signature]) -> bool:
        """Whether requests for ``signature`` are laid out here: those of steps that read
        the evidence."""
        return SHARED_FIELD in signature.input_fields

    def request(self, signature: type[dspy.Signature], inputs: dict[str, Any]) -> str:
        """One request's text: inputs, instructions, outputs, the adapter's format line."""
        sections = request_sections(signature, inputs)
        sections.append(instructions(signature))
        sections.append(output_description(signature))
        sections.append(self.user_message_output_requirements(signature))  # type: ignore[attr-defined]
        return "\n\n".join(sections)


class EvidenceFirstJSONAdapter(EvidenceFirstLayout, dspy.JSONAdapter):
    """DSPy's JSONAdapter (replies as one JSON object, under the schema grammar where the
    engine has one) with evidence-first requests."""


class EvidenceFirstChatAdapter(EvidenceFirstLayout, dspy.ChatAdapter):
    """DSPy's ChatAdapter (``[[ ## field ## ]]`` replies) with evidence-first requests; its
    JSON fallback keeps the layout."""

    def _make_json_adapter_fallback(self) -> dspy.JSONAdapter:
        return EvidenceFirstJSONAdapter(
            use_native_function_calling=self.use_native_function_calling,
            parallel_tool_calls=self.parallel_tool_calls,
        )
