"""The judge's verdict on one answer: a score in {0, 0.5, 1}, why, and which stage decided."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, field_validator

Stage = Literal["numeric", "precheck", "polarity", "direction", "span", "llm", "exact", "failed"]
ALLOWED_SCORES = (0.0, 0.5, 1.0)


class Verdict(BaseModel):
    """One judged answer."""

    model_config = ConfigDict(frozen=True)

    score: float
    reason: str
    stage: Stage

    @field_validator("score")
    @classmethod
    def _score_is_allowed(cls, score: float) -> float:
        if score not in ALLOWED_SCORES:
            raise ValueError(f"score must be one of {ALLOWED_SCORES}, got {score}")
        return float(score)
