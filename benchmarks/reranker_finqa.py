"""Pooled retrieval: FinQA dev Recall@5/10 and FinanceBench page Hit@5/10, with and without
the trained reranker, in one run (one reranker, trained on finqa:train_sample100 only).

FinQA: every finqa:dev848 context (table rows and sentences, one passage each) indexed
together, so a question competes with all 294 report pages. dev848 (TAT-LLM format) carries no
supporting facts; gold comes from the two dev copies that do, mapped onto dev848's passages by
content: finqa:dev_sample200 ``gold_inds`` first, else the first turn of a single-question
ConvFinQA dev conversation (its header row dropped). Questions without either are skipped.
"own page" rows rank only the question's own page (FinQA's original retriever setting).

FinanceBench: the evidence pages of the 100 dev questions (full-page text from the dataset,
cut into 120-word windows as benchmarks/index_scale.py does) pooled; a hit is a top-k passage
on a gold page.

    cd /tmp && FILINGQA_DATA_DIR=/work/shared/datasets \\
        /work/main/.venv/bin/python /work/main/benchmarks/reranker_finqa.py [--limit 100]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from filingqa.datasets.records import QARecord
from filingqa.datasets.registry import load_dataset
from filingqa.evaluation.retrieval import finqa_dev_facts
from filingqa.optimizers.train_reranker import (
    DEFAULT_TRAIN_SPECS,
    TRAINING_FILE,
    MemoryHybrid,
    TrainParams,
    pooled_corpus,
    recall_at,
    record_document,
    record_passages,
    train_reranker,
)
from filingqa.retrieval.documents import Passage
from filingqa.retrieval.embedder import Embedder
from filingqa.retrieval.fusion import reciprocal_rank_fusion
from filingqa.retrieval.ingest import document_from_name
from filingqa.retrieval.pages import page_key
from filingqa.retrieval.rerank import Candidate, Reranker

Ranker = Callable[[str], list[str]]
RESULTS = Path(__file__).resolve().parents[1] / "results" / "reranker_finqa.json"
KS = (5, 10)


def dev_gold(records: Sequence[QARecord], data_dir: str | None) -> dict[str, set[str]]:
    """Gold passage ids (one row or sentence each, as ``record_passages`` names them) per
    dev848 question id, where a dev copy with facts has them."""
    by_id = {r.id: r for r in records}
    gold = {}
    for qid, facts in finqa_dev_facts(records, data_dir).items():
        doc_id = record_document(by_id[qid]).doc_id
        prefix = f"{doc_id}:p{record_passages(by_id[qid])[0].page}"
        gold[qid] = {
            f"{prefix}:table0.{f.row}" if f.row is not None else f"{prefix}:text{f.paragraph}"
            for f in facts
        }
    return gold


def _mean(values: list[float]) -> float:
    return round(float(np.mean(values)), 4) if values else 0.0


def recall_metrics(rankings: dict[str, list[str]], gold: dict[str, set[str]]) -> dict[str, float]:
    """Mean Recall@k and the share of questions with all their gold in the top k."""
    out = {f"recall@{k}": _mean([recall_at(rankings[q], gold[q], k) for q in gold]) for k in KS}
    for k in KS:
        out[f"all_gold@{k}"] = _mean(
            [float(recall_at(rankings[q], gold[q], k) == 1.0) for q in gold]
        )
    return out


def own_page_candidates(hybrid: MemoryHybrid, query: str, page: tuple[str, int]) -> list[Candidate]:
    """FinQA's original setting: the hybrid restricted to the question's own report page."""
    members = hybrid.page_members[page]
    dense, sparse = hybrid.scores(query)
    lists = [sorted(members, key=lambda i: -dense[i]), sorted(members, key=lambda i: -sparse[i])]
    return [
        hybrid.candidate(
            f.key,
            {page: (1, 1.0)},
            dense_score=float(dense[f.key]),
            dense_rank=f.ranks[0],
            sparse_score=float(sparse[f.key]),
            sparse_rank=f.ranks[1],
            fused_rank=rank,
        )
        for rank, f in enumerate(reciprocal_rank_fusion(lists, k=hybrid.rrf_k), start=1)
    ]


def settings(hybrid: MemoryHybrid, reranker: Reranker) -> dict[str, Ranker]:
    """The compared rankers: each maps a question to passage ids, best first."""
    depth = max(KS)
    return {
        "bm25": lambda q: hybrid.search(q, depth, "sparse"),
        "dense": lambda q: hybrid.search(q, depth, "dense"),
        "hybrid": lambda q: hybrid.search(q, depth, "hybrid"),
        "hybrid+reranker": lambda q: [
            c.passage.id for c in reranker.rerank(q, hybrid.candidates(q))
        ],
    }


def finqa(
    embedder: Embedder, reranker: Reranker, data_dir: str | None, limit: int | None
) -> dict[str, object]:
    """FinQA dev pooled Recall@5/10, plus the own-page setting for reference."""
    records = load_dataset("finqa:dev848", data_dir)
    passages, documents, _ = pooled_corpus(records)
    gold = dev_gold(records, data_dir)
    questions = {r.id: r.question for r in records if r.id in gold}
    if limit:
        questions = dict(list(questions.items())[:limit])
        gold = {q: gold[q] for q in questions}
    hybrid = MemoryHybrid(passages, documents, embedder)
    results = {
        name: recall_metrics({qid: rank(q) for qid, q in questions.items()}, gold)
        for name, rank in settings(hybrid, reranker).items()
    }
    page_of = {
        qid: page_key(hybrid.passages[hybrid.position[next(iter(g))]]) for qid, g in gold.items()
    }
    own = {qid: own_page_candidates(hybrid, q, page_of[qid]) for qid, q in questions.items()}
    results["own page: hybrid"] = recall_metrics(
        {qid: [c.passage.id for c in cands] for qid, cands in own.items()}, gold
    )
    results["own page: hybrid+reranker"] = recall_metrics(
        {qid: [c.passage.id for c in reranker.rerank(questions[qid], c)] for qid, c in own.items()},
        gold,
    )
    return {
        "corpus": {"documents": len(documents), "passages": len(passages)},
        "dev848_questions": len(records),
        "questions_with_gold": len(gold),
        "gold_facts": sum(len(g) for g in gold.values()),
        "results": results,
    }


def cut_page(
    doc_id: str, page: int, text: str, size: int = 120, stride: int = 100
) -> list[Passage]:
    """A page's text as overlapping ``size``-word windows (as benchmarks/index_scale.py cuts)."""
    words = text.split()
    starts = range(0, max(1, len(words) - size + stride), stride)
    return [
        Passage(
            id=f"{doc_id}:p{page}:text{n}",
            doc_id=doc_id,
            page=page,
            kind="text",
            text=" ".join(words[s : s + size]),
        )
        for n, s in enumerate(starts)
    ]


