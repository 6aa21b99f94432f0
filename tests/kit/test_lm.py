"""The fake engine itself: replies in order or by marker, what it records, injected faults."""

from __future__ import annotations

import pytest
from dspy import lm15
from dspy.lm15 import Message, Request

from .lm import FakeEngine, Injection, by_marker, in_order


def request(text: str, system: str = "") -> Request:
    return Request(model="fake/test", messages=(Message.user(text),), system=system or None)


def test_replies_in_order_until_they_run_out() -> None:
    engine = FakeEngine(in_order(["first", "second"]))
    assert [engine.complete(request("q")).text for _ in range(2)] == ["first", "second"]
    with pytest.raises(AssertionError, match="ran out of replies"):
        engine.complete(request("q"))


def test_the_first_rule_whose_marker_the_prompt_holds_answers() -> None:
    engine = FakeEngine(
        by_marker(
            [
                ("Check", {"verdict": "ACCEPT"}),
                ("Write", lambda prompt: prompt.strip().upper()),
                ("", "anything else"),
            ]
        )
    )
    assert engine.complete(request("Write it", system="Check it")).text == '{"verdict": "ACCEPT"}'
    assert engine.complete(request("Write it")).text == "WRITE IT"
    assert engine.complete(request("Read it")).text == "anything else"


def test_a_prompt_no_rule_matches_fails_the_test() -> None:
    with pytest.raises(AssertionError, match="no rule for prompt"):
        FakeEngine(by_marker([("Write", "x")])).complete(request("Read it"))


def test_every_request_and_its_prompt_are_recorded() -> None:
    engine = FakeEngine(in_order(["a", "b"]))
    sent = [request("Write one", system="You compute."), request("Write two")]
    for each in sent:
        engine.complete(each)
    assert engine.requests == sent
    assert engine.prompts == ["You compute.\nWrite one", "\nWrite two"]
    assert (engine.calls, engine.count("Write"), engine.count("compute")) == (2, 2, 1)


def test_a_fault_hits_the_first_times_matching_prompts_then_the_rule_answers() -> None:
    fault = Injection("Write", "rate_limit", times=2, retry_after=3)
    engine = FakeEngine(by_marker([("", "ok")]), [fault])
    for _ in range(2):
        with pytest.raises(lm15.RateLimitError) as raised:
            engine.complete(request("Write it"))
        assert raised.value.retry_after == 3
    assert engine.complete(request("Write it")).text == "ok"
    assert engine.complete(request("Read it")).text == "ok"
    assert engine.injected == ["rate_limit", "rate_limit"]


def test_a_context_overflow_stops_once_the_prompt_fits() -> None:
    fault = Injection("Write", "context_overflow", context_chars=20)
    engine = FakeEngine(by_marker([("", "ok")]), [fault])
    with pytest.raises(lm15.ContextLengthError):
        engine.complete(request("Write " + "x" * 20))
    assert engine.complete(request("Write it")).text == "ok"


@pytest.mark.parametrize(
    ("fault", "text", "finish"),
    [
        ("empty_output", "", "stop"),
        ("truncated_output", "0123", "length"),
        ("unparseable", "<html><body>Bad gateway</body></html>", "stop"),
        ("refusal", "I'm sorry, but I can't help with that request.", "stop"),
    ],
)
def test_broken_replies_stand_in_for_the_rule_reply(fault, text: str, finish: str) -> None:
    engine = FakeEngine(by_marker([("", "01234567")]), [Injection("", fault)])
    response = engine.complete(request("q"))
    assert (response.text, response.finish_reason) == (text, finish)


def test_interrupt_at_raises_keyboard_interrupt_on_that_call_only() -> None:
    engine = FakeEngine(in_order(["a", "b"]), interrupt_at=2)
    assert engine.complete(request("q")).text == "a"
    with pytest.raises(KeyboardInterrupt):
        engine.complete(request("q"))
    assert engine.complete(request("q")).text == "b"
    assert engine.calls == 3
