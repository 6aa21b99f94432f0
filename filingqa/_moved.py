"""Module paths from before the layout by role (``filingqa.program.lm`` is now
``filingqa.lm.backbone``, …), still importable with a :class:`DeprecationWarning` so code
written against them keeps running."""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import warnings
from types import ModuleType

MOVED: dict[str, str] = {
    "filingqa.config": "filingqa.core.config",
    "filingqa.cache": "filingqa.core.cache",
    "filingqa.metrics.numbers": "filingqa.core.numbers",
    "filingqa.program.lm": "filingqa.lm.backbone",
    "filingqa.program.llama_engine": "filingqa.lm.llama_engine",
    "filingqa.program.llama_server": "filingqa.lm.llama_server",
    "filingqa.program.code_adapter": "filingqa.lm.code_adapter",
    "filingqa.program.json_output": "filingqa.lm.json_output",
    "filingqa.program.faults": "filingqa.lm.faults",
    "filingqa.program.trace": "filingqa.lm.trace",
    "filingqa.program.inputs": "filingqa.checks.inputs",
    "filingqa.program.ambiguity_cues": "filingqa.checks.ambiguity_cues",
    "filingqa.program.screening": "filingqa.checks.screening",
    "filingqa.program.sign_check": "filingqa.checks.sign_check",
    "filingqa.program.cell_check": "filingqa.checks.cell_check",
    "filingqa.program.table_rows": "filingqa.checks.table_rows",
    "filingqa.program.formulas": "filingqa.checks.formulas",
    "filingqa.program.citations": "filingqa.checks.citations",
    "filingqa.program.units": "filingqa.checks.units",
    "filingqa.program.refusal": "filingqa.program.anti_refusal",
    "filingqa.program.passages": "filingqa.retrieval.evidence",
    "filingqa.program.evidence_buffer": "filingqa.evidence.buffer",
    "filingqa.program.search_handle": "filingqa.records.search_handle",
    "filingqa.program.router": "filingqa.router.rule",
    "filingqa.program.router_features": "filingqa.router.features",
    "filingqa.program.lightgbm_router": "filingqa.router.lightgbm_router",
    "filingqa.program.ask": "filingqa.ask",
    "filingqa.optimizers.router_training": "filingqa.router.training",
    "filingqa.optimizers.metric": "filingqa.metrics.dspy_metric",
    "filingqa.optimizers.manifest": "filingqa.artifacts.manifest",
    "filingqa.signatures.judge": "filingqa.metrics.judge_signature",
}


class MovedModuleFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds a moved module under its old name: the new module, with a warning."""

    def find_spec(self, fullname: str, path: object = None, target: object = None):
        if fullname not in MOVED:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        new = MOVED[spec.name]
        warnings.warn(
            f"{spec.name} moved to {new}; import it from there", DeprecationWarning, stacklevel=2
        )
        return importlib.import_module(new)

    def exec_module(self, module: ModuleType) -> None:
        """Nothing to run: the module is the new one, already executed."""


def install() -> None:
    """Let the old names be found (after every regular finder has had its turn)."""
    if not any(isinstance(finder, MovedModuleFinder) for finder in sys.meta_path):
        sys.meta_path.append(MovedModuleFinder())
