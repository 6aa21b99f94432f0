"""The hosted backbones' retry policy, over a fake engine: what is retried, how long each
wait is (Retry-After honoured, bounded), and what fails at once."""

from __future__ import annotations

import dspy
import pytest
from dspy.utils.exceptions import (
    ContextWindowExceededError,
    LMRateLimitError,
    LMTimeoutError,
)

from filingqa.lm.backbone import RetryingLM, RetryPolicy, get_lm
from filingqa.program.financial_qa import FinancialQA

from ..kit.lm import FakeEngine, Injection, by_marker
from ..kit.passages import CASH_FLOW, FCF
from ..kit.replies import AMBIGUITY, NO_AMBIGUITY, WRITE, fenced

ANSWER = "Answer the question."


class Question(dspy.Signature):
    """Answer the question."""

    question: str = dspy.InputField()
    answer: str = dspy.OutputField()


def retrying(injections: list[Injection], policy: RetryPolicy) -> tuple[RetryingLM, list[float]]:
    waits: list[float] = []
    engine = FakeEngine(by_marker([(ANSWER, {"answer": "ok"})]), injections)
    lm = RetryingLM("fake/test", engine=engine, policy=policy, sleep=waits.append, cache=False)
    return lm, waits


def ask(lm: dspy.LM) -> str:
    with dspy.context(lm=lm, adapter=dspy.JSONAdapter()):
        return dspy.Predict(Question)(question="q").answer


def test_rate_limits_wait_the_retry_after_the_provider_sends() -> None:
    lm, waits = retrying(
        [Injection(ANSWER, "rate_limit", times=2, retry_after=7)], RetryPolicy(retries=3)
    )
    assert ask(lm) == "ok"
    assert waits == [7.0, 7.0]


def test_without_retry_after_the_backoff_doubles_up_to_the_cap() -> None:
    policy = RetryPolicy(retries=5, base_seconds=1, max_wait_seconds=6)
    lm, waits = retrying([Injection(ANSWER, "timeout", times=5)], policy)
    assert ask(lm) == "ok"
    assert waits == [1.0, 2.0, 4.0, 6.0, 6.0]


@pytest.mark.parametrize("fault", ["connection", "server_error"])
def test_connection_and_server_errors_are_retried(fault) -> None:
    lm, waits = retrying([Injection(ANSWER, fault, times=1)], RetryPolicy(retries=1))
    assert ask(lm) == "ok"
    assert waits == [1.0]


def test_a_retry_after_beyond_the_cap_fails_at_once() -> None:
    lm, waits = retrying(
        [Injection(ANSWER, "rate_limit", retry_after=3600)], RetryPolicy(max_wait_seconds=30)
    )
    with pytest.raises(LMRateLimitError):
        ask(lm)
    assert waits == []


def test_retries_run_out() -> None:
    lm, waits = retrying([Injection(ANSWER, "timeout")], RetryPolicy(retries=2))
    with pytest.raises(LMTimeoutError):
        ask(lm)
    assert waits == [1.0, 2.0]
    assert lm.engine.injected == ["timeout"] * 3


def test_context_overflow_is_never_retried() -> None:
    lm, waits = retrying([Injection(ANSWER, "context_overflow")], RetryPolicy())
    with pytest.raises(ContextWindowExceededError):
        ask(lm)
    assert waits == []


def test_hosted_backbones_get_the_policy_and_a_request_timeout(isolated_home) -> None:
    lm = get_lm("openai/my-model", retry=RetryPolicy(retries=5, timeout_seconds=42))
    assert isinstance(lm, RetryingLM)
    assert lm.num_retries == 0  # DSPy's own loop is off: the policy is the only one
    assert lm.policy.retries == 5
    assert lm.kwargs["timeout"] == 42


def test_the_program_answers_through_a_retried_rate_limit() -> None:
    waits: list[float] = []
    engine = FakeEngine(
        by_marker([(AMBIGUITY, NO_AMBIGUITY), (WRITE, fenced("result = 812.4 - 412.6"))]),
        [Injection(WRITE, "rate_limit", times=1, retry_after=2)],
    )
    lm = RetryingLM(
        "fake/test", engine=engine, policy=RetryPolicy(), sleep=waits.append, cache=False
    )
    with dspy.context(lm=lm, adapter=dspy.JSONAdapter()):
        final = FinancialQA()(question=FCF, passages=[CASH_FLOW]).final
    assert final.outcome == "answered"
    assert waits == [2.0]
    assert final.trace.faults == []
