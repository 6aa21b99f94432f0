"""Turning a step's exception into a named fault on the trace."""

from __future__ import annotations

import pytest

from filingqa.lm.faults import Fault, attempt, classify
from filingqa.lm.trace import Trace


def test_attempt_turns_any_exception_into_a_fault_on_the_trace() -> None:
    trace = Trace()

    def broken() -> int:
        raise RuntimeError("disk full")

    result = attempt(trace, "curate", broken)
    assert isinstance(result, Fault)
    assert (result.kind, trace.steps[0].fault) == ("step_error", "step_error")
    assert "disk full" in trace.steps[0].note


@pytest.mark.parametrize(
    ("problem", "kind"),
    [
        (ValueError("Requested tokens (9000) exceed context window of 8192"), "context_overflow"),
        (TimeoutError("read timed out"), "timeout"),
        (ConnectionResetError("reset"), "connection"),
        (KeyError("x"), "step_error"),
    ],
)
def test_classify_reads_plain_python_errors(problem: Exception, kind: str) -> None:
    assert classify(problem) == kind
