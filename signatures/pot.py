"""Program-of-Thought: the LM writes Python that computes the answer from the evidence."""

from __future__ import annotations

import dspy

EVIDENCE_DESCRIPTION = "passages from the filing (tables and text), each under a page header"


class WriteProgram(dspy.Signature):
    """Write a short Python program that computes the answer to the question from the evidence.

    The evidence is plain text, not Python data: type each number you use into the code as
    a literal in a variable with a descriptive name (e.g. `revenue_2023 = 1204.5`), compute
    step by step, and assign the final answer to a variable named `result`.
    In tables, an amount in parentheses such as (412.6) is an outflow or a negative; when the
    question asks how much was spent or paid, use the positive amount 412.6. A percentage or
    growth rate is a number of percent (e.g. 16.2 for 16.2%). Use only plain Python and the
    math module: no pandas, no regular expressions, no reading files, no printing.
    """

    question: str = dspy.InputField()
    evidence: str = dspy.InputField(
        desc="passages from the filing (tables and text), each under a page header"
    )
    program: str = dspy.OutputField(desc="Python code that assigns the answer to `result`")


class RepairProgram(dspy.Signature):
    """The program below failed when it ran. Write a corrected Python program.

    Keep what was right, fix the error, and assign the final answer to `result`.
    """

    question: str = dspy.InputField()
    evidence: str = dspy.InputField(
        desc="passages from the filing (tables and text), each under a page header"
    )
    failed_program: str = dspy.InputField()
    error: str = dspy.InputField(desc="what went wrong when the program ran")
    program: str = dspy.OutputField(desc="corrected Python code that assigns `result`")
