"""Static check of a program before it runs: syntax, imports, names and attributes.

This is the first of the sandbox's layers: it rejects every route to introspection
(double-underscore names, frame and code attributes, getattr/exec/...) so the restricted
builtins and the audit hook in the worker never have to stand alone.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from filingqa.sandbox.limits import ALLOWED_MODULES, SandboxLimits
from filingqa.sandbox.outcome import SandboxError

FORBIDDEN_NAMES: frozenset[str] = frozenset(
    {
        "breakpoint", "classmethod", "compile", "copyright", "credits", "delattr", "dir",
        "eval", "exec", "exit", "getattr", "globals", "hasattr", "help", "input", "license",
        "locals", "memoryview", "object", "open", "property", "quit", "setattr",
        "staticmethod", "super", "type", "vars",
    }
)  # fmt: skip
FORBIDDEN_ATTRIBUTES: frozenset[str] = frozenset(
    {"builtins", "exec_module", "load_module", "loader", "modules", "mro", "os", "sys"}
)
# Frame, code, traceback, generator and coroutine internals lead back to real globals.
FORBIDDEN_ATTRIBUTE_PREFIXES: tuple[str, ...] = (
    "_",
    "ag_",
    "co_",
    "cr_",
    "f_",
    "func_",
    "gi_",
    "tb_",
)
FORMAT_METHODS: frozenset[str] = frozenset({"format", "format_map"})
# A replacement field whose name walks an attribute, e.g. "{0.__class__}" or "{x.real}".
_ATTRIBUTE_FIELD = re.compile(r"\{[^{}!:]*\.")


def check_program(code: str, limits: SandboxLimits) -> SandboxError | None:
    """The reason ``code`` may not run (length, syntax or a forbidden construct), else None."""
    if len(code) > limits.max_code_chars:
        message = f"the program has {len(code)} characters; the limit is {limits.max_code_chars}"
        return SandboxError(kind="code_too_long", message=message)
    try:
        tree = ast.parse(code)
    except SyntaxError as exc:
        return SandboxError(kind="syntax", message=f"SyntaxError: {exc.msg}", line=exc.lineno)
    except (ValueError, RecursionError, MemoryError) as exc:
        return SandboxError(kind="syntax", message=f"{type(exc).__name__}: {exc}")
    violations = sorted(_violations(tree))
    if not violations:
        return None
    line, message = violations[0]
    return SandboxError(kind="forbidden", message=message, line=line)


def _violations(tree: ast.Module) -> Iterator[tuple[int, str]]:
    """(line, reason) for every forbidden construct in the tree."""
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 1)
        for reason in _node_violations(node):
            yield line, reason


def _node_violations(node: ast.AST) -> Iterator[str]:
    match node:
        case ast.Import(names=aliases):
            for alias in aliases:
                if alias.name not in ALLOWED_MODULES:
                    yield _import_message(alias.name)
        case ast.ImportFrom(module=module, level=level):
            if level or module not in ALLOWED_MODULES:
                yield _import_message("." * level + (module or ""))
        case ast.Attribute(attr=attr, value=owner):
            yield from _attribute_violations(attr, owner)
        case ast.MatchClass(kwd_attrs=attrs):
            for attr in attrs:
                yield from _attribute_violations(attr, node)
        case ast.ClassDef():
            yield "class definitions are not allowed; use functions and dicts"
    for name in _identifiers(node):
        if name.startswith("__") or name in FORBIDDEN_NAMES:
            yield f"the name `{name}` is not allowed"


def _import_message(module: str) -> str:
    return f"import of `{module}` is not allowed (allowed: {', '.join(ALLOWED_MODULES)})"


def _attribute_violations(attr: str, owner: ast.AST) -> Iterator[str]:
    if attr.startswith(FORBIDDEN_ATTRIBUTE_PREFIXES) or attr in FORBIDDEN_ATTRIBUTES:
        yield f"access to the attribute `.{attr}` is not allowed"
    elif attr in FORMAT_METHODS and not _is_plain_template(owner):
        yield f"`.{attr}` only works on a literal template with plain fields; use an f-string"


def _is_plain_template(node: ast.AST) -> bool:
    """Whether ``node`` is a string literal whose replacement fields read no attributes."""
    return (
        isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and not _ATTRIBUTE_FIELD.search(node.value)
    )


def _identifiers(node: ast.AST) -> Iterator[str]:
    """Every name the node reads or binds."""
    match node:
        case ast.Name(id=name):
            yield name
        case ast.FunctionDef(name=name) | ast.AsyncFunctionDef(name=name):
            yield name
        case ast.alias(name=name, asname=asname):
            yield name
            if asname:
                yield asname
        case ast.arg(arg=name):
            yield name
        case ast.ExceptHandler(name=str() as name):
            yield name
        case ast.Global(names=names) | ast.Nonlocal(names=names):
            yield from names
        case ast.MatchAs(name=str() as name) | ast.MatchStar(name=str() as name):
            yield name
        case ast.MatchMapping(rest=str() as name):
            yield name
