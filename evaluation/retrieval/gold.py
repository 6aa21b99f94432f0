"""Retrieval gold: what each dataset's questions must find, and how finding it is scored.

A :class:`RetrievalBenchmark` names a split's questions, the corpus searched (indexed whole)
and the metric; :func:`gold_queries` gives its questions with their gold :class:`Target`
items (a target is found when a top-k passage satisfies it):

- ``financebench:<split>``: the split's questions whose PDFs are all present, searched over
  every FinanceBench PDF; gold = their evidence pages; metric page Hit@1/5/10 (any gold
  page among the top k). ``financebench`` alone is ``financebench:dev``.
- ``finqa:dev`` (the contexts of ``finqa:dev848``): gold supporting facts (table rows and
  sentences) from ``finqa:dev_sample200`` ``gold_inds``, else a single-question ConvFinQA
  dev conversation's first turn, matched onto dev848 by content; questions with neither are
  skipped. A fact is found when a top-k passage of its document holds all its terms, so a
  table passage holding the gold row counts (the product's granularity: tables are one
  passage, or row groups with the header repeated). Metric: mean Recall@5/10.
- any other ``finqa:<split>`` or ``tatqa:<split>``: the split's own contexts; gold = each
  record's evidence (:func:`record_targets`): gold rows, paragraphs, or the table when the
  answer comes from it without rows. Metric: mean Recall@5/10.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from filingqa.datasets.finqa import finqa_number
from filingqa.datasets.registry import load_dataset
from filingqa.records.documents import Passage, PassageKind
from filingqa.records.qa_record import Evidence, QARecord
from filingqa.retrieval.index.lexical import tokenize

Metric = Literal["hit", "recall"]
FINANCEBENCH_CORPUS = "financebench"
FINQA_DEV = "finqa:dev848"
"""The FinQA dev split whose contexts ``finqa:dev`` searches and whose gold facts it scores."""


# --- targets and their scores -------------------------------------------------------------


class Target(BaseModel):
    """One gold item of a question: a page, a passage unit, or a fact (its terms).

    A passage satisfies it when it is on ``doc_id`` and, as set: of ``kind``; on ``page``;
    its own id or parent id is ``unit``; it holds every term of ``terms``.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    doc_id: str
    page: int | None = None
    unit: str | None = None
    terms: frozenset[str] = frozenset()
    kind: PassageKind | None = Field(default=None, description="a table row or a sentence")

    def found_in(self, passage: Passage) -> bool:
        """Whether ``passage`` satisfies this target."""
        if passage.doc_id != self.doc_id or self.kind not in (None, passage.kind):
            return False
        if self.page is not None and passage.page != self.page:
            return False
        if self.unit is not None and self.unit not in (passage.id, passage.parent_id):
            return False
        return self.terms <= frozenset(tokenize(passage.text)) if self.terms else True


class EvalQuery(BaseModel):
    """A question and its gold targets."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    question: str
    targets: tuple[Target, ...] = Field(min_length=1)


def found_targets(ranked: Sequence[Passage], targets: Iterable[Target], k: int) -> int:
    """How many ``targets`` some passage among the first ``k`` of ``ranked`` satisfies."""
    top = ranked[:k]
    return sum(any(t.found_in(p) for p in top) for t in targets)


def query_score(ranked: Sequence[Passage], query: EvalQuery, k: int, metric: Metric) -> float:
    """Hit@k (1.0 when any target is found) or Recall@k (the share found) of one query."""
    found = found_targets(ranked, query.targets, k)
    return float(found > 0) if metric == "hit" else found / len(query.targets)


# --- the benchmark of a dataset -----------------------------------------------------------


class RetrievalBenchmark(BaseModel):
    """How a dataset's retrieval is scored: whose questions, over which corpus, by what."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    dataset: str = Field(description="as asked for, e.g. financebench:dev")
    questions: str = Field(description="the split the questions come from")
    corpus: str = Field(description="the corpus indexed and searched")
    metric: Metric
    ks: tuple[int, ...]


