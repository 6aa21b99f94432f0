"""Where the FinanceBench gold page is lost: scope, first-stage page order, depth, reranker.

For every dev question (PDFs present) that the product's search misses at Hit@5, one line:
the first scope searched, the position of the first gold-page passage in that scope's
page-by-page first-stage order (``pages.page_order``; ``-`` when the scope does not hold
the gold filing), whether a gold-page passage is among the reranker's candidates at depth
100 (the default) and 200, and the final rank of the first gold-page passage in the top 10.

From the repo root, with the shared data beside it:

    FILINGQA_DATA_DIR=../shared/datasets nice -n 19 \\
        .venv/bin/python benchmarks/retrieval_financebench_misses.py
"""

from __future__ import annotations

import argparse
from pathlib import Path

from filingqa.evaluation.retrieval.gold import EvalQuery, financebench_queries
from filingqa.evaluation.retrieval.quality import ensure_index, reranker_dir
from filingqa.retrieval.search.pages import by_page, page_order
from filingqa.retrieval.search.pipeline import FilingSearch
from filingqa.retrieval.vocabulary import lexicon

DEPTHS = (100, 200)


def first_stage_position(search: FilingSearch, query: EvalQuery) -> tuple[str, str]:
    """The first scope's label and the 1-based position of its first gold-page match."""
    companies = search._companies(query.question, None)
    scope = search._scopes(query.question, companies, None, None)[0]
    text = lexicon.search_text(query.question)
    matches = search._search(text, scope.filters, search._depth(scope.filters))
    ordered = by_page(matches, page_order(matches))
    gold = {(t.doc_id, t.page) for t in query.targets}
    where = next((i for i, m in enumerate(ordered, 1) if (m.doc_id, m.page) in gold), None)
    return scope.label, f"{where or '-'}/{len(ordered)}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path)
    args = parser.parse_args()
    queries = financebench_queries(args.data_dir)
    location = Path(ensure_index("financebench", args.data_dir).location)
    search = FilingSearch.open(location, reranker=reranker_dir("financebench"))
    misses = 0
    try:
        for query in queries:
            top = [r.passage for r in search.ranked(query.question, k=10)]
            rank = next(
                (i for i, p in enumerate(top, 1) if any(t.found_in(p) for t in query.targets)),
                None,
            )
            if rank is not None and rank <= 5:
                continue
            misses += 1
            depths = []
            for depth in DEPTHS:
                deep = search.with_settings(depth=depth).ranked(query.question, k=depth)
                held = any(t.found_in(r.passage) for r in deep for t in query.targets)
                depths.append(f"d{depth} {'yes' if held else 'no ':3}")
            label, position = first_stage_position(search, query)
            print(
                f"{query.id}  first stage {position:>9}  {'  '.join(depths)}  "
                f"final {rank or '-':>2}  {query.question[:60]!r}  [{label[:50]}]",
                flush=True,
            )
    finally:
        search.close()
    print(f"{misses} of {len(queries)} questions miss at Hit@5")


if __name__ == "__main__":
    main()
