"""ConvFinQA: one record per turn, earlier turns' answers executed in the sandbox."""

from __future__ import annotations

from pathlib import Path

from filingqa.core.cache import disk_cache
from filingqa.datasets import load_dataset
from filingqa.datasets.convfinqa import CACHE_NAME

from .conftest import write_json

CONVERSATION = {
    "id": "Single_ACME/2019/page_5.pdf-1",
    "questions": ["what was the margin in 2019?", "and in 2018?", "what was the change?"],
    "programs": ["ans = 12.5%", "ans = 120 / 1000", "ans = 0.125 - 0.12"],
    "answer": 0.005,
    "text": "margins improved .",
    "table": "- | 2019 | 2018\nmargin | 12.5% | 12%\nsales | 1000 | 1000\n",
    "golden_text": "",
    "golden_table": "- | 2019 | 2018\nmargin | 12.5% | 12%\n",
}


def test_turn_records(synthetic_data_dir: Path) -> None:
    write_json(synthetic_data_dir / "convfinqa/convfinqa_dev.pot_format.json", [CONVERSATION])
    first, second, last = load_dataset("convfinqa:dev", synthetic_data_dir)
    assert first.id == "Single_ACME/2019/page_5.pdf-1/turn0"
    assert (first.answer, first.answer_value, first.history) == ("0.125", 0.125, [])
    assert (second.answer_value, second.gold_program) == (0.12, "ans = 120 / 1000")
    assert [(t.question, t.answer, t.program) for t in last.history] == [
        ("what was the margin in 2019?", "0.125", "ans = 12.5%"),
        ("and in 2018?", "0.12", "ans = 120 / 1000"),
    ]
    assert (last.answer, last.answer_value, last.meta["answer_executed"]) == ("0.005", 0.005, False)
    assert last.context.tables[0].rows[1] == ["margin", "12.5%", "12%"]
    assert last.evidence[0].table_rows == [0, 1]
    assert last.documents == ["ACME/2019/page_5.pdf"]
    assert disk_cache(CACHE_NAME).get("ans = 120 / 1000") == 0.12
    assert "Conversation so far:" in last.to_dspy_example().context
