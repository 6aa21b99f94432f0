"""The names ``test_injection.py`` imports from here; the fake LM lives in ``tests/kit``."""

from __future__ import annotations

from ..kit.lm import marker_lm as faulty_lm
from ..kit.replies import AMBIGUITY, COT, NO_AMBIGUITY, WRITE, fenced

__all__ = ["AMBIGUITY", "COT", "NO_AMBIGUITY", "WRITE", "faulty_lm", "fenced"]
