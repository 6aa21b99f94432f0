"""The static check alone: fast, no worker process."""

from __future__ import annotations

import pytest

from filingqa.sandbox import SandboxLimits
from filingqa.sandbox.policy import check_program

LIMITS = SandboxLimits()


@pytest.mark.parametrize(
    "code",
    [
        "result = 1 + 1",
        "import math\nresult = math.floor(2.5)",
        "from statistics import mean as m\nresult = m([1, 2])",
        "from math import *\nresult = pi",
        "result = '{:,.2f}'.format(1234.5)",
        "result = '{0} of {name}'.format(1, name='x')",
        "result = f'{1.5:.1%}'",
        "result = format(0.25, '.0%')",
        "_tmp = 3\nresult = _tmp",
        "def pct(a, b):\n    return a / b * 100\nresult = pct(1, 4)",
        "result = {'a': 1}['a']",
    ],
)
def test_plain_arithmetic_passes(code: str) -> None:
    assert check_program(code, LIMITS) is None


@pytest.mark.parametrize(
    ("code", "fragment"),
    [
        ("import os", "`os`"),
        ("import math, os", "`os`"),
        ("import math.fake", "`math.fake`"),
        ("from .math import sqrt", "`.math`"),
        ("x = 1\ny = x.__class__", "`.__class__`"),
        ("y = (1).real.__class__", "`.__class__`"),
        ("g = (i for i in [1])\nf = g.gi_frame", "`.gi_frame`"),
        ("def f():\n    pass\nc = f.func_globals", "`.func_globals`"),
        ("import statistics\nm = statistics.sys", "`.sys`"),
        ("x = __builtins__", "`__builtins__`"),
        ("import math as __builtins__", "`__builtins__`"),
        ("def __import__(n):\n    return n", "`__import__`"),
        ("try:\n    pass\nexcept Exception as __e:\n    pass", "`__e`"),
        ("x = getattr(1, 'real')", "`getattr`"),
        ("t = type", "`type`"),
        ("class A:\n    pass", "class definitions"),
        ("s = 'x'\ny = s.format(1)", "`.format`"),
        ("y = '{0.real}'.format(1)", "`.format`"),
        ("y = '{:{0.__class__}}'.format(1)", "`.format`"),
        ("y = str.format('{}', 1)", "`.format`"),
        ("match 1:\n    case int(__class__=c):\n        pass", "`.__class__`"),
    ],
)
def test_forbidden_constructs_are_named(code: str, fragment: str) -> None:
    error = check_program(code, LIMITS)
    assert error is not None
    assert error.kind == "forbidden"
    assert fragment in error.message


def test_the_earliest_violation_is_reported() -> None:
    error = check_program("x = 1\nimport os\ny = x.__class__", LIMITS)
    assert error is not None
    assert (error.line, "`os`" in error.message) == (2, True)


def test_syntax_errors_carry_their_line() -> None:
    error = check_program("x = 1\ny = (2 +\n", LIMITS)
    assert error is not None
    assert error.kind == "syntax"
    assert error.line == 2


def test_null_bytes_are_a_syntax_error() -> None:
    error = check_program("x = 1\x00", LIMITS)
    assert error is not None
    assert error.kind == "syntax"


def test_overlong_code_is_rejected_before_parsing() -> None:
    error = check_program("x = 1\n" * 10, SandboxLimits(max_code_chars=20))
    assert error is not None
    assert error.kind == "code_too_long"
    assert "60" in error.message
