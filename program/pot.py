"""Program-of-Thought: the LM writes Python, the sandbox runs it, errors go back for repair."""

from __future__ import annotations

import dspy
from pydantic import BaseModel

from filingqa.program.code_adapter import FencedCodeAdapter
from filingqa.sandbox import ExecutionResult, SandboxLimits, run_python
from filingqa.signatures.pot import RepairProgram, WriteProgram

DEFAULT_REPAIRS = 2
# Generation stops at the closing fence: small models otherwise go on explaining the code
# up to the token limit (measured: a third of PoT time went to such tails).
CODE_CONFIG = {"stop": ["\n```\n"], "max_tokens": 600}


class Attempt(BaseModel):
    """One program and what running it gave."""

    program: str
    execution: ExecutionResult


class ProgramOfThought(dspy.Module):
    """Write a program for the question, run it, and repair it from the sandbox's error.

    Returns a ``dspy.Prediction`` with ``answer`` (text), ``value`` (the program's
    ``result``), ``program`` (the last program), ``execution`` and ``attempts``.
    """

    def __init__(self, max_repairs: int = DEFAULT_REPAIRS, limits: SandboxLimits | None = None):
        super().__init__()
        self.write = dspy.Predict(WriteProgram)
        self.repair = dspy.Predict(RepairProgram)
        self.max_repairs = max_repairs
        self.limits = limits

    def forward(self, question: str, evidence: str) -> dspy.Prediction:
        with dspy.context(adapter=FencedCodeAdapter()):
            program = self.write(question=question, evidence=evidence, config=CODE_CONFIG).program
            attempts = [self._run(program)]
            while not attempts[-1].execution.ok and len(attempts) <= self.max_repairs:
                failed = attempts[-1]
                program = self.repair(
                    question=question,
                    evidence=evidence,
                    failed_program=failed.program,
                    error=failed.execution.feedback(),
                    config=CODE_CONFIG,
                ).program
                attempts.append(self._run(program))
        final = attempts[-1]
        return dspy.Prediction(
            answer=answer_text(final.execution),
            value=final.execution.value,
            program=final.program,
            execution=final.execution,
            attempts=attempts,
        )

    def _run(self, program: str) -> Attempt:
        return Attempt(program=program, execution=run_python(program, self.limits))


def answer_text(execution: ExecutionResult) -> str:
    """The program's result as answer text; empty when the program failed."""
    if not execution.ok or execution.value is None:
        return ""
    value = execution.value
    if isinstance(value, bool | str):
        return str(value)
    if isinstance(value, float):
        return f"{value:.6g}" if abs(value) < 1e6 else f"{value:,.2f}"
    if isinstance(value, dict):
        return "; ".join(f"{name}: {item}" for name, item in value.items())
    return str(value)
