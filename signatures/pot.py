"""Program-of-Thought: the LM writes Python that computes the answer from the evidence."""

from __future__ import annotations

import dspy

EVIDENCE_DESCRIPTION = "tables and text from the filing"


class WriteProgram(dspy.Signature):
    """Write Python code that computes the answer to the question from numbers in the evidence.

    Copy each number you need from the evidence into a variable named after its row and
    year, then compute the answer and store it in a variable named `result`.
    """

    question: str = dspy.InputField()
    evidence: str = dspy.InputField(desc=EVIDENCE_DESCRIPTION)
    program: str = dspy.OutputField(desc="Python code that assigns the answer to `result`")


class RepairProgram(dspy.Signature):
    """The program below failed when it ran. Write a corrected program.

    Copy each number you need from the evidence into a variable, compute the answer with
    plain arithmetic, and store it in a variable named `result`.
    """

    question: str = dspy.InputField()
    evidence: str = dspy.InputField(desc=EVIDENCE_DESCRIPTION)
    failed_program: str = dspy.InputField()
    error: str = dspy.InputField(desc="what went wrong when the program ran")
    program: str = dspy.OutputField(desc="corrected Python code that assigns `result`")


class ReviseProgram(dspy.Signature):
    """The program below ran, but its answer was rejected for the reason given. Write a
    corrected program.

    Copy each number you need from the evidence into a variable, compute the answer with
    plain arithmetic, and store it in a variable named `result`.
    """

    question: str = dspy.InputField()
    evidence: str = dspy.InputField(desc=EVIDENCE_DESCRIPTION)
    rejected_program: str = dspy.InputField()
    reason: str = dspy.InputField(desc="why the answer was rejected")
    program: str = dspy.OutputField(desc="corrected Python code that assigns `result`")