def retrieval_benchmark(dataset: str) -> RetrievalBenchmark:
    """The benchmark of ``financebench[:<split>]``, ``finqa:<split>`` or ``tatqa:<split>``.

    Raises:
        ValueError: any other dataset.
    """
    spec = dataset.strip()
    name, _, split = spec.partition(":")
    if name == "financebench":
        questions = f"financebench:{split or 'dev'}"
        return RetrievalBenchmark(
            dataset=spec,
            questions=questions,
            corpus=FINANCEBENCH_CORPUS,
            metric="hit",
            ks=(1, 5, 10),
        )
    if name in ("finqa", "tatqa") and split:
        questions = FINQA_DEV if spec == "finqa:dev" else spec
        return RetrievalBenchmark(
            dataset=spec, questions=questions, corpus=questions, metric="recall", ks=(5, 10)
        )
    raise ValueError(
        f"no retrieval benchmark for {dataset!r}: use financebench:<split>, finqa:<split> "
        "or tatqa:<split>"
    )


def gold_queries(
    benchmark: RetrievalBenchmark, data_dir: str | Path | None = None
) -> list[EvalQuery]:
    """The benchmark's questions that have gold, with their targets.

    Raises:
        ValueError: no question of the split has gold to search for.
    """
    name, _, split = benchmark.questions.partition(":")
    if name == "financebench":
        queries = financebench_queries(data_dir, split=split)
    elif benchmark.questions == FINQA_DEV:
        queries = finqa_queries(data_dir)
    else:
        queries = dataset_queries(benchmark.questions, data_dir)
    if not queries:
        raise ValueError(f"{benchmark.questions}: no question has gold evidence to search for")
    return queries


# --- gold per dataset ---------------------------------------------------------------------


def financebench_queries(
    data_dir: str | Path | None = None, *, split: str = "dev"
) -> list[EvalQuery]:
    """FinanceBench questions of ``split`` whose PDFs are all present, gold = their evidence
    pages (1-based, as passages count them)."""
    queries = []
    for record in load_dataset(f"financebench:{split}", data_dir):
        if record.meta.get("missing_pdfs"):
            continue
        targets = tuple(
            dict.fromkeys(Target(doc_id=e.doc_name, page=_page(e) + 1) for e in record.evidence)
        )
        if targets:
            queries.append(EvalQuery(id=record.id, question=record.question, targets=targets))
    return queries


def _page(evidence: Evidence) -> int:
    assert evidence.page is not None, "FinanceBench evidence always names its page"
    return evidence.page


def record_targets(record: QARecord) -> tuple[Target, ...]:
    """A FinQA / TAT-QA record's gold as targets on the passages its context is indexed as
    (:func:`~filingqa.retrieval.ingest.filings.context_passages`): a gold table row is a terms
    target (the table passage or row group holding it), a gold paragraph its passage unit,
    and table evidence without rows (TAT-QA) the first table's unit."""
    from filingqa.retrieval.ingest.filings import context_passages

    passages = context_passages(record)
    if not passages or record.context is None:
        return ()
    prefix = f"{passages[0].doc_id}:p{passages[0].page}"
    doc_id = passages[0].doc_id
    order = [p.id for p in record.context.paragraphs]
    rows = record.context.tables[0].rows if record.context.tables else []
    targets: list[Target] = []
    for evidence in record.evidence:
        for row in evidence.table_rows:
            if terms := frozenset(tokenize(" ".join(rows[row]))):
                targets.append(Target(doc_id=doc_id, terms=terms, kind="table"))
        ids = [t for t in evidence.text_ids if t in order]
        targets += [Target(doc_id=doc_id, unit=f"{prefix}:text{order.index(t) + 1}") for t in ids]
        if not evidence.table_rows and not evidence.text_ids and rows:
            targets.append(Target(doc_id=doc_id, unit=f"{prefix}:table1"))
    return tuple(dict.fromkeys(targets))


def dataset_queries(spec: str, data_dir: str | Path | None = None) -> list[EvalQuery]:
    """The questions of a FinQA (original format) or TAT-QA split with :func:`record_targets`."""
    queries = []
    for record in load_dataset(spec, data_dir):
        if targets := record_targets(record):
            queries.append(EvalQuery(id=record.id, question=record.question, targets=targets))
    return queries


def _text_key(text: str) -> str:
    return " ".join(text.lower().split()).strip(" .")


RowKey = tuple[str, tuple[float | None, ...]]


def row_key(row: Sequence[str]) -> RowKey:
    """A table row compared by label and numeric values ("$ -633 ( 633 )" == "-633")."""
    return _text_key(row[0]) if row else "", tuple(finqa_number(c) for c in row[1:])


