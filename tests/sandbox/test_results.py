"""What run_python returns for well-behaved and failing (but harmless) programs."""

from __future__ import annotations

import statistics
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from pydantic import ValidationError

from filingqa.sandbox import ExecutionResult, SandboxError, SandboxLimits, run_python


def answer(code: str) -> ExecutionResult:
    result = run_python(code)
    assert result.ok, result.feedback()
    assert result.error is None
    return result


# --- answers -------------------------------------------------------------------------------


def test_number_result() -> None:
    result = answer("revenue = 1200.0\ncost = 900.0\nresult = revenue - cost")
    assert result.value == 300.0
    assert result.result_source == "result"


def test_percentage_result() -> None:
    result = answer("old = 80\nnew = 100\nresult = round((new - old) / old * 100, 2)")
    assert result.value == 25.0


def test_integer_stays_an_integer() -> None:
    result = answer("result = 7 * 6")
    assert result.value == 42
    assert type(result.value) is int


def test_dict_result_with_year_keys() -> None:
    result = answer("result = {2022: 1.5, '2023': 2, 'ok': True, 'unit': 'USD'}")
    assert result.value == {"2022": 1.5, "2023": 2, "ok": True, "unit": "USD"}


def test_the_figures_of_top_level_variables_come_with_the_answer() -> None:
    result = answer("a = 3\nb = 4.5\nflag = True\n_hidden = 9\nbig = 10**400\nresult = a * b > 1")
    assert result.value is True
    assert result.figures == [3.0, 4.5]


def test_string_and_bool_results() -> None:
    assert answer("result = 'increase'").value == "increase"
    boolean = answer("result = 3 > 2").value
    assert boolean is True


def test_decimal_and_fraction_become_floats() -> None:
    decimal = answer("from decimal import Decimal\nresult = Decimal('1.10') * 3")
    fraction = answer("from fractions import Fraction\nresult = Fraction(1, 4)")
    assert (decimal.value, fraction.value) == (3.3, 0.25)
    assert type(decimal.value) is float


def test_decimals_inside_a_dict_are_converted() -> None:
    result = answer("from decimal import Decimal\nresult = {'a': Decimal('0.5')}")
    assert result.value == {"a": 0.5}


def test_allowed_imports_work() -> None:
    assert answer("import math\nresult = math.sqrt(16)").value == 4.0
    assert answer("from statistics import mean\nresult = mean([1, 2, 3])").value == 2
    days = "from datetime import date\nresult = (date(2024, 3, 1) - date(2024, 2, 1)).days"
    assert answer(days).value == 29


def test_library_helpers_work_inside_the_sandbox() -> None:
    code = """
import statistics
from datetime import datetime
from decimal import Decimal, ROUND_HALF_UP
parsed = datetime.strptime("2023-12-31", "%Y-%m-%d")
result = {
    "mode": statistics.mode([1, 1, 2]),
    "stdev": statistics.stdev([1.0, 2.0, 4.0]),
    "month": parsed.strftime("%B"),
    "rounded": Decimal("2.675").quantize(Decimal("0.01"), rounding=ROUND_HALF_UP),
    "text": "{:,.2f}".format(1234.5),
}
"""
    value = answer(code).value
    assert value == {
        "mode": 1,
        "stdev": pytest.approx(statistics.stdev([1.0, 2.0, 4.0])),
        "month": "December",
        "rounded": 2.68,
        "text": "1,234.50",
    }


def test_prints_are_captured() -> None:
    result = answer("print('step', 1)\nprint(2)\nresult = 3")
    assert result.stdout == "step 1\n2\n"


# --- fallbacks when `result` is missing ---------------------------------------------------


def test_last_expression_fallback() -> None:
    result = answer("a = 10\nb = 4\na / b")
    assert (result.value, result.result_source) == (2.5, "last_expression")


def test_last_assignment_fallback() -> None:
    result = answer("a = 10\nanswer = a * 3\nprint(answer)")
    assert (result.value, result.result_source) == (30, "last_assignment")


def test_annotated_and_augmented_assignments_count() -> None:
    assert answer("x: float = 2.5").value == 2.5
    assert answer("total = 1\ntotal += 4").value == 5


def test_result_wins_over_fallbacks() -> None:
    result = answer("result = 1\nother = 2\nother + 1")
    assert (result.value, result.result_source) == (1, "result")


def test_no_result_when_nothing_to_fall_back_on() -> None:
    result = run_python("def f():\n    return 1\nprint(f())")
    assert not result.ok
    assert result.error is not None
    assert result.error.kind == "no_result"
    assert "`result`" in result.feedback()


