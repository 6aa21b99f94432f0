"""How often the wording-only answer-form guess agrees with TAT-QA's answer types, with no LM:
an arithmetic answer is computed, a span is looked up or quoted, a multi-span is a list, a
count is counted.

    python benchmarks/answer_form_guess_check.py \
        --out benchmarks/runs/answer-form-guess-tatqa-tuning.json [--slice tatqa-dev-tuning]

``answer_forms=guess`` routes by this guess alone (``router/answer_form_guess.py``), so a
computation guessed as a stated figure is quoted instead of worked out. Prints the guessed
forms per answer type and the questions whose guess sends them down another reasoning path;
writes every question's guess as JSON (ids, not the dataset's text, so it can be committed).
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from filingqa.datasets.registry import load_dataset
from filingqa.evaluation.slices.committed import load_slice, select_slice
from filingqa.router.answer_form_guess import PATHS, guess_answer_form

DATASET = "tatqa:dev"
EXPECTED_PATH = {"arithmetic": "pot", "span": "quote", "multi-span": "quote", "count": "quote"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--slice", default="tatqa-dev-tuning")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()

    records = select_slice(load_dataset(DATASET), load_slice(args.slice, dataset=DATASET))
    questions = {record.id: record.question for record in records}
    rows = []
    for record in records:
        guess = guess_answer_form(record.question)
        kind = str(record.meta["tatqa_answer_type"])
        rows.append(
            {
                "id": record.id,
                "answer_type": kind,
                "form": guess.form,
                "confident": guess.confident,
                "reason": guess.reason,
                "path_agrees": PATHS[guess.form] == EXPECTED_PATH[kind],
            }
        )
    by_type: dict[str, Counter[str]] = {}
    for row in rows:
        by_type.setdefault(row["answer_type"], Counter())[row["form"]] += 1
    print(f"slice {args.slice}: {len(rows)} questions")
    for kind, forms in sorted(by_type.items()):
        shown = ", ".join(f"{form} {n}" for form, n in forms.most_common())
        print(f"  {kind:<11} {sum(forms.values()):>4}: {shown}")
    astray = [row for row in rows if not row["path_agrees"]]
    print(f"sent down another reasoning path: {len(astray)} of {len(rows)}")
    for row in astray:
        print(f"  [{row['answer_type']} -> {row['form']}] {questions[str(row['id'])]}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"slice": args.slice, "questions": rows}, indent=1) + "\n")


if __name__ == "__main__":
    main()
