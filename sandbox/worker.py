"""Child-process entry point: runs one model-written program under restrictions.

The parent starts ``python -I -S -B -W ignore worker.py`` and sends a JSON request
``{"code", "cpu_seconds", "memory_mb", "max_output_chars", "allowed_modules"}`` on stdin.
The worker answers with one JSON report on the original stdout, which the program cannot
reach: fd 1 is pointed at /dev/null and the program's prints go to a bounded buffer.

The parent has already checked the program statically. Here it runs under OS resource
limits, with restricted builtins, an ``__import__`` that hands out public views of
pre-imported whitelisted modules only, and an audit hook that refuses every audited
operation (files, imports, processes, sockets, exec of foreign code...) from the moment the
program starts until the worker exits.

Standard library only: isolated mode keeps the package off ``sys.path``.
"""

from __future__ import annotations

import ast
import builtins
import json
import math
import os
import resource
import signal
import sys
from collections.abc import Iterator
from types import CodeType, FrameType, ModuleType, TracebackType
from typing import Any

PROGRAM_FILENAME = "<program>"
MAX_INT_BITS = 128  # a larger integer is not a plausible financial answer
MAX_MESSAGE_CHARS = 500
MAX_OPEN_FILES = 16
MAX_FIGURES = 64  # of a program's top-level numeric variables, reported with its answer
# Modules that whitelisted ones import lazily, which must be loaded before imports are refused:
# datetime's C code imports these through the program's ``__import__``, and
# statistics.mode() reaches collections.Counter.most_common(), which imports heapq.
HELPER_MODULES: dict[str, tuple[str, ...]] = {
    "datetime": ("time", "_strptime"),
    "statistics": ("heapq",),
}
FLOAT_CONVERTIBLE = frozenset({("decimal", "Decimal"), ("fractions", "Fraction")})
SAFE_BUILTINS: tuple[str, ...] = (
    "abs", "all", "any", "bool", "dict", "divmod", "enumerate", "filter", "float", "format",
    "frozenset", "int", "isinstance", "iter", "len", "list", "map", "max", "min", "next",
    "pow", "print", "range", "reversed", "round", "set", "slice", "sorted", "str", "sum",
    "tuple", "zip",
    "ArithmeticError", "AssertionError", "AttributeError", "Exception", "ImportError",
    "IndexError", "KeyError", "LookupError", "NameError", "NotImplementedError",
    "OverflowError", "RecursionError", "RuntimeError", "StopIteration", "TypeError",
    "ValueError", "ZeroDivisionError",
)  # fmt: skip
SOURCE_NAMES = {
    "result": "`result`",
    "last_expression": "the last expression",
    "last_assignment": "the last assigned variable",
}

Report = dict[str, Any]


class Interruption(BaseException):
    """The sandbox stopping the program; a BaseException so `except Exception` cannot hide it."""

    kind = "runtime"


class CpuLimitExceeded(Interruption):
    kind = "timeout"


class OutputLimitExceeded(Interruption):
    kind = "output_limit"


class Blocked(Interruption):
    kind = "forbidden"


class BadResult(Exception):
    """The answer has a type or value that cannot be returned."""


class Guard:
    """Raises interruptions while the program runs and remembers the first one."""

    def __init__(self) -> None:
        self.running = False
        self.first: Interruption | None = None

    def record(self, interruption: Interruption) -> Interruption:
        self.first = self.first or interruption
        return interruption

    def interrupt(self, interruption: Interruption) -> None:
        """Record ``interruption`` and raise it if the program is running."""
        self.record(interruption)
        if self.running:
            raise interruption

    def on_cpu_limit(self, signum: int, frame: FrameType | None) -> None:
        self.interrupt(CpuLimitExceeded("the program exceeded its CPU time limit"))


