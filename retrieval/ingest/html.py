"""An HTML filing (EDGAR's 10-K/10-Q HTML) read into pages of paragraphs and tables.

Page breaks are the CSS page-break styles EDGAR filings print with; tables keep their
cells, and a table's caption is taken from the short title or units lines above it."""

from __future__ import annotations

import re
from html.parser import HTMLParser

from filingqa.records.qa_record import Table
from filingqa.retrieval.ingest.pdf import PageContent
from filingqa.retrieval.ingest.tables import add_table, resolve_spans


def html_pages(html: str) -> list[PageContent]:
    """HTML (EDGAR filings): pages split at CSS page breaks, tables from ``<table>``."""
    parser = _FilingHTMLParser()
    parser.feed(html)
    parser.close()
    return [PageContent(number=n, blocks=b) for n, b in enumerate(parser.finish(), start=1)]


class _FilingHTMLParser(HTMLParser):
    """Collects pages of paragraphs and tables; block elements end paragraphs."""

    BLOCK_TAGS = frozenset(
        [
            "p",
            "div",
            "br",
            "li",
            "ul",
            "ol",
            "h1",
            "h2",
            "h3",
            "h4",
            "h5",
            "h6",
            "hr",
            "section",
            "article",
            "blockquote",
            "pre",
            "dt",
            "dd",
            "center",
        ]
    )
    SKIP_TAGS = frozenset({"script", "style", "head", "title"})
    _BREAK = re.compile(r"page-break-(before|after)\s*:\s*always", re.IGNORECASE)

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.pages: list[list[Table | str]] = [[]]
        self.text: list[str] = []
        self.rows: list[list[tuple[str, int]]] | None = None
        self.table_depth = 0
        self.skip_depth = 0
        self.break_after: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self.SKIP_TAGS:
            self.skip_depth += 1
        style = dict(attrs).get("style") or ""
        page_break = self._BREAK.search(style)
        if page_break and page_break[1].lower() == "before":
            self._new_page()
        elif page_break:
            self.break_after.append(tag)
        if tag == "table":
            self._start_table()
        elif self.rows is not None and self.table_depth == 1:
            self._table_tag(tag, attrs)
        elif tag in self.BLOCK_TAGS:
            self._end_paragraph()
        if tag == "hr" and page_break:
            self._new_page()
            self.break_after.remove(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in self.SKIP_TAGS:
            self.skip_depth = max(0, self.skip_depth - 1)
        if tag == "table":
            self._end_table()
        elif tag in self.BLOCK_TAGS and self.rows is None:
            self._end_paragraph()
        if tag in self.break_after:
            self.break_after.remove(tag)
            self._new_page()

    def handle_data(self, data: str) -> None:
        if self.skip_depth:
            return
        if self.rows is not None and self.rows and self.rows[-1]:
            self._add_to_cell(data)
        elif self.rows is None:
            self.text.append(data)

    def finish(self) -> list[list[Table | str]]:
        """The pages, once the whole document has been fed."""
        if self.rows is not None:
            self.table_depth = 1
            self._end_table()
        self._end_paragraph()
        return self.pages

    def _table_tag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        assert self.rows is not None
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            if not self.rows:
                self.rows.append([])
            span = (dict(attrs).get("colspan") or "1").strip()
            self.rows[-1].append(("", int(span) if span.isdigit() else 1))
        elif tag in ("br", "p", "div") and self.rows and self.rows[-1]:
            self._add_to_cell(" ")

    def _add_to_cell(self, data: str) -> None:
        assert self.rows is not None
        text, span = self.rows[-1][-1]
        self.rows[-1][-1] = (text + data, span)

    def _start_table(self) -> None:
        self.table_depth += 1
        if self.table_depth == 1:
            self._end_paragraph()
            self.rows = []

    def _end_table(self) -> None:
        self.table_depth = max(0, self.table_depth - 1)
        if self.table_depth or self.rows is None:
            return
        rows, self.rows = resolve_spans(self.rows), None
        page = self.pages[-1]
        if len(rows) >= 2 and len(rows[0]) >= 2:
            add_table(page, rows)
        else:
            page += [" ".join(cell for cell in row if cell) for row in rows]

    def _end_paragraph(self) -> None:
        text = " ".join("".join(self.text).split())
        self.text = []
        if text:
            self.pages[-1].append(text)

    def _new_page(self) -> None:
        self._end_paragraph()
        if self.pages[-1]:
            self.pages.append([])
