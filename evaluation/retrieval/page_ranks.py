"""Where the served search puts a question's gold page, question by question.

:func:`gold_rank` is the 1-based rank of the first passage on a gold page among the first
``k`` a search returns (None: not among them); :func:`hit_rates` turns the ranks of many
questions into page Hit@k per group (a slice, a question type), so settings and indexes
can be compared on the same questions, by fold.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from filingqa.datasets.registry import load_dataset
from filingqa.evaluation.paired import sign_test
from filingqa.evaluation.retrieval.gold import EvalQuery
from filingqa.evaluation.slices.committed import load_slice
from filingqa.records.documents import Passage
from filingqa.retrieval.ingest.filings import document_from_name
from filingqa.retrieval.search.pages import page_key, spread_pages
from filingqa.retrieval.search.pipeline import FilingSearch, SearchSettings
from filingqa.retrieval.search.rerank_features import Candidate

KS = (1, 5, 10)
FINANCEBENCH_SLICES = ("financebench-dev-tuning", "financebench-dev-report")


def gold_rank(search: FilingSearch, query: EvalQuery, k: int = max(KS)) -> int | None:
    """The rank of the first of ``search``'s top ``k`` passages on a gold page of ``query``."""
    return first_gold([r.passage for r in search.ranked(query.question, k=k)], query)


def first_gold(ranked: Sequence[Passage], query: EvalQuery) -> int | None:
    """The 1-based rank of the first passage of ``ranked`` on a gold page of ``query``."""
    return next(
        (i for i, p in enumerate(ranked, 1) if any(t.found_in(p) for t in query.targets)), None
    )


def company(query: EvalQuery) -> str:
    """The company a question is about (its first gold document's)."""
    doc_id = query.targets[0].doc_id
    return document_from_name(doc_id).company or doc_id


def company_folds(queries: Sequence[EvalQuery], folds: int, seed: int = 0) -> dict[str, int]:
    """``question id -> fold``, all questions about one company in one fold."""
    names = sorted({company(q) for q in queries})
    random.Random(seed).shuffle(names)
    fold_of = {name: i % folds for i, name in enumerate(names)}
    return {q.id: fold_of[company(q)] for q in queries}


def spread(order: Sequence[Candidate], settings: SearchSettings) -> list[Candidate]:
    """``order`` with the pipeline's last step: the best passages of the top pages first."""
    if not settings.spread:
        return list(order)
    return spread_pages(order, lambda c: page_key(c.passage), 3 * settings.spread, settings.spread)


def financebench_groups(
    queries: Sequence[EvalQuery], data_dir: str | Path | None = None
) -> dict[str, list[str]]:
    """FinanceBench dev question ids by group: all of ``queries``, each committed slice
    (tuning first), each question type."""
    types = {
        r.id: r.meta.get("question_type", "") for r in load_dataset("financebench:dev", data_dir)
    }
    groups: dict[str, list[str]] = {"all": [q.id for q in queries]}
    for name in FINANCEBENCH_SLICES:
        groups[name] = list(load_slice(name, dataset="financebench:dev").ids)
    for kind in sorted(set(types.values())):
        groups[kind] = [q.id for q in queries if types[q.id] == kind]
    return groups


def hit_rates(
    ranks: Mapping[str, int | None], groups: Mapping[str, Iterable[str]]
) -> dict[str, dict[str, float]]:
    """Per group (name -> its question ids): ``n`` and page Hit@k for each of :data:`KS`, over
    the group's questions that have a rank entry."""
    table: dict[str, dict[str, float]] = {}
    for name, ids in groups.items():
        found = [ranks[i] for i in ids if i in ranks]
        row: dict[str, float] = {"n": len(found)}
        for k in KS:
            hits = sum(rank is not None and rank <= k for rank in found)
            row[f"hit@{k}"] = hits / len(found) if found else float("nan")
        table[name] = row
    return table


def format_rates(setting: str, table: Mapping[str, Mapping[str, float]]) -> str:
    """One line per group: ``n`` and Hit@1/5/10 in percent."""
    lines = [f"{setting}:"]
    for name, row in table.items():
        cells = "  ".join(f"@{k} {row[f'hit@{k}']:6.1%}" for k in KS)
        lines.append(f"  {name:<28} n {int(row['n']):>3}  {cells}")
    return "\n".join(lines)


def ordering_results(
    orders: Mapping[str, Mapping[str, Sequence[Candidate]]],
    queries: Sequence[EvalQuery],
    groups: Mapping[str, Iterable[str]],
) -> dict[str, dict[str, object]]:
    """For each named ordering (question id -> its candidates in order): every question's
    gold rank among the first ``max(KS)`` (None: a miss, or no candidates) and the page
    Hit@k of each of ``groups``, each ordering's rates printed as it is done."""
    results: dict[str, dict[str, object]] = {}
    for name, order in orders.items():
        ranks = {
            q.id: first_gold([c.passage for c in order.get(q.id, [])[: max(KS)]], q)
            for q in queries
        }
        rates = hit_rates(ranks, groups)
        results[name] = {"ranks": ranks, "rates": rates}
        print(format_rates(name, rates), flush=True)
    return results


def paired_hits(
    baseline: Mapping[str, int | None], candidate: Mapping[str, int | None], ids: Iterable[str]
) -> dict[str, dict[str, float]]:
    """Per k of :data:`KS`, over ``ids``: the questions ``candidate`` finds a gold page for
    within k and ``baseline`` does not (``won``), the reverse (``lost``) and the one-sided
    sign test's p-value."""

    def hit(ranks: Mapping[str, int | None], qid: str, k: int) -> bool:
        rank = ranks.get(qid)
        return rank is not None and rank <= k

    ids = list(ids)
    table: dict[str, dict[str, float]] = {}
    for k in KS:
        won = sum(hit(candidate, i, k) and not hit(baseline, i, k) for i in ids)
        lost = sum(hit(baseline, i, k) and not hit(candidate, i, k) for i in ids)
        table[f"@{k}"] = {"won": won, "lost": lost, "p": round(sign_test(won, lost), 4)}
    return table