class BoundedOutput:
    """A text sink for ``sys.stdout`` that keeps at most ``limit`` characters."""

    def __init__(self, limit: int, guard: Guard) -> None:
        self._limit = limit
        self._guard = guard
        self._parts: list[str] = []
        self._size = 0

    def write(self, text: str) -> int:
        room = self._limit - self._size
        kept = text[:room]
        self._parts.append(kept)
        self._size += len(kept)
        if len(text) > room:
            message = f"the program printed more than {self._limit} characters"
            self._guard.interrupt(OutputLimitExceeded(message))
        return len(text)

    def flush(self) -> None:
        """Nothing to flush: the text stays in memory."""

    def getvalue(self) -> str:
        return "".join(self._parts)


class Importer:
    """The program's ``__import__``: public views of pre-imported whitelisted modules only."""

    def __init__(self, views: dict[str, ModuleType]) -> None:
        self._views = views

    def __call__(
        self,
        name: str,
        globals: dict[str, Any] | None = None,
        locals: dict[str, Any] | None = None,
        fromlist: tuple[str, ...] | None = (),
        level: int = 0,
    ) -> ModuleType | None:
        if level == 0 and name in self._views:
            return self._views[name]
        if level == 0 and name in sys.modules and _is_helper(name):
            return None  # C code only needs the side effect; the module stays hidden
        raise ImportError(f"import of '{name}' is not allowed")


def _is_helper(name: str) -> bool:
    return any(name in helpers for helpers in HELPER_MODULES.values())


def main() -> None:
    """Serve one request from stdin and exit without running any finalizers."""
    request = json.loads(sys.stdin.buffer.read())
    channel = _claim_stdout()
    _apply_limits(request["cpu_seconds"], request["memory_mb"])
    report = _run(request)
    _write_all(channel, json.dumps(report, allow_nan=False).encode("ascii"))
    os._exit(0)


