"""The form an answer takes, and what a computed answer must state."""

from __future__ import annotations

from typing import Literal

AnswerForm = Literal["computed", "looked_up", "span", "list", "count", "yes_no", "explanation"]
Asks = Literal["value", "direction", "choice"]
"""What a computed answer must state: the value, a direction with it, or the winner's name."""
