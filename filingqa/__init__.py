"""filingqa: question answering over financial filings as a compiled DSPy program.

The pipeline reads like its packages: ``filingqa.datasets`` (questions and context),
``filingqa.program`` (LM layer and modules), ``filingqa.signatures`` (typed LM steps),
``filingqa.sandbox`` (runs model-written Python), ``filingqa.metrics`` (the strict judge),
``filingqa.optimizers`` (compile-time metric and optimizers), ``filingqa.models`` (pinned
offline model files). ``filingqa.load("artifacts/<name>")`` returns a compiled program.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from filingqa.program.financial_qa import FinancialQA

__version__ = "0.1.0"
__all__ = ["__version__", "load"]


def load(path: str | Path, lm: Any = None, *, api_base: str | None = None) -> FinancialQA:
    """The compiled artifact in ``path`` as a ready ``FinancialQA``; see
    :func:`filingqa.artifact.load` (imported on first use: ``import filingqa`` stays light)."""
    from filingqa.artifact import load as load_artifact

    return load_artifact(path, lm, api_base=api_base)
