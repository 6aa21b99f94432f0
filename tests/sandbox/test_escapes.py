"""Escape attempts: every one must end as a contained failure of the expected kind.

The first group goes through ``run_python`` (all layers). The second calls the worker
directly, skipping the static check, to show that the restricted builtins, module views,
audit hook and OS limits hold on their own.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from filingqa.sandbox import ExecutionResult, SandboxLimits, run_python
from filingqa.sandbox.executor import run_worker

QUICK = SandboxLimits(cpu_seconds=1, wall_seconds=5)


def assert_contained(result: ExecutionResult, *kinds: str) -> None:
    assert result.ok is False
    assert result.value is None
    assert result.error is not None
    assert result.error.kind in kinds, result.feedback()


# --- static check: forbidden before running -----------------------------------------------

FORBIDDEN_PROGRAMS: dict[str, str] = {
    "import os": "import os\nresult = os.getcwd()",
    "import sys": "import sys\nresult = len(sys.modules)",
    "import subprocess": "import subprocess\nsubprocess.run(['true'])",
    "from os import system": "from os import system\nsystem('true')",
    "import socket": "import socket\nsocket.create_connection(('example.com', 80))",
    "import ctypes": "import ctypes\nctypes.CDLL(None)",
    "import importlib": "import importlib\nimportlib.import_module('os')",
    "import io": "import io\nresult = io.open('/etc/passwd').read()",
    "__import__": "result = __import__('os').getcwd()",
    "__builtins__ item": "result = __builtins__['__import__']('os')",
    "__builtins__ dict": "result = __builtins__.__dict__",
    "subclasses walk": "result = ().__class__.__mro__[1].__subclasses__()",
    "function globals": "result = (lambda: 0).__globals__",
    "getattr dunder": "result = getattr(1, '__class__')",
    "getattr built name": "name = '__cl' + 'ass__'\nresult = getattr(1, name)",
    "setattr": "import math\nsetattr(math, 'pi', 3)",
    "exec": "exec('import os')",
    "eval": "result = eval('1 + 1')",
    "compile": "result = compile('1', 'x', 'eval')",
    "open": "result = open('/etc/passwd').read()",
    "breakpoint": "breakpoint()",
    "input": "result = input()",
    "globals": "result = globals()",
    "locals": "result = locals()",
    "vars": "result = vars()",
    "type three-arg": "Evil = type('Evil', (), {})\nresult = 1",
    "class statement": "class Evil:\n    pass\nresult = 1",
    "module loader": "import math\nresult = math.__loader__",
    "module sys attribute": "import datetime\nresult = datetime.sys",
    "sys.modules via statistics": "import statistics\nresult = statistics.sys.modules['os']",
    "format attribute field": "result = '{0.__class__}'.format(1)",
    "format on a built template": "t = '{0.' + '__class__}'\nresult = t.format(1)",
    "generator frame": "g = (i for i in [1])\nresult = g.gi_frame.f_back.f_globals",
    "traceback frame": (
        "try:\n    1 / 0\nexcept ZeroDivisionError as e:\n    result = e.__traceback__.tb_frame"
    ),
    "match class attribute": "match 1:\n    case int(__class__=c):\n        result = c",
}


@pytest.mark.parametrize("code", FORBIDDEN_PROGRAMS.values(), ids=FORBIDDEN_PROGRAMS.keys())
def test_forbidden_before_running(code: str) -> None:
    result = run_python(code)
    assert_contained(result, "forbidden")
    assert result.error is not None
    assert result.error.line is not None
    assert result.elapsed_s < 1  # rejected without starting a worker


def test_os_system_and_fork_are_unreachable(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    for code in (f"import os\nos.system('touch {marker}')", "import os\nresult = os.fork()"):
        assert_contained(run_python(code), "forbidden")
    assert not marker.exists()


def test_writing_a_file_is_refused(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    result = run_python(f"with open({str(target)!r}, 'w') as f:\n    f.write('x')")
    assert_contained(result, "forbidden")
    assert not target.exists()


# --- resource limits ----------------------------------------------------------------------


def test_infinite_loop_hits_the_cpu_limit() -> None:
    result = run_python("x = 0\nwhile True:\n    x += 1", QUICK)
    assert_contained(result, "timeout")
    assert result.error is not None
    assert result.error.line in (2, 3)
    assert result.elapsed_s < 4


def test_wall_clock_limit_kills_the_worker() -> None:
    result = run_python("while True:\n    pass", SandboxLimits(cpu_seconds=30, wall_seconds=1))
    assert_contained(result, "timeout")
    assert result.error is not None
    assert "wall-clock" in result.error.message
    assert result.elapsed_s < 3


def test_cpu_burn_in_a_generator() -> None:
    assert_contained(run_python("result = sum(i * i for i in range(10**10))", QUICK), "timeout")


def test_swallowing_the_cpu_interruption_does_not_help() -> None:
    code = "while True:\n    try:\n        while True:\n            pass\n    except:\n        pass"
    result = run_python(code, QUICK)
    assert_contained(result, "timeout")
    assert result.elapsed_s < 5


def test_huge_power_is_contained() -> None:
    assert_contained(run_python("result = 10**10**8", QUICK), "timeout", "memory")


@pytest.mark.parametrize("code", ["s = 'x' * 10**10", "big = [0] * 10**9"])
def test_memory_bombs(code: str) -> None:
    assert_contained(run_python(code, QUICK), "memory")


def test_gradual_memory_growth() -> None:
    code = "chunks = []\nwhile True:\n    chunks.append('x' * 10**6)"
    assert_contained(run_python(code, SandboxLimits(cpu_seconds=5, memory_mb=64)), "memory")


def test_huge_print_is_cut_off() -> None:
    result = run_python("print('x' * 10**6)\nresult = 1")
    assert_contained(result, "output_limit")
    assert len(result.stdout) == SandboxLimits().max_output_chars


def test_endless_printing_is_cut_off_while_writing() -> None:
    result = run_python("while True:\n    print('spam')", SandboxLimits(max_output_chars=100))
    assert_contained(result, "output_limit")
    assert len(result.stdout) == 100


def test_swallowing_the_output_limit_does_not_help() -> None:
    code = "try:\n    print('x' * 10**6)\nexcept:\n    pass\nresult = 1"
    assert_contained(run_python(code), "output_limit")


def test_deep_recursion_is_a_runtime_error() -> None:
    result = run_python("def f(n):\n    return f(n + 1)\n\nresult = f(0)")
    assert_contained(result, "runtime")
    assert result.error is not None
    assert "RecursionError" in result.error.message
    assert result.error.line == 2


# --- deeper layers, with the static check skipped -----------------------------------------


def unchecked(code: str) -> ExecutionResult:
    report = run_worker(code, QUICK)
    return ExecutionResult(**report.model_dump())


@pytest.mark.parametrize(
    ("code", "fragment"),
    [
        ("result = open('/etc/passwd').read()", "NameError"),
        ("result = getattr(1, 'real')", "NameError"),
        ("result = __import__('os')", "ImportError"),
        ("import socket", "ImportError"),
        ("import statistics\nresult = statistics.sys", "AttributeError"),
        ("import datetime\nresult = datetime.sys.modules", "AttributeError"),
        ("import statistics\nresult = statistics.namedtuple", "AttributeError"),
        ("class A:\n    pass", "NameError"),  # no __build_class__
    ],
)
def test_restricted_builtins_and_module_views(code: str, fragment: str) -> None:
    result = unchecked(code)
    assert_contained(result, "runtime")
    assert result.error is not None
    assert fragment in result.error.message


def test_audit_hook_stops_the_subclass_walk(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    code = (
        "wrap = [c for c in ().__class__.__base__.__subclasses__()"
        " if c.__name__ == '_wrap_close'][0]\n"
        f"wrap.__init__.__globals__['system']('touch {marker}')"
    )
    assert_contained(unchecked(code), "forbidden")
    assert not marker.exists()


def test_audit_hook_stops_file_writes_through_real_builtins(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    assert_contained(unchecked(f"print.__self__.open({str(target)!r}, 'w')"), "forbidden")
    assert not target.exists()


@pytest.mark.parametrize(
    "code",
    [
        "print.__self__.__import__('os').fork()",
        "print.__self__.__import__('os').listdir('/')",
        "print.__self__.__import__('subprocess')",
        "print.__self__.__import__('ctypes')",
        "print.__self__.exec('x = 1')",
        "try:\n    print.__self__.open('/etc/passwd')\nexcept:\n    pass\nresult = 1",
    ],
)
def test_audit_hook_refuses_side_effects(code: str) -> None:
    assert_contained(unchecked(code), "forbidden")