# --- bad answers --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "fragment"),
    [
        ("result = [1.0, 2.0, 3.0]", "list of 3 items"),
        ("result = None", "None"),
        ("result = float('nan')", "not a finite number"),
        ("result = float('inf')", "not a finite number"),
        ("from decimal import Decimal\nresult = Decimal('NaN')", "not a finite number"),
        ("result = lambda: 1", "function"),
        ("result = {'a': [1]}", "key 'a'"),
        ("result = {'a': {'b': 1}}", "key 'a'"),
        ("result = {(1, 2): 3}", "keys must be strings"),
        ("result = {}", "empty dict"),
        ("result = 2 ** 200", "too large"),
        ("result = 'x' * 20000", "too large"),
        ("x = 1\n[x, x]", "last expression"),
    ],
)
def test_bad_results(code: str, fragment: str) -> None:
    result = run_python(code)
    assert not result.ok
    assert result.error is not None
    assert result.error.kind == "bad_result"
    assert fragment in result.error.message


# --- errors and feedback ------------------------------------------------------------------


def test_zero_division_points_at_its_line() -> None:
    result = run_python("a = 5\nb = 0\nc = a / b\nresult = c")
    assert result.error is not None
    assert (result.error.kind, result.error.line) == ("runtime", 3)
    assert result.error.line_text == "c = a / b"
    feedback = result.feedback()
    assert "ZeroDivisionError" in feedback
    assert "line 3" in feedback
    assert "c = a / b" in feedback


def test_name_error_feedback_names_the_variable() -> None:
    result = run_python("net_income = 5\nresult = net_incme / 2")
    assert result.error is not None
    assert (result.error.kind, result.error.line) == ("runtime", 2)
    assert "net_incme" in result.feedback()
    assert "Add a line `net_incme = <number copied from the evidence>`" in result.feedback()


def test_error_inside_a_function_reports_the_innermost_program_line() -> None:
    code = "def ratio(a, b):\n    return a / b\n\nresult = ratio(1, 0)"
    result = run_python(code)
    assert result.error is not None
    assert result.error.line == 2


def test_error_inside_a_library_reports_the_calling_line() -> None:
    result = run_python("import statistics\nx = 1\nresult = statistics.mean([])")
    assert result.error is not None
    assert (result.error.kind, result.error.line) == ("runtime", 3)
    assert "StatisticsError" in result.error.message


def test_syntax_error_feedback() -> None:
    result = run_python("```python\nresult = 1\n```")
    assert result.error is not None
    assert (result.error.kind, result.error.line) == ("syntax", 1)
    assert "markdown" in result.feedback()


def test_syntax_error_found_by_the_compiler() -> None:
    result = run_python("x = 1\nreturn x")
    assert result.error is not None
    assert (result.error.kind, result.error.line) == ("syntax", 2)


def test_code_too_long() -> None:
    result = run_python("x = 1\n" * 100, SandboxLimits(max_code_chars=100))
    assert result.error is not None
    assert result.error.kind == "code_too_long"


def test_prints_before_an_error_are_kept() -> None:
    result = run_python("print('before')\nresult = 1 / 0")
    assert result.stdout == "before\n"


def test_success_feedback_mentions_the_value() -> None:
    assert "42" in answer("result = 42").feedback()


# --- limits model, concurrency, speed -----------------------------------------------------


def test_limits_are_frozen_and_validated() -> None:
    limits = SandboxLimits()
    assert (limits.cpu_seconds, limits.wall_seconds, limits.memory_mb) == (5.0, 10.0, 256)
    assert (limits.max_output_chars, limits.max_code_chars) == (10_000, 20_000)
    with pytest.raises(ValidationError):
        limits.cpu_seconds = 1  # type: ignore[misc]
    with pytest.raises(ValidationError):
        SandboxLimits(wall_seconds=0)


def test_concurrent_runs_do_not_mix() -> None:
    codes = [f"print({n})\nresult = {n} * 2" for n in range(16)]
    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(run_python, codes))
    assert [r.value for r in results] == [n * 2 for n in range(16)]
    assert [r.stdout for r in results] == [f"{n}\n" for n in range(16)]


def test_trivial_run_is_fast() -> None:
    run_python("result = 1")  # warm the file cache
    started = time.perf_counter()
    for _ in range(10):
        run_python("result = 1")
    assert (time.perf_counter() - started) / 10 < 0.15


def test_undefined_variable_hint_asks_for_the_number() -> None:
    outcome = run_python("result = capex_2024 - capex_2023")
    assert outcome.error is not None
    assert outcome.error.hint() == (
        "Add a line `capex_2024 = <number copied from the evidence>` first."
    )


def test_missing_builtin_hint_does_not_suggest_assigning_it() -> None:
    error = SandboxError(kind="runtime", message="NameError: name 'open' is not defined")
    assert "open =" not in error.hint()
    assert error.hint().startswith("Define every variable")
