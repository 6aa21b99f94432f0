"""What one sandboxed execution produced, and repair feedback for the model."""

from __future__ import annotations

import builtins
import re
from typing import Literal

from pydantic import BaseModel, Field

from filingqa.sandbox.limits import ALLOWED_MODULES

ErrorKind = Literal[
    "syntax",
    "forbidden",
    "runtime",
    "timeout",
    "memory",
    "output_limit",
    "no_result",
    "bad_result",
    "code_too_long",
]
ResultSource = Literal["result", "last_expression", "last_assignment"]
Scalar = int | float | str | bool
Answer = Scalar | dict[str, Scalar]

_KIND_HINTS: dict[ErrorKind, str] = {
    "syntax": "Write plain Python 3 only: no markdown fences, prose or unclosed brackets.",
    "forbidden": (
        f"Only arithmetic is allowed: import nothing but {', '.join(ALLOWED_MODULES)}; "
        "no files, OS access, exec/eval, getattr or double-underscore names."
    ),
    "runtime": "Fix the failing line; check the numbers and names it uses.",
    "timeout": "The program ran too long: remove infinite loops and heavy computation.",
    "memory": "The program used too much memory: avoid huge numbers, strings or lists.",
    "output_limit": "Print less: assign the final answer to `result` instead of printing it.",
    "no_result": "Assign the final answer to a variable named `result`, e.g. `result = a / b`.",
    "bad_result": (
        "Set `result` to one finite number, string or bool, or to a dict of named numbers "
        "such as {'2022': 1.5, '2023': 1.7}."
    ),
    "code_too_long": "Write a much shorter program that computes only the answer.",
}

_RUNTIME_HINTS: dict[str, str] = {
    "NameError": (
        "Define every variable before using it; only basic builtins (abs, min, max, round, "
        "sum, len, ...) exist, anything else must come from an allowed import."
    ),
    "ZeroDivisionError": "A divisor is zero: check the extracted numbers and guard the division.",
    "TypeError": "Check operand types: convert numeric strings with float() first.",
    "ValueError": "A conversion failed: strip ',', '$', '%' and words before float() or int().",
    "KeyError": "Use a key that exists in the dict, spelled exactly.",
    "IndexError": "Index within the list's length.",
    "RecursionError": "Replace the recursion with a loop.",
    "ImportError": _KIND_HINTS["forbidden"],
}


_UNDEFINED_NAME = re.compile(r"name '(\w+)' is not defined")


class SandboxError(BaseModel):
    """Why an execution failed; ``line`` (1-based) and ``line_text`` point into the program."""

    kind: ErrorKind
    message: str
    line: int | None = None
    line_text: str | None = None

    def hint(self) -> str:
        """A one-sentence repair suggestion for this error."""
        if self.kind == "runtime":
            exception = self.message.partition(":")[0]
            undefined = _UNDEFINED_NAME.search(self.message)
            if exception == "NameError" and undefined and not hasattr(builtins, undefined[1]):
                return f"Add a line `{undefined[1]} = <number copied from the evidence>` first."
            return _RUNTIME_HINTS.get(exception, _KIND_HINTS["runtime"])
        return _KIND_HINTS[self.kind]


class ExecutionResult(BaseModel):
    """The answer of one program run (``ok``), or the error that stopped it."""

    ok: bool
    value: Answer | None = None
    result_source: ResultSource | None = None
    error: SandboxError | None = None
    stdout: str = ""
    figures: list[float] = Field(
        default_factory=list, description="the numbers its top-level variables held at the end"
    )
    elapsed_s: float = 0.0

    def feedback(self) -> str:
        """A short message a model can use to repair (or confirm) its program."""
        if self.error is None:
            return f"The program ran and returned {self.value!r} (taken from {self.result_source})."
        error = self.error
        where = f" on line {error.line}" if error.line is not None else ""
        parts = [f"{error.kind} error{where}: {error.message}"]
        if error.line_text is not None:
            parts.append(f"    line {error.line}: {error.line_text.strip()}")
        parts.append(f"Hint: {error.hint()}")
        return "\n".join(parts)
