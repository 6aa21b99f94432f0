"""The LLM stage of the strict judge: grade one predicted answer against the gold."""

from __future__ import annotations

from typing import Literal

import dspy


class JudgeAnswer(dspy.Signature):
    """Grade a predicted answer to a question about a financial filing against the gold answer.

    Be strict; judge only what the predicted answer states, never what it might have meant.
    Calibrate by answer category:
    - number: 1 only if the predicted number equals the gold within about 2% (or after
      rounding to the gold's precision), with the same sign and an equivalent unit or scale
      (14.86% equals 0.1486; $1,577 million equals $1.577 billion). Otherwise 0.
    - yes_no: the yes/no polarity must agree with the gold. 1 if it agrees and any key figure
      the gold gives as support is consistent; 0.5 if the polarity agrees but the stated
      support is missing or wrong; 0 if the polarity differs or is not stated.
    - span: 1 if the prediction names the same entity, item, label or set of items as the gold;
      0.5 if it names only part of a multi-item gold or adds a wrong item; otherwise 0.
    - explanation: 1 if it reaches the gold's conclusion and its facts and figures are
      consistent with the gold; 0.5 if partly right (right direction but a wrong or missing
      key fact, or only some of the reasons); 0 if it contradicts the gold or misses the point.
    Extra correct detail is fine; hedging between several answers is not.
    """

    question: str = dspy.InputField(desc="the question that was asked")
    gold_answer: str = dspy.InputField(desc="the reference answer, taken as correct")
    predicted_answer: str = dspy.InputField(desc="the answer to grade")
    answer_category: Literal["number", "yes_no", "span", "explanation"] = dspy.InputField(
        desc="which calibration rule applies"
    )
    reason: str = dspy.OutputField(desc="one or two sentences on what matches and what does not")
    # A float in a Literal: pydantic and dspy take it, the typing spec does not.
    score: Literal[0, 0.5, 1] = dspy.OutputField(  # type: ignore[valid-type]
        desc="1 correct, 0.5 partially correct, 0 wrong"
    )
