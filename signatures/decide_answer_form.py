"""Which form the answer takes, decided by the LM when the question's wording leaves it open."""

from __future__ import annotations

import dspy

from filingqa.records.answer_form import AnswerForm


class DecideAnswerForm(dspy.Signature):
    """Decide what form the answer to the question takes.

    computed: a number worked out from figures (a change, an average, a ratio, a sum).
    looked_up: one figure the evidence states as it is. span: a few words the evidence
    states. list: several items or values. count: how many items meet a condition.
    yes_no: the question asks yes or no. explanation: why or how, in a sentence.
    """

    evidence: str = dspy.InputField()
    question: str = dspy.InputField()
    first_guess: AnswerForm = dspy.InputField(desc="the form the question's wording suggests")
    form: AnswerForm = dspy.OutputField()
