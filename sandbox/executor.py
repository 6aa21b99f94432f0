"""Parent side: check a program, run it in a fresh worker process, and read the report."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from pydantic import BaseModel, ValidationError

from filingqa.sandbox.limits import ALLOWED_MODULES, SandboxLimits
from filingqa.sandbox.outcome import Answer, ErrorKind, ExecutionResult, ResultSource, SandboxError
from filingqa.sandbox.policy import check_program

WORKER = Path(__file__).with_name("worker.py")
# Isolated mode, no site-packages, no bytecode writing, warnings silenced.
WORKER_COMMAND: tuple[str, ...] = (sys.executable, "-I", "-S", "-B", "-W", "ignore", str(WORKER))
MAX_STDERR_CHARS = 300
# Signals that end a worker which ran out of CPU time (SIGKILL comes from the hard RLIMIT_CPU).
CPU_SIGNALS = frozenset({signal.SIGKILL, signal.SIGXCPU})


class WorkerReport(BaseModel):
    """The JSON line a worker writes about its run."""

    ok: bool
    value: Answer | None = None
    result_source: ResultSource | None = None
    error: SandboxError | None = None
    stdout: str = ""
    figures: list[float] = []


def run_python(code: str, limits: SandboxLimits | None = None) -> ExecutionResult:
    """Run a model-written program in a restricted child process and return its answer.

    The answer is the variable ``result``; failing that the value of a final expression,
    else the variable of the last top-level assignment (see ``result_source``). Safe to call
    from many threads at once. Raises OSError only if no worker process can be started.
    """
    limits = limits or SandboxLimits()
    started = time.perf_counter()
    rejection = check_program(code, limits)
    report = WorkerReport(ok=False, error=rejection) if rejection else run_worker(code, limits)
    return ExecutionResult(
        ok=report.ok,
        value=report.value,
        result_source=report.result_source,
        error=_with_line_text(report.error, code),
        stdout=report.stdout,
        figures=report.figures,
        elapsed_s=time.perf_counter() - started,
    )


def run_worker(code: str, limits: SandboxLimits) -> WorkerReport:
    """Execute ``code`` in a worker without the static check (callers must check first)."""
    request = {
        "code": code,
        "cpu_seconds": limits.cpu_seconds,
        "memory_mb": limits.memory_mb,
        "max_output_chars": limits.max_output_chars,
        "allowed_modules": list(ALLOWED_MODULES),
    }
    with subprocess.Popen(
        WORKER_COMMAND,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={},
        start_new_session=True,  # its own process group, killed as a whole on timeout
    ) as process:
        try:
            stdout, stderr = process.communicate(json.dumps(request).encode(), limits.wall_seconds)
        except subprocess.TimeoutExpired:
            _kill_group(process)
            process.communicate()
            message = f"the program exceeded the wall-clock limit of {limits.wall_seconds:g} s"
            return _failure("timeout", message)
    return _read_report(stdout, stderr, process.returncode)


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError):  # already gone
        os.killpg(process.pid, signal.SIGKILL)


def _read_report(stdout: bytes, stderr: bytes, returncode: int) -> WorkerReport:
    """The worker's report; failing that, an error explaining how the worker died."""
    with contextlib.suppress(ValidationError):
        return WorkerReport.model_validate_json(stdout)
    if returncode < 0:
        return _signal_failure(-returncode)
    detail = stderr.decode(errors="replace").strip()[-MAX_STDERR_CHARS:]
    kind: ErrorKind = "memory" if "MemoryError" in detail else "runtime"
    return _failure(kind, f"the worker failed (exit code {returncode}): {detail}")


def _signal_failure(signum: int) -> WorkerReport:
    name = signal.strsignal(signum) or f"signal {signum}"
    if signum in CPU_SIGNALS:
        return _failure("timeout", f"the program exceeded its CPU time limit ({name})")
    message = f"the program crashed ({name}), usually from exhausting memory or stack"
    return _failure("memory", message)


def _failure(kind: ErrorKind, message: str) -> WorkerReport:
    return WorkerReport(ok=False, error=SandboxError(kind=kind, message=message))


def _with_line_text(error: SandboxError | None, code: str) -> SandboxError | None:
    """The error with the text of its line filled in from the program."""
    if error is None or error.line is None:
        return error
    lines = code.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if not 1 <= error.line <= len(lines):
        return error
    return error.model_copy(update={"line_text": lines[error.line - 1]})
