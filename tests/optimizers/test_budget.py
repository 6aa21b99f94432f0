"""The compile's cost estimate: LM calls per stage and the speed they are priced at."""

import math
from functools import partial

import pytest

from filingqa.optimizers.budget import (
    CALL_SHAPE,
    OPEN_CALL_SHAPE,
    OPEN_CALLS_PER_QUESTION,
    OPEN_FRESH_SHARE,
    PAGE_CALL_SHAPE,
    PAGE_CHECK_CALLS,
    PAGE_CHECK_VARIANT_CALLS,
    PROMPT_PICK_SHARE,
    REFERENCE_SPEEDS,
    SEARCHED_VOTES_ANSWERS,
    Timing,
    call_seconds,
    estimate,
    pick_share,
    re_estimate,
    search_answers,
    voting_share,
)
from filingqa.optimizers.presets import preset

from ..kit.data import judged_row


def test_default_local_preset_fits_two_hours() -> None:
    settings = preset("bootstrap-rs", "light", local=True)
    assert settings.dev == ["tatqa:dev:20", "finqa:dev_sample200:20"]  # not TAT-QA alone
    sized = partial(estimate, settings, train=24, dev=40, calibration=40, local=True)
    cost, apart = sized(calibration_is_dev=True), sized()
    # the loop past the single pass (1.2 calls); the single pass (1.15) is cached from dev
    assert cost.calls["router labels"] == 48
    assert apart.calls["router labels"] == 94
    rule_looped = sized(calibration_is_dev=True, calibration_looped=20)
    assert rule_looped.calls == cost.calls  # the PoT module's dev answers ran no loop
    assert settings.target == "pot" and settings.max_demos <= 2 and settings.threads == 1
    assert 60 < cost.minutes < 120
    assert "LM calls" in cost.describe() and "12 s per call, assumed" in cost.describe()


def test_the_re_estimate_measures_a_demos_cost_from_the_prefill_speed() -> None:
    settings = preset("bootstrap-rs", "light", local=True)
    planned = estimate(settings, train=24, dev=40, calibration=40, local=True)
    fast_prefill = [
        judged_row(
            id=f"q{i}",
            lm_calls=2,
            seconds=20.0,
            prompt_tokens=2000,
            prompt_tokens_evaluated=1000,
            prefill_seconds=5.0,
        )
        for i in range(4)
    ]
    said = re_estimate(fast_prefill, planned)
    # 10 s a call; 1,000 tokens sent a call at 200 evaluated tokens/s: a demo ≈ +50%
    assert "10.0 s per LM call here, 1,000 prompt tokens sent and 500 evaluated" in said
    assert "at 200 tokens/s: a demo ≈ +50%" in said
    unmeasured = [judged_row(id="q0", lm_calls=2, seconds=20.0)]
    assert "a demo ≈" not in re_estimate(unmeasured, planned)
    assert re_estimate([judged_row(id="q0", cached_calls=1)], planned) == ""


def test_a_calls_seconds_are_its_average_tokens_at_the_first_questions_speeds() -> None:
    timed = judged_row(
        lm_calls=2,
        seconds=9.0,
        prompt_tokens_evaluated=800,
        generated_tokens=150,
        prefill_seconds=8.0,
        generation_seconds=6.0,
    )
    timing = call_seconds([timed])
    # 100 prompt and 25 generated tokens/s, whatever the first question's own length
    assert timing is not None and timing.speeds == (100.0, 25.0)
    assert timing.seconds_per_call == pytest.approx(CALL_SHAPE.seconds(100.0, 25.0))
    assert timing.basis.startswith("measured: 100 prompt and 25 generated tokens/s")
    untimed = judged_row(lm_calls=4, cached_calls=1, seconds=9.0)
    assert call_seconds([untimed]) == Timing(
        seconds_per_call=3.0, basis="measured on the first dev question"
    )
    assert call_seconds([judged_row(cached_calls=1)]) is None


def test_a_stages_calls_are_weighed_by_their_shape_at_the_timed_speeds() -> None:
    settings = preset("structure", "light", local=True)
    planned = estimate(
        settings, train=0, dev=40, calibration=12, local=True, open_questions=12, page_questions=48
    )
    assert planned.speeds == REFERENCE_SPEEDS
    slow_prefill = Timing(seconds_per_call=30.0, basis="measured", speeds=(30.0, 15.0))
    timed = slow_prefill.applied(planned)
    # a query-writing call generates about as much as an average call but reads less of the
    # prompt: the slower the prefill against generation, the less it weighs
    assert timed.weights["open-corpus pages"] == pytest.approx(
        PAGE_CALL_SHAPE.seconds(30.0, 15.0) / CALL_SHAPE.seconds(30.0, 15.0), abs=0.01
    )
    assert timed.weights["open-corpus pages"] < planned.weights["open-corpus pages"]
    assert timed.seconds_per_call == 30.0 and timed.calls == planned.calls
    untimed = Timing(seconds_per_call=5.0, basis="measured on the first dev question")
    assert untimed.applied(planned).weights == planned.weights


def test_the_estimate_counts_every_rung() -> None:
    settings = preset("structure", "light", local=True)
    small, large = search_answers(settings, 10), search_answers(settings, 40)
    assert 0 < small < large
    no_pool = settings.model_copy(update={"pool": []})
    assert search_answers(no_pool, 40) < large  # no worked-example candidates


