"""What a MiniLM-L6 cross-encoder stage would cost per question on this machine.

A cross-encoder such as ms-marco-MiniLM-L-6-v2 is a 6-layer, 384-wide BERT run once per
(question, passage) pair. No PyPI package found ships the weights of one (only loaders that
download from the Hugging Face hub at run time, which filingqa cannot do), so its ranking
quality could not be measured here; its cost can: the pinned all-MiniLM-L6-v2 ONNX file
(``filingqa models pull``) has the same architecture, so a forward pass over the same
pairs takes the same time. Pairs are (FinanceBench question, candidate passage) from the
product's search, truncated to ``--max-length`` tokens, batched by 16, on one thread
(CPU time per question; the retrieval budget is p50 <= 50 ms for the whole search).

From the repo root, with the shared data beside it:

    FILINGQA_DATA_DIR=../shared/datasets nice -n 19 \\
        .venv/bin/python benchmarks/cross_encoder_cost.py
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np

from filingqa.evaluation.retrieval.gold import financebench_queries
from filingqa.evaluation.retrieval.quality import ensure_index
from filingqa.models.registry import DEFAULT_EMBEDDING
from filingqa.retrieval.search.pipeline import FilingSearch

PAIRS = (5, 10, 20)
BATCH = 16


def main() -> None:
    import onnxruntime as ort
    from tokenizers import Tokenizer

    from filingqa.models.store import ensure_embedding

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path)
    parser.add_argument("--questions", type=int, default=10)
    parser.add_argument("--max-length", type=int, default=256)
    args = parser.parse_args()
    directory = ensure_embedding(DEFAULT_EMBEDDING)
    options = ort.SessionOptions()
    options.intra_op_num_threads = options.inter_op_num_threads = 1
    session = ort.InferenceSession(
        str(directory / "model.onnx"), options, providers=["CPUExecutionProvider"]
    )
    inputs = {i.name for i in session.get_inputs()}
    tokenizer = Tokenizer.from_file(str(directory / "tokenizer.json"))
    tokenizer.enable_truncation(max_length=args.max_length)
    tokenizer.enable_padding()
    queries = financebench_queries(args.data_dir)[: args.questions]
    search = FilingSearch.open(Path(ensure_index("financebench", args.data_dir).location))
    try:
        ranked = {q.id: search.ranked(q.question, k=max(PAIRS)) for q in queries}
    finally:
        search.close()
    for n in PAIRS:
        cpu = []
        for query in queries:
            pairs = [(query.question, r.passage.text) for r in ranked[query.id][:n]]
            started = time.process_time()
            for start in range(0, len(pairs), BATCH):
                encoded = tokenizer.encode_batch(pairs[start : start + BATCH])
                feed = {
                    "input_ids": [e.ids for e in encoded],
                    "attention_mask": [e.attention_mask for e in encoded],
                    "token_type_ids": [e.type_ids for e in encoded],
                }
                session.run(
                    None, {k: np.asarray(v, dtype=np.int64) for k, v in feed.items() if k in inputs}
                )
            cpu.append(1000 * (time.process_time() - started))
        print(
            f"{n:>3} pairs, max length {args.max_length}: cpu p50 {statistics.median(cpu):7.1f} ms "
            f"per question ({statistics.median(cpu) / n:.1f} ms per pair)"
        )


if __name__ == "__main__":
    main()
