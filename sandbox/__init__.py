"""Runs model-written Python in a separate, restricted process.

``run_python(code, limits)`` checks the program statically, executes it in a fresh worker
under OS limits, restricted builtins and an audit hook, and returns an ``ExecutionResult``
whose ``feedback()`` tells the model how to repair a failing program.
"""

from filingqa.sandbox.executor import run_python
from filingqa.sandbox.limits import ALLOWED_MODULES, SandboxLimits
from filingqa.sandbox.outcome import ExecutionResult, SandboxError

__all__ = ["ALLOWED_MODULES", "ExecutionResult", "SandboxError", "SandboxLimits", "run_python"]
