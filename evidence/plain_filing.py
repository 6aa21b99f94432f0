"""A plain-text filing as one question's evidence, split into cited passages.

Pages are separated by form feeds and tables written as markdown pipes; each table and text
block becomes a passage that keeps its page (:func:`~filingqa.evidence.selection.select`
picks the ones a question reads when the filing does not fit the budget).
"""

from __future__ import annotations

import re
from typing import Literal

from filingqa.records.documents import Passage

_CAPTION = re.compile(r"^(table \d+[.:]|\(in (millions|thousands|billions))", re.IGNORECASE)


def split_filing(text: str, doc: str) -> list[Passage]:
    """Split a plain-text filing into passages; tables keep their caption and units lines."""
    passages: list[Passage] = []
    counts = {"table": 0, "text": 0}
    for page_number, page in enumerate(text.split("\f"), start=1):
        for kind, block in _blocks(page):
            counts[kind] += 1
            passage_id = f"{doc}:p{page_number}:{kind[:3]}{counts[kind]}"
            passages.append(
                Passage(id=passage_id, doc_id=doc, page=page_number, kind=kind, text=block)
            )
    return passages


def _blocks(page: str) -> list[tuple[Literal["table", "text"], str]]:
    """Paragraph and table blocks of one page; caption lines join the table that follows."""
    blocks: list[tuple[Literal["table", "text"], str]] = []
    pending_caption: list[str] = []
    for chunk in re.split(r"\n\s*\n", page.strip()):
        lines = [line.rstrip() for line in chunk.strip().splitlines() if line.strip()]
        if not lines:
            continue
        if all(line.lstrip().startswith("|") for line in lines):
            blocks.append(("table", "\n".join([*pending_caption, *lines])))
            pending_caption = []
        elif all(_CAPTION.match(line.strip()) for line in lines):
            pending_caption.extend(lines)
        else:
            if pending_caption:
                blocks.append(("text", "\n".join(pending_caption)))
                pending_caption = []
            blocks.append(("text", "\n".join(lines)))
    if pending_caption:
        blocks.append(("text", "\n".join(pending_caption)))
    return blocks
