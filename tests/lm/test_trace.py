import dspy
from dspy.lm15 import Usage

from filingqa.lm.trace import CallLog, Step, Trace, call_costs

from ..kit.lm import FakeEngine, in_order

METERED_USAGE = Usage(input_tokens=100, output_tokens=5, total_tokens=105, cache_read_tokens=60)
TIMINGS = {"seconds": 1.1, "prefill_seconds": 0.4, "generation_seconds": 0.6}


def traced(engine: FakeEngine, calls_per_step: tuple[int, ...]) -> Trace:
    """A trace of one step per entry of ``calls_per_step``, each making that many LM calls."""
    lm = dspy.LM("fake/metered", engine=engine, cache=False, num_retries=0)
    trace = Trace()
    with dspy.context(lm=lm):
        for number, calls in enumerate(calls_per_step):
            with trace.step(f"step {number}"):
                for _ in range(calls):
                    lm("question")
    return trace


def test_steps_and_trace_count_cached_prompt_tokens_and_reported_seconds() -> None:
    engine = FakeEngine(in_order(["a"] * 3), usage=METERED_USAGE, provider_data=TIMINGS)
    trace = traced(engine, (2, 1))
    first = trace.steps[0]
    assert (first.lm_calls, first.tokens) == (2, 210)
    assert (first.prompt_tokens, first.prompt_tokens_evaluated, first.generated_tokens) == (
        200,
        80,
        10,
    )
    assert (first.prefill_seconds, first.generation_seconds) == (0.8, 1.2)
    assert (trace.prompt_tokens, trace.prompt_tokens_evaluated, trace.generated_tokens) == (
        300,
        120,
        15,
    )
    assert (trace.prefill_seconds, trace.generation_seconds) == (1.2, 1.8)


def test_a_backbone_reporting_no_cache_or_timings_has_every_prompt_token_evaluated() -> None:
    trace = traced(FakeEngine(in_order(["a", "b"])), (1, 1))
    assert [(s.prompt_tokens, s.prompt_tokens_evaluated) for s in trace.steps] == [(10, 10)] * 2
    assert trace.generated_tokens == 10
    assert (trace.prefill_seconds, trace.generation_seconds) == (None, None)


def test_a_sum_of_seconds_is_none_only_when_no_step_reported_them() -> None:
    trace = Trace(steps=[Step(name="search"), Step(name="answer", prefill_seconds=0.5)])
    assert trace.prefill_seconds == 0.5
    assert trace.generation_seconds is None


def test_cache_hits_report_no_usage_and_cost_nothing() -> None:
    hit = {"usage": {}, "response": None}
    assert call_costs([hit]) == {
        "tokens": 0,
        "prompt_tokens": 0,
        "prompt_tokens_evaluated": 0,
        "generated_tokens": 0,
        "prefill_seconds": None,
        "generation_seconds": None,
    }


def test_the_call_log_gets_the_calls_of_modules_run_inside_it() -> None:
    engine = FakeEngine(in_order(["[[ ## answer ## ]]\n4"]), usage=METERED_USAGE)
    lm = dspy.LM("fake/metered", engine=engine, cache=False, num_retries=0)
    log = CallLog()
    with dspy.context(lm=lm, adapter=dspy.ChatAdapter()), log.recording():
        dspy.Predict("question -> answer")(question="2 + 2?")
    assert call_costs(log.history)["prompt_tokens_evaluated"] == 40


def test_steps_serialized_before_the_cost_figures_still_load() -> None:
    old = {"name": "answer", "lm_calls": 1, "tokens": 15, "seconds": 0.2}
    step = Step.model_validate(old)
    assert (step.prompt_tokens, step.prompt_tokens_evaluated, step.generated_tokens) == (0, 0, 0)
    assert (step.prefill_seconds, step.generation_seconds) == (None, None)
