"""A record's gold context as passages: whole tables, paragraphs, and evidence pages."""

from __future__ import annotations

import re

from filingqa.records import Passage, QARecord

_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")


def gold_passages(record: QARecord) -> list[Passage]:
    """Tables (whole, caption first), then paragraphs, then full evidence pages.

    Pages are 1-based (dataset pages are 0-based). A record without context gives [].
    """
    context = record.context
    if context is None:
        return []
    doc = _UNSAFE.sub("_", record.documents[0] if record.documents else record.id)
    passages = [
        Passage(id=f"{doc}:tab{n}", doc_id=doc, page=1, kind="table", text=table.render())
        for n, table in enumerate(context.tables, 1)
    ]
    passages += [
        Passage(id=f"{doc}:par{p.id}", doc_id=doc, page=1, kind="text", text=p.text)
        for p in context.paragraphs
        if p.text.strip()
    ]
    passages += [
        Passage(
            id=f"{page.doc_name}:p{page.page + 1}",
            doc_id=page.doc_name,
            page=page.page + 1,
            kind="text",
            text=page.text,
        )
        for page in context.pages
        if page.text.strip()
    ]
    return passages
