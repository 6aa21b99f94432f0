"""filingqa: question answering over financial filings as a compiled DSPy program.

The public API: ``filingqa.load()`` returns the shipped program compiled for the backbone
(``filingqa.load("artifacts/<name>")`` a named one), and
:mod:`filingqa.ask` answers a question over a filing or an index; the ``filingqa`` command
(:mod:`filingqa.cli`) sits on top. The packages below are laid out by role, one way down
(see docs/architecture.md).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from filingqa.program.financial_qa import FinancialQA

__version__ = "0.1.0"
__all__ = ["__version__", "load"]


def load(
    path: str | Path | None = None, lm: Any = None, *, api_base: str | None = None
) -> FinancialQA:
    """The compiled artifact in ``path`` (default: the shipped one compiled for ``lm``) as a
    ready ``FinancialQA``; see :func:`filingqa.artifacts.compiled.load` (imported on first
    use: ``import filingqa`` stays light)."""
    from filingqa.artifacts.compiled import load as load_artifact

    return load_artifact(path, lm, api_base=api_base)