class Fact(BaseModel):
    """A gold supporting fact located in a record's context: table row or paragraph index."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    row: int | None = None
    paragraph: int | None = None


def _facts_from_original(original: QARecord, target: QARecord) -> set[Fact]:
    """``finqa:dev_sample200`` gold facts located in the dev848 record ``target``."""
    assert original.context is not None and target.context is not None
    rows = target.context.tables[0].rows if target.context.tables else []
    row_at = {row_key(row): i for i, row in reversed(list(enumerate(rows)))}
    sentence_at = {_text_key(p.text): i for i, p in enumerate(target.context.paragraphs)}
    table = original.context.tables[0].rows
    paragraphs = {p.id: p.text for p in original.context.paragraphs}
    found: set[Fact] = set()
    for evidence in original.evidence:
        keys = (row_key(table[i]) for i in evidence.table_rows)
        found |= {Fact(row=row_at[k]) for k in keys if k in row_at}
        texts = (_text_key(paragraphs[t]) for t in evidence.text_ids if t in paragraphs)
        found |= {Fact(paragraph=sentence_at[t]) for t in texts if t in sentence_at}
    return found


def _facts_from_conversation(turn: QARecord, target: QARecord) -> set[Fact]:
    """A ConvFinQA first turn's gold (table rows but the header, gold sentences) in dev848."""
    assert target.context is not None
    rows = target.context.tables[0].rows if target.context.tables else []
    row_at = {row_key(row): i for i, row in reversed(list(enumerate(rows)))}
    sentence_at = {_text_key(p.text): i for i, p in enumerate(target.context.paragraphs)}
    table = turn.context.tables[0].rows if turn.context and turn.context.tables else []
    found: set[Fact] = set()
    for evidence in turn.evidence:
        keys = (row_key(table[i]) for i in evidence.table_rows if i > 0)
        found |= {Fact(row=row_at[k]) for k in keys if k in row_at}
        if not evidence.table_rows:
            flat = _text_key(evidence.text)
            held = (i for t, i in sentence_at.items() if len(t) > 20 and t in flat)
            found |= {Fact(paragraph=i) for i in held}
    return found


def finqa_dev_facts(
    records: Sequence[QARecord], data_dir: str | Path | None = None
) -> dict[str, set[Fact]]:
    """Gold facts per ``finqa:dev848`` question id, where a dev copy with facts has them
    (``finqa:dev_sample200`` first, else a single-question ConvFinQA dev first turn)."""
    by_id = {r.id: r for r in records if r.context is not None}
    gold: dict[str, set[Fact]] = {}
    for turn in load_dataset("convfinqa:dev", data_dir):
        meta = turn.meta
        first = meta["kind"] == "Single" and meta["turn"] == 0 and meta["finqa_id"] in by_id
        if first and (found := _facts_from_conversation(turn, by_id[meta["finqa_id"]])):
            gold[meta["finqa_id"]] = found
    for original in load_dataset("finqa:dev_sample200", data_dir):
        if original.id in by_id and (found := _facts_from_original(original, by_id[original.id])):
            gold[original.id] = found
    return gold


def fact_text(record: QARecord, fact: Fact) -> str:
    """The words of a fact: the row's cells, or the paragraph."""
    assert record.context is not None
    if fact.row is not None:
        return " ".join(record.context.tables[0].rows[fact.row])
    assert fact.paragraph is not None
    return record.context.paragraphs[fact.paragraph].text


def finqa_queries(data_dir: str | Path | None = None) -> list[EvalQuery]:
    """FinQA dev848 questions with gold facts, each fact a terms target on its document."""
    records = load_dataset(FINQA_DEV, data_dir)
    gold = finqa_dev_facts(records, data_dir)
    queries = []
    for record in records:
        if record.id not in gold:
            continue
        doc_id = record.documents[0]
        facts = sorted(gold[record.id], key=str)
        targets = tuple(
            dict.fromkeys(
                Target(doc_id=doc_id, terms=terms, kind="table" if f.row is not None else "text")
                for f in facts
                if (terms := frozenset(tokenize(fact_text(record, f))))
            )
        )
        if targets:
            queries.append(EvalQuery(id=record.id, question=record.question, targets=targets))
    return queries
