"""Evaluation: ``filingqa eval`` runs settings (direct, PoT, the program, ...) over a
dataset split, judges every answer strictly and reports accuracy with LM calls, tokens and
latency, paired between settings.

At the root: the settings (:mod:`.modes`, :mod:`.open_corpus`, :mod:`.corpora`), judged
resumable rows (:mod:`.runner`), summaries, paired comparisons, published copies and the
HTML report, and the command itself (:mod:`.command`). Sub-rooms: :mod:`.slices` (committed
tuning and report slices), :mod:`.retrieval` (retrieval quality without an LM) and
:mod:`.robustness` (drivers of the robustness and speed benchmarks).
"""
