"""The compile's encoder stage run alone: what it searched, the examples, the fine-tune's
loss and what each part took (issue 49, item 3).

Searches the reranker's training splits (a sample of each) and the FinanceBench tuning
slice as served, fine-tunes the pinned MiniLM on their examples and exports the encoder to
``--out``; an index embedded by it is then built with ``filingqa index --embedder OUT``.

    FILINGQA_DATA_DIR=../shared/datasets .venv/bin/python benchmarks/encoder_stage.py \\
        --out DIR --json OUT
"""

from __future__ import annotations

import argparse
from pathlib import Path

from filingqa.optimizers.encoder_stage import EncoderStageSettings, train_encoder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="the encoder's folder")
    parser.add_argument("--data-dir", type=Path)
    parser.add_argument("--json", type=Path, help="also write the stage's report here")
    args = parser.parse_args()
    report = train_encoder(args.out, EncoderStageSettings(), data_dir=args.data_dir, progress=True)
    tune = report.tune
    print(
        f"{report.slice_examples} slice + {report.split_examples} split examples; searching "
        f"{report.search_seconds / 60:.1f} min; fine-tune {tune.steps} steps, loss "
        f"{tune.first_loss:.3f} -> {tune.last_loss:.3f}, {tune.seconds / 60:.1f} min; stage "
        f"{report.seconds / 60:.1f} min; encoder {tune.encoder}"
    )
    if args.json:
        args.json.write_text(report.model_dump_json(indent=2) + "\n")


if __name__ == "__main__":
    main()