def _claim_stdout() -> int:
    """Move the original stdout to a private descriptor; fd 1 then points at /dev/null."""
    channel = os.dup(1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.close(devnull)
    return channel


def _apply_limits(cpu_seconds: float, memory_mb: int) -> None:
    cpu = max(1, math.ceil(cpu_seconds))
    _lower_limit(resource.RLIMIT_CPU, cpu, cpu + 1)  # SIGXCPU at soft, SIGKILL at hard
    _lower_limit(resource.RLIMIT_AS, memory_mb * 1024 * 1024)
    _lower_limit(resource.RLIMIT_FSIZE, 0)
    _lower_limit(resource.RLIMIT_NPROC, 0)
    _lower_limit(resource.RLIMIT_NOFILE, MAX_OPEN_FILES)
    _lower_limit(resource.RLIMIT_CORE, 0)


def _lower_limit(limit: int, soft: int, hard: int | None = None) -> None:
    hard = soft if hard is None else hard
    _, current_hard = resource.getrlimit(limit)
    if current_hard != resource.RLIM_INFINITY:
        hard = min(hard, current_hard)
    resource.setrlimit(limit, (min(soft, hard), hard))


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _run(request: dict[str, Any]) -> Report:
    guard = Guard()
    output = BoundedOutput(request["max_output_chars"], guard)
    try:
        answer, figures = _execute(request["code"], request["allowed_modules"], guard, output)
        report = _answer_report(answer, request["max_output_chars"])
        if report["ok"]:
            report["figures"] = figures
    except SyntaxError as exc:
        report = _error("syntax", f"SyntaxError: {exc.msg}", exc.lineno)
    except BaseException as exc:
        report = _exception_report(exc)
    if guard.first is not None:
        report = _exception_report(guard.first)
    report["stdout"] = output.getvalue()
    return report


def _execute(
    code: str, allowed: list[str], guard: Guard, output: BoundedOutput
) -> tuple[tuple[object, str] | None, list[float]]:
    """Run the program; its answer (None when there is nothing to pick) and the figures
    its top-level variables hold at the end."""
    tree = ast.parse(code, PROGRAM_FILENAME)
    views = _module_views(_imported_modules(tree, allowed))
    body, module_code, tail_code = _compile(tree)
    namespace: dict[str, Any] = {"__builtins__": _safe_builtins(Importer(views))}
    _seal(guard, output, tuple(c for c in (module_code, tail_code) if c is not None))
    guard.running = True
    try:
        exec(module_code, namespace)
        tail_value = eval(tail_code, namespace) if tail_code else None
    finally:
        guard.running = False
    return _pick_answer(namespace, tail_value, body), _figures(namespace)


def _figures(namespace: dict[str, Any]) -> list[float]:
    """The finite numbers (not booleans) the program's top-level variables hold, at most
    :data:`MAX_FIGURES` of them, in assignment order."""
    found = []
    for name, value in namespace.items():
        if name.startswith("_") or isinstance(value, bool) or not isinstance(value, int | float):
            continue
        try:
            number = float(value)
        except OverflowError:
            continue
        if math.isfinite(number):
            found.append(number)
    return found[:MAX_FIGURES]


def _compile(tree: ast.Module) -> tuple[list[ast.stmt], CodeType, CodeType | None]:
    """Compile the program, keeping a final expression apart so that its value can be read."""
    body, tail = tree.body, None
    if body and isinstance(last := body[-1], ast.Expr):
        body, tail = body[:-1], last.value
    module_code = compile(ast.Module(body=body, type_ignores=[]), PROGRAM_FILENAME, "exec")
    if tail is None:
        return body, module_code, None
    return body, module_code, compile(ast.Expression(body=tail), PROGRAM_FILENAME, "eval")


def _seal(guard: Guard, output: BoundedOutput, trusted: tuple[CodeType, ...]) -> None:
    """Capture prints, route the CPU-limit signal to the guard, refuse audited operations."""
    sys.stdout = output
    sys.unraisablehook = _ignore_unraisable
    signal.signal(signal.SIGXCPU, guard.on_cpu_limit)
    _lock_down(trusted, guard)


def _ignore_unraisable(unraisable: Any) -> None:
    """Drop errors raised in finalizers instead of printing them to the worker's stderr."""


def _imported_modules(tree: ast.Module, allowed: list[str]) -> list[str]:
    """The whitelisted modules the program imports, plus the helpers their C code needs."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    modules = [name for name in allowed if name in names]
    return modules + [helper for name in modules for helper in HELPER_MODULES.get(name, ())]


def _module_views(names: list[str]) -> dict[str, ModuleType]:
    """Import ``names`` now (no imports are allowed once the program runs) and build views."""
    views: dict[str, ModuleType] = {}
    for name in names:
        module = __import__(name)
        if not _is_helper(name):
            views[name] = _public_view(module)
    return views


def _public_view(module: ModuleType) -> ModuleType:
    """A copy of the module's public, self-defined attributes: no submodules, no re-exports."""
    view = ModuleType(module.__name__)
    origins = {module.__name__, f"_{module.__name__}"}
    for key, value in vars(module).items():
        own = getattr(value, "__module__", module.__name__) in origins
        if own and not key.startswith("_") and not isinstance(value, ModuleType):
            setattr(view, key, value)
    return view


def _safe_builtins(importer: Importer) -> dict[str, Any]:
    safe = {name: getattr(builtins, name) for name in SAFE_BUILTINS}
    safe["__import__"] = importer
    return safe


def _lock_down(trusted: tuple[CodeType, ...], guard: Guard) -> None:
    """From now on refuse every audited operation except running the program's own code.

    Audit hooks cannot be removed, so this lasts until the worker exits. Attribute reads
    of frames and code (``object.__getattr__``) stay allowed: the static check already
    forbids them in the program, and the worker needs them to locate the failing line.
    """

    def hook(event: str, args: tuple[Any, ...]) -> None:
        if event == "object.__getattr__":
            return
        if event == "exec" and any(args[0] is code for code in trusted):
            return
        raise guard.record(Blocked(f"`{event}` is not allowed in the sandbox"))

    sys.addaudithook(hook)


def _pick_answer(
    namespace: dict[str, Any], tail_value: object, body: list[ast.stmt]
) -> tuple[object, str] | None:
    """The answer and where it came from: `result`, else the last expression, else the
    variable of the last top-level simple assignment. A None expression (e.g. a final
    ``print(...)``) does not count."""
    if "result" in namespace:
        return namespace["result"], "result"
    if tail_value is not None:
        return tail_value, "last_expression"
    name = _last_assigned_name(body)
    if name is not None and name in namespace:
        return namespace[name], "last_assignment"
    return None


def _last_assigned_name(body: list[ast.stmt]) -> str | None:
    for statement in reversed(body):
        match statement:
            case (
                ast.Assign(targets=[ast.Name(id=name)])
                | ast.AnnAssign(target=ast.Name(id=name), value=ast.expr())
                | ast.AugAssign(target=ast.Name(id=name))
            ):
                return name
    return None


def _answer_report(answer: tuple[object, str] | None, max_chars: int) -> Report:
    if answer is None:
        message = "the program did not assign `result` and has no final expression or assignment"
        return _error("no_result", message)
    value, source = answer
    try:
        clean = _clean_answer(value)
    except BadResult as exc:
        return _error("bad_result", f"{SOURCE_NAMES[source]} {exc}")
    size = len(json.dumps(clean))
    if size > max_chars:
        message = f"{SOURCE_NAMES[source]} is too large ({size} characters; limit {max_chars})"
        return _error("bad_result", message)
    return {"ok": True, "value": clean, "result_source": source}


def _clean_answer(value: object) -> object:
    """The JSON-ready answer; raises BadResult for anything but a scalar or a flat dict."""
    if not isinstance(value, dict):
        return _clean_scalar(value)
    if not value:
        raise BadResult("is an empty dict")
    return {_clean_key(key): _clean_item(key, item) for key, item in value.items()}


def _clean_key(key: object) -> str:
    if isinstance(key, bool) or not isinstance(key, str | int):
        raise BadResult(f"has a dict key that is {_describe(key)}; keys must be strings")
    return str(_clean_scalar(key))


def _clean_item(key: object, item: object) -> int | float | str | bool:
    try:
        return _clean_scalar(item)
    except BadResult as exc:
        raise BadResult(f"has a value for key {key!r} that {exc}") from exc


def _clean_scalar(value: object) -> int | float | str | bool:
    if (type(value).__module__, type(value).__name__) in FLOAT_CONVERTIBLE:
        value = _to_float(value)
    if isinstance(value, bool | str):
        return value
    if isinstance(value, int):
        if value.bit_length() > MAX_INT_BITS:
            raise BadResult(f"is an integer of {value.bit_length()} bits, too large for an answer")
        return int(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise BadResult(f"is {value}, not a finite number")
        return float(value)
    raise BadResult(f"is {_describe(value)}")


def _to_float(value: Any) -> float:
    try:
        return float(value)
    except (ValueError, OverflowError) as exc:
        raise BadResult(f"is a {type(value).__name__} that is not a finite float") from exc


def _describe(value: object) -> str:
    if value is None:
        return "None"
    if isinstance(value, list | tuple | set | frozenset):
        kind = type(value).__name__
        return f"a {kind} of {len(value)} items; return one number, or a dict naming each number"
    return f"a {type(value).__name__}"


def _exception_report(exc: BaseException) -> Report:
    line = _program_line(exc.__traceback__)
    if isinstance(exc, Interruption):
        return _error(exc.kind, str(exc), line)
    if isinstance(exc, MemoryError):
        return _error("memory", "MemoryError: the program exceeded its memory limit", line)
    return _error("runtime", _exception_message(exc), line)


def _exception_message(exc: BaseException) -> str:
    try:
        detail = str(exc)
    except Exception:
        detail = ""
    name = type(exc).__name__
    return f"{name}: {detail}" if detail else name


def _program_line(traceback: TracebackType | None) -> int | None:
    """The line of the innermost traceback entry that lies in the program."""
    line = None
    for entry in _entries(traceback):
        if entry.tb_frame.f_code.co_filename == PROGRAM_FILENAME:
            line = entry.tb_lineno
    return line


def _entries(traceback: TracebackType | None) -> Iterator[TracebackType]:
    while traceback is not None:
        yield traceback
        traceback = traceback.tb_next


def _error(kind: str, message: str, line: int | None = None) -> Report:
    error = {"kind": kind, "message": message[:MAX_MESSAGE_CHARS], "line": line}
    return {"ok": False, "error": error}


if __name__ == "__main__":
    main()
