"""Hard-negative mining: the 2-of-3 rule, granularity swaps, BM25-near and random picks."""

from __future__ import annotations

from filingqa.optimizers.hard_negatives import (
    FACTS,
    _differs,
    _shares,
    classify,
    mine_hard_negatives,
    passage_facts,
    pool_facts,
)
from filingqa.retrieval.documents import Document, Passage


def passage(pid: str, doc_id: str, text: str) -> Passage:
    return Passage(id=pid, doc_id=doc_id, page=1, kind="text", text=text)


GOLD = passage("gold", "acme19", "Consolidated net sales were $1,200 million in 2019.")
POOL = [
    GOLD,
    passage("period", "acme17", "Net sales were $900 million in 2017."),
    passage("entity", "beta19", "Total revenues were $300 million in 2019."),
    passage("metric", "acme19", "Operating income was $150 million in 2019."),
    passage("segment", "acme19", "North America segment net sales were $700 million in 2019."),
    passage("unrelated", "beta17", "Goodwill impairment in 2017."),
    passage("no_year", "nodoc", "Net sales depend on consumer demand."),
    passage("other_gold", "acme19", "Net sales grew 5% in 2019."),
]
DOCS = {
    "acme19": Document(doc_id="acme19", company="Acme Corp", fiscal_year=2019),
    "acme17": Document(doc_id="acme17", company="ACME", fiscal_year=2017),
    "beta19": Document(doc_id="beta19", company="Beta", fiscal_year=2019),
    "beta17": Document(doc_id="beta17", company="Beta", fiscal_year=2017),
}
FACTS_BY_ID = pool_facts(POOL, DOCS)


def test_passage_facts() -> None:
    facts = passage_facts(GOLD, DOCS["acme19"])
    assert facts.metrics == {"revenue"} and facts.years == {2019}
    assert facts.entity == "acme" and facts.granularity == "consolidated"
    undated = passage_facts(passage("x", "acme17", "Net sales depend on demand."), DOCS["acme17"])
    assert undated.years == {2017} and undated.entity == "acme"
    assert passage_facts(GOLD).entity is None


def test_classify_names_the_one_differing_fact() -> None:
    gold = FACTS_BY_ID["gold"]
    assert classify(gold, FACTS_BY_ID["period"]) == ("period", ("metric", "entity"))
    assert classify(gold, FACTS_BY_ID["entity"]) == ("entity", ("metric", "period"))
    assert classify(gold, FACTS_BY_ID["metric"]) == ("metric", ("entity", "period"))
    assert classify(gold, FACTS_BY_ID["segment"]) == ("granularity", FACTS)
    assert classify(gold, FACTS_BY_ID["unrelated"]) is None
    assert classify(gold, FACTS_BY_ID["no_year"]) is None  # period unknown: not "different"


def test_mined_negatives_satisfy_the_two_of_three_rule() -> None:
    mined = mine_hard_negatives(
        GOLD, POOL, FACTS_BY_ID, exclude=frozenset({"other_gold"}), n_bm25=0, n_random=0
    )
    by_reason = {n.reason: n.passage.id for n in mined}
    assert by_reason == {
        "period": "period",
        "entity": "entity",
        "metric": "metric",
        "granularity": "segment",
    }
    gold = FACTS_BY_ID["gold"]
    for negative in mined:
        other = FACTS_BY_ID[negative.passage.id]
        shared = [f for f in FACTS if _shares(f, gold, other)]
        assert tuple(shared) == negative.shared
        if negative.reason != "granularity":
            assert len(shared) == 2 and _differs(negative.reason, gold, other)


def test_bm25_near_and_random_negatives_never_include_gold() -> None:
    mined = mine_hard_negatives(
        GOLD,
        POOL,
        FACTS_BY_ID,
        exclude=frozenset({"other_gold"}),
        bm25_ranking=["gold", "other_gold", "no_year", "unrelated"],
        per_reason=0,
        n_bm25=1,
        n_random=2,
        seed=3,
    )
    assert [n.passage.id for n in mined if n.reason == "bm25"] == ["no_year"]
    assert len([n for n in mined if n.reason == "random"]) == 2
    assert not {"gold", "other_gold"} & {n.passage.id for n in mined}
    assert len({n.passage.id for n in mined}) == len(mined)


def test_mining_is_deterministic_per_seed() -> None:
    def run(seed: int) -> list[str]:
        return [n.passage.id for n in mine_hard_negatives(GOLD, POOL, FACTS_BY_ID, seed=seed)]

    assert run(1) == run(1)


def test_per_reason_caps_each_reason() -> None:
    pool = [GOLD] + [
        passage(f"p{y}", "acme", f"Net sales were {y} million in {y}.") for y in range(2001, 2006)
    ]
    facts = pool_facts(
        pool, {"acme19": DOCS["acme19"], "acme": Document(doc_id="acme", company="Acme")}
    )
    mined = mine_hard_negatives(GOLD, pool, facts, per_reason=2, n_bm25=0, n_random=0)
    assert [n.reason for n in mined] == ["period", "period"]
