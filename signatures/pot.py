"""Program-of-Thought: the LM writes Python that computes the answer from the evidence.

The evidence comes before the question and the instruction is one plain sentence, as in a
bare prompt (see :class:`~filingqa.lm.code_adapter.FencedCodeAdapter`).
"""

from __future__ import annotations

import dspy

EVIDENCE_DESCRIPTION = "tables and text from the filing"
FORMULA_DESCRIPTION = "how the computation the question names is done (not shown when None)"
EXAMPLES_DESCRIPTION = (
    "solved questions from other filings with their programs, the nearest first (not shown "
    "when None)"
)


class WriteProgram(dspy.Signature):
    """Write Python code that computes the answer and stores it in a variable named `result`."""

    evidence: str = dspy.InputField(desc=EVIDENCE_DESCRIPTION)
    question: str = dspy.InputField()
    formula: str | None = dspy.InputField(default=None, desc=FORMULA_DESCRIPTION)
    examples_from_other_filings: str | None = dspy.InputField(
        default=None, desc=EXAMPLES_DESCRIPTION
    )
    program: str = dspy.OutputField(desc="Python code that assigns the answer to `result`")


class RepairProgram(dspy.Signature):
    """The program above failed when it ran. Write corrected Python code that computes the
    answer and stores it in a variable named `result`."""

    evidence: str = dspy.InputField(desc=EVIDENCE_DESCRIPTION)
    question: str = dspy.InputField()
    formula: str | None = dspy.InputField(default=None, desc=FORMULA_DESCRIPTION)
    failed_program: str = dspy.InputField()
    error: str = dspy.InputField(desc="what went wrong when the program ran")
    program: str = dspy.OutputField(desc="corrected Python code that assigns `result`")


class ReviseProgram(dspy.Signature):
    """The program above ran, but its answer was rejected for the reason given. Write
    corrected Python code that computes the answer and stores it in a variable named
    `result`."""

    evidence: str = dspy.InputField(desc=EVIDENCE_DESCRIPTION)
    question: str = dspy.InputField()
    formula: str | None = dspy.InputField(default=None, desc=FORMULA_DESCRIPTION)
    rejected_program: str = dspy.InputField()
    reason: str = dspy.InputField(desc="why the answer was rejected")
    program: str = dspy.OutputField(desc="corrected Python code that assigns `result`")
