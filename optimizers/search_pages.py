"""The open-corpus stage's page check: each structure's first search alone (no curation,
reasoning or checks) over the tuning questions, and whether it found a gold page on each.

Answering a question over an index costs a reading call or more; its first search costs at
most the query-writing calls, and none for a structure that writes no queries. So the stage
answers a dozen questions but weighs what each structure's search finds on every tuning
question it has, where a page missed once in a while shows.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

from tqdm import tqdm

from filingqa.evaluation.modes import reranked_search
from filingqa.evaluation.open_corpus import OpenCorpus, RecordingSearch, gold_hit, pages
from filingqa.optimizers.cost_selection import GoldPages
from filingqa.program.financial_qa import FinancialQA
from filingqa.records import QARecord


def searched_gold_pages(
    programs: Mapping[str, FinancialQA],
    records: Sequence[QARecord],
    corpus: OpenCorpus,
    *,
    pages_dir: Path,
    progress: bool = True,
) -> dict[str, GoldPages]:
    """For each program (by key), whether its first search for each record found a gold
    page (None: the record names none); kept in ``pages_dir/<key>.json`` once every record
    is searched, and read back from there on a rerun."""
    found: dict[str, GoldPages] = {}
    to_search: dict[str, FinancialQA] = {}
    for key, program in programs.items():
        path = pages_dir / f"{key}.json"
        if path.is_file():
            found[key] = json.loads(path.read_text())
        else:
            to_search[key] = program
    pages_dir.mkdir(parents=True, exist_ok=True)
    total = len(records) * len(to_search)
    with tqdm(total=total, desc="open-corpus pages", disable=not progress) as bar:
        for key, program in to_search.items():
            hits = {}
            for record in records:
                hits[record.id] = first_search_hit(program, record, corpus)
                bar.update()
            (pages_dir / f"{key}.json").write_text(json.dumps(hits))
            found[key] = hits
    return found


def first_search_hit(program: FinancialQA, record: QARecord, corpus: OpenCorpus) -> bool | None:
    """Whether any search of ``program``'s first search for ``record`` returned a gold page
    (the pages counted as an eval's ``gold hit`` counts them); None when none is known."""
    recording = RecordingSearch(reranked_search(corpus, program))
    program.first_search(record.question, recording)
    return gold_hit(record, pages(recording.found))
