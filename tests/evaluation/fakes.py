"""What ``tests/test_cli_eval_slice.py`` imports from here; the fakes live in ``tests/kit``."""

from __future__ import annotations

from ..kit.replies import fenced

__all__ = ["fenced"]