def financebench(embedder: Embedder, reranker: Reranker, data_dir: str | None) -> dict[str, object]:
    """FinanceBench dev page Hit@5/10 over the pooled evidence pages of all 100 questions."""
    records = load_dataset("financebench:dev", data_dir)
    pages = {(p.doc_name, p.page + 1): p.text for r in records for p in r.context.pages}
    passages = [p for (doc, page), text in sorted(pages.items()) for p in cut_page(doc, page, text)]
    documents = {doc: document_from_name(doc) for doc, _ in pages}
    gold = {r.id: {(e.doc_name, e.page + 1) for e in r.evidence} for r in records}
    hybrid = MemoryHybrid(passages, documents, embedder)
    where = {p.id: page_key(p) for p in passages}
    results = {}
    for name, rank in settings(hybrid, reranker).items():
        hits = {k: [] for k in KS}
        for record in records:
            found = [where[pid] for pid in rank(record.question)]
            for k in KS:
                hits[k].append(float(bool(gold[record.id] & set(found[:k]))))
        results[name] = {f"page_hit@{k}": _mean(v) for k, v in hits.items()}
    return {
        "corpus": {"pages": len(pages), "passages": len(passages)},
        "questions": len(records),
        "results": results,
    }


def run(
    limit: int | None, model_dir: Path | None, data_dir: str | None, threads: int
) -> dict[str, object]:
    """Train (or load) the reranker, then score every setting on FinQA and FinanceBench."""
    started = time.time()
    embedder = Embedder.load(threads=threads)
    if model_dir is None:
        model_dir = Path(tempfile.mkdtemp(prefix="filingqa-reranker-"))
        params = TrainParams(num_threads=threads)
        train_reranker(DEFAULT_TRAIN_SPECS, model_dir, embedder=embedder, params=params)
    training = json.loads((model_dir / TRAINING_FILE).read_text())
    reranker = Reranker.load(model_dir)
    return {
        "benchmark": "pooled retrieval: FinQA dev facts and FinanceBench dev pages",
        "command": " ".join([Path(sys.argv[0]).name, *sys.argv[1:]]),
        "finqa": finqa(embedder, reranker, data_dir, limit),
        "financebench": financebench(embedder, reranker, data_dir),
        "reranker": {
            "model_dir": str(model_dir),
            "train_specs": training["train_specs"],
            "held_out_specs": training["eval_specs"],
            "cross_validation": training["cross_validation"],
            "negatives_by_reason": training["negatives_by_reason"],
        },
        "seconds": round(time.time() - started, 1),
    }


def _table(results: dict[str, dict[str, float]]) -> str:
    lines = [f"{'setting':<28}" + "".join(f"{m:>13}" for m in next(iter(results.values())))]
    for name, metrics in results.items():
        lines.append(f"{name:<28}" + "".join(f"{100 * v:>12.1f}%" for v in metrics.values()))
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, help="evaluate only the first N FinQA questions")
    parser.add_argument("--model", type=Path, help="a saved reranker dir (else train one)")
    parser.add_argument("--data-dir", help="evaluation data (default $FILINGQA_DATA_DIR)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    summary = run(args.limit, args.model, args.data_dir, args.threads)
    for part in ("finqa", "financebench"):
        print(f"{part}: {summary[part]['corpus']}")
        print(_table(summary[part]["results"]))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(summary, indent=2) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