def test_a_survivor_and_the_pick_are_priced_between_the_mean_and_the_cheapest() -> None:
    settings = preset("structure", "light", local=True)
    # rungs of 5, 20 and 40 questions: every candidate (13 and the best changes combined)
    # answers the first 5, 4 survivors the next 15, one the last 20
    assert (settings.first_rung, settings.eta) == (5, 4)
    every = search_answers(settings.model_copy(update={"first_rung": 40}), 40) / 40
    mean = every / 14
    survivors = search_answers(settings, 40) - 5 * every
    # the ranking breaks accuracy ties by LM calls: a survivor costs less than the mean
    assert 0 < survivors < mean * (4 * 15 + 20)
    assert 0 < pick_share(settings) < mean
    assert voting_share(settings) == pytest.approx(2 / 14)  # five votes, and combined
    prompts = preset("bootstrap-rs", "light", local=True)
    assert pick_share(prompts) == PROMPT_PICK_SHARE and voting_share(prompts) == 0.0
    sized = partial(estimate, prompts, train=20, dev=40, calibration=12, local=True)
    assert "open-corpus votes" not in sized(confirm=40, open_questions=12).if_compiled


def test_the_open_confirmation_prices_the_chosen_structure_beside_the_start() -> None:
    settings = preset("structure", "light", local=True)
    priced = estimate(
        settings, train=0, dev=40, calibration=12, local=True, open_questions=12, open_confirm=12
    )
    share = sum(OPEN_FRESH_SHARE.values()) / len(OPEN_FRESH_SHARE)
    assert priced.calls["open confirmation"] == math.ceil(
        12 * OPEN_CALLS_PER_QUESTION * (1 + share)
    )


def test_router_labels_count_only_the_loops_the_search_did_not_run() -> None:
    settings = preset("structure", "light", local=True)
    sized = partial(estimate, settings, train=0, dev=40, calibration=12, local=True)
    apart, from_dev = sized(), sized(calibration_is_dev=True)
    looped = sized(calibration_is_dev=True, calibration_looped=10)
    # single pass 1.15 and loop 1.2 calls a question; the dev draw's are the cache's
    assert apart.calls["router labels"] == 29
    assert from_dev.calls["router labels"] == 15
    assert looped.calls["router labels"] == 3


def test_the_open_corpus_stage_is_priced_at_its_longer_calls() -> None:
    settings = preset("structure", "light", local=True)
    sized = partial(estimate, settings, train=0, dev=40, calibration=12, local=True)
    without, with_open = sized(), sized(open_questions=12)
    assert "open-corpus search" not in without.calls
    calls = with_open.calls["open-corpus search"]
    assert calls == math.ceil(12 * OPEN_CALLS_PER_QUESTION * (1 + sum(OPEN_FRESH_SHARE.values())))
    weight = with_open.weights["open-corpus search"]
    assert weight == pytest.approx(
        OPEN_CALL_SHAPE.seconds(*REFERENCE_SPEEDS) / CALL_SHAPE.seconds(*REFERENCE_SPEEDS), abs=0.01
    )
    extra = with_open.minutes - without.minutes
    assert extra == pytest.approx(calls * weight * with_open.seconds_per_call / 60)
    assert f"≈ {calls:>5} LM calls (each ≈ {weight:g} average calls)" in with_open.describe()


def test_the_page_check_prices_the_query_writing_of_the_questions_not_answered() -> None:
    settings = preset("structure", "light", local=True)
    sized = partial(estimate, settings, train=0, dev=40, calibration=12, local=True)
    answered, checked = sized(open_questions=12), sized(open_questions=12, page_questions=48)
    assert "open-corpus pages" not in answered.calls
    calls = checked.calls["open-corpus pages"]
    assert calls == math.ceil(36 * PAGE_CHECK_CALLS + 48 * PAGE_CHECK_VARIANT_CALLS)
    extra = checked.minutes - answered.minutes
    weight = checked.weights["open-corpus pages"]
    assert extra == pytest.approx(calls * weight * checked.seconds_per_call / 60)


def test_what_the_compiled_program_going_on_costs_is_priced_apart_from_the_total() -> None:
    settings = preset("structure", "light", local=True)
    sized = partial(estimate, settings, train=0, dev=40, calibration=12, local=True)
    alone, confirmed = (
        sized(open_questions=12, open_confirm=12),
        sized(confirm=40, open_questions=12, open_confirm=12),
    )
    assert "confirmation" not in confirmed.calls
    pick = pick_share(settings)
    assert confirmed.if_compiled["confirmation"] == math.ceil(40 * 1.8 * (1 + pick))
    each = confirmed.seconds_per_call / 60
    # the total adds only the router's confirmation, which runs whichever program is kept
    router = confirmed.calls["router confirmation"]
    assert confirmed.minutes == pytest.approx(alone.minutes + router * each)
    # the open-corpus stage starts a voting pick at one vote: only its votes' candidate adds
    votes = confirmed.if_compiled["open-corpus votes"]
    extra = (SEARCHED_VOTES_ANSWERS - 1) * voting_share(settings)
    assert votes == math.ceil(12 * OPEN_CALLS_PER_QUESTION * extra)
    assert votes < confirmed.calls["open-corpus search"] / 2
    added = confirmed.minutes_if_compiled - confirmed.minutes
    weight = confirmed.weights["open-corpus votes"]
    assert added == pytest.approx((confirmed.if_compiled["confirmation"] + votes * weight) * each)
    said = confirmed.describe().splitlines()
    assert said[-1] == (
        f"  then ≈ {confirmed.total_calls + sum(confirmed.if_compiled.values())} LM calls, "
        f"≈ {confirmed.minutes_if_compiled:.0f} min"
    )
    assert "  if the compiled program goes on (it wins dev or costs less there):" in said
    assert "if the compiled program goes on" not in sized().describe()
    # without a confirmation draw dev alone decides, and a kept pick still searches
    assert set(alone.if_compiled) == {"open-corpus votes"}
