"""Tables as markdown, and as row-group passages that each stand alone.

A table passage is the whole table in markdown (caption/units line, one header row, the
rows). When it is longer than the embedding model's window (all-MiniLM-L6-v2 reads 256
tokens) it is also cut into row groups: each repeats the caption and header row, and the
section row ("Current liabilities:") that the group's first row falls under, and points to
the whole table through ``parent_id``. A table read from text or HTML is added to its
page's blocks with the title and units lines above it as its caption (:func:`add_table`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import partial

from filingqa.records.documents import Passage
from filingqa.records.qa_record import Table
from filingqa.retrieval.ingest.chunking import ESTIMATED, TokenBudget
from filingqa.retrieval.ingest.sections import parse_heading, parse_part

_NUMBER = re.compile(r"^[(\-–—]?[$€£¥]?\s*\(?-?\d[\d,]*(\.\d+)?\s*\)?\s*%?\)?$")
_YEARISH = re.compile(r"^(fiscal |fy\s?)?(19|20)\d\d$|^\w+\.? \d{1,2}, (19|20)\d\d$", re.I)
_FRAGMENTS = frozenset({"$", "€", "£", "¥", "%", ")", "%)"})
MAX_HEADER_ROWS = 3
MAX_LEAD_IN_WORDS = 40
MIN_SHARED_WORDS = 3  # header words common to all columns that move to the caption
_UNITS = re.compile(
    r"\((?:[^)]*\b)?(in |amounts in |dollars in )?(millions|thousands|billions)", re.I
)


MAX_CAPTION_LINES = 3
MAX_CAPTION_WORDS = 12


def lead_in(paragraph: str) -> str | None:
    """The sentence introducing a table ("... were as follows ($ in millions):"): the last
    sentence of a paragraph that ends with a colon, if short enough to repeat."""
    text = " ".join(paragraph.split())
    if not text.endswith(":"):
        return None
    sentence = re.split(r"(?<=[.!?])\s+(?=[A-Z])", text)[-1]
    return sentence if len(sentence.split()) <= MAX_LEAD_IN_WORDS else None


def clean_rows(rows: list[list[str]]) -> list[list[str]]:
    """Rows padded to one width, with "$", "%" and ")" cells joined to their number and empty
    rows and columns dropped (the layout of tables in EDGAR HTML)."""
    rows = [_join_fragments([" ".join(cell.split()) for cell in row]) for row in rows]
    width = max((len(row) for row in rows), default=0)
    grid = [row + [""] * (width - len(row)) for row in rows if any(row)]
    keep = [i for i in range(width) if any(row[i] for row in grid)]
    return [[row[i] for i in keep] for row in grid]


def resolve_spans(rows: list[list[tuple[str, int]]]) -> list[list[str]]:
    """Rows of ``(text, colspan)`` cells as a clean grid whose headers stand over their data.

    HTML filings give each "$", number and ")" its own cell and span the headers over them;
    a spanning cell's text goes to every data column it covers (data columns: those with
    text in cells of span 1, once fragments are joined), then :func:`clean_rows` applies.
    """
    grid: list[list[str]] = []
    spans: list[tuple[int, int, int]] = []
    for r, row in enumerate(rows):
        grid.append([])
        for text, span in row:
            if span > 1:
                spans.append((r, len(grid[-1]), span))
            grid[-1] += [" ".join(text.split())] + [""] * (max(span, 1) - 1)
    grid = [_join_fragments(row) for row in grid]
    starts = {(r, c) for r, c, _ in spans}
    data = {
        c for r, row in enumerate(grid) for c, t in enumerate(row) if t and (r, c) not in starts
    }
    for r, c, span in spans:
        targets = [i for i in range(c, c + span) if i in data]
        text, grid[r][c] = grid[r][c], ""
        for i in targets or [c]:
            grid[r][i] = text
    return clean_rows(grid)


def _join_fragments(row: list[str]) -> list[str]:
    cells = list(row)
    for i, cell in enumerate(cells):
        if cell in ("$", "€", "£", "¥") and i + 1 < len(cells) and cells[i + 1]:
            cells[i + 1], cells[i] = cell + cells[i + 1], ""
        elif cell in _FRAGMENTS and i > 0:
            previous = max((j for j in range(i) if cells[j]), default=None)
            if previous is not None:
                cells[previous], cells[i] = cells[previous] + cell, ""
    return cells


def header_count(rows: list[list[str]]) -> int:
    """How many leading rows are header rows: rows with column headings but no numbers
    (years and dates aside). A label-only row ("Current assets:") starts the body."""
    count = 0
    for row in rows[:MAX_HEADER_ROWS]:
        values = [c for c in row[1:] if c]
        if not values or any(_NUMBER.match(c) and not _YEARISH.match(c) for c in values):
            break
        count += 1
    return min(count, len(rows) - 1)


def to_markdown(table: Table) -> str:
    """The whole table: caption line, header row (header rows joined per column), rows."""
    caption, header, body = _split(table)
    return _render(caption, header, body)


def table_passages(
    table: Table,
    *,
    doc_id: str,
    page: int,
    number: int,
    item: str | None = None,
    budget: TokenBudget = ESTIMATED,
) -> list[Passage]:
    """The table as a passage, followed by its row groups when it does not fit the
    ``budget``'s table tokens.

    Ids: ``<doc_id>:p<page>:table<number>`` for the whole table, ``....<k>`` (k from 1) for
    its groups, whose ``parent_id`` is the whole table's id.
    """
    whole_id = f"{doc_id}:p{page}:table{number}"
    common = partial(Passage, doc_id=doc_id, page=page, kind="table", item=item)
    title = table.caption or None
    whole = common(id=whole_id, text=to_markdown(table), title=title)
    fits = budget.count(whole.text) <= budget.table
    groups = [] if fits else row_groups(table, budget.table, budget.count)
    parts = [
        common(id=f"{whole_id}.{k}", text=text, parent_id=whole_id, title=title)
        for k, text in enumerate(groups, start=1)
    ]
    return [whole, *parts] if len(parts) > 1 else [whole]


def row_groups(
    table: Table,
    max_tokens: int = ESTIMATED.table,
    count: Callable[[str], int] = ESTIMATED.count,
) -> list[str]:
    """Markdown row groups of about equal size under ``max_tokens`` (as ``count`` counts
    them; one row at least), each repeating the caption, the header row and the section row
    its first row falls under."""
    caption, header, body = _split(table)
    cost = partial(_cost, count, caption, header)
    greedy = _group(body, max_tokens, [len(body)], cost)
    groups_wanted = len(greedy)
    ends = [-(-(k + 1) * len(body) // groups_wanted) for k in range(groups_wanted)]
    even = _group(body, max_tokens, ends, cost)
    groups = even if len(even) == groups_wanted else greedy
    return [_render(caption, header, group) for group in groups]


def _group(
    body: list[list[str]],
    max_tokens: int,
    ends: list[int],
    cost: Callable[[list[list[str]]], int],
) -> list[list[list[str]]]:
    """Rows packed in order into groups under ``max_tokens``, group k ending by row
    ``ends[k]`` (the last end applies to any further group)."""
    groups: list[list[list[str]]] = []
    section: list[str] | None = None
    for index, row in enumerate(body):
        end = ends[min(len(groups), len(ends)) - 1] if groups else 0
        candidate = [*(groups[-1] if groups else []), row]
        if not groups or index >= end or cost(candidate) > max_tokens:
            groups.append([section, row] if section and not _is_section(row) else [row])
        else:
            groups[-1].append(row)
        if _is_section(row):
            section = row
    return groups


def _cost(
    count: Callable[[str], int], caption: str | None, header: list[str], rows: list[list[str]]
) -> int:
    return count(_render(caption, header, rows))


def _is_section(row: list[str]) -> bool:
    return bool(row and row[0]) and not any(row[1:])


def _split(table: Table) -> tuple[str | None, list[str], list[list[str]]]:
    """``(caption, header row, body rows)``: header rows joined per column, rows padded.

    Three or more words that start every column header ("Fair Value Measurements Using
    ... Level 1", "... Level 2") move to the caption, so repeating the header stays cheap.
    """
    width = max((len(row) for row in table.rows), default=0)
    grid = [list(row) + [""] * (width - len(row)) for row in table.rows]
    count = header_count(grid)
    header = [" ".join(row[i] for row in grid[:count] if row[i]) for i in range(width)]
    shared = _shared_prefix(header[1:])
    if not shared:
        return table.caption, header, grid[count:]
    header = header[:1] + [cell[len(shared) :].strip() for cell in header[1:]]
    caption = " ".join(part for part in (table.caption, shared) if part)
    return caption, header, grid[count:]


def _shared_prefix(cells: list[str]) -> str:
    """The leading words (three or more) common to all of ``cells`` (two cells at least),
    leaving each a word of its own."""
    if len(cells) < 2 or not all(cells):
        return ""
    split = [cell.split() for cell in cells]
    shared: list[str] = []
    for words in zip(*split, strict=False):
        if len(set(words)) > 1 or any(len(s) <= len(shared) + 1 for s in split):
            break
        shared.append(words[0])
    while shared and any(_NUMBER.match(s[len(shared)]) for s in split):
        shared.pop()  # keep "Level" with its "1"
    return " ".join(shared) if len(shared) >= MIN_SHARED_WORDS else ""


def _render(caption: str | None, header: list[str], rows: list[list[str]]) -> str:
    lines = [caption] if caption else []
    lines.append(_line(header))
    lines.append("|" + "|".join("---" for _ in header) + "|")
    lines += [_line(row) for row in rows]
    return "\n".join(lines)


def _line(cells: list[str]) -> str:
    return "| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |"


def add_table(blocks: list[Table | str], rows: list[list[str]]) -> None:
    """Append a table (caption taken from the title and units lines just before it)."""
    caption = _take_caption(blocks)
    if caption is None and blocks and isinstance(blocks[-1], str):
        caption = lead_in(blocks[-1])
    blocks.append(
        Table(id=f"t{sum(isinstance(b, Table) for b in blocks) + 1}", rows=rows, caption=caption)
    )


def _take_caption(blocks: list[Table | str]) -> str | None:
    """Remove and return the trailing title/units lines (at most three) of the text blocks."""
    taken: list[str] = []
    while blocks and isinstance(blocks[-1], str) and len(taken) < MAX_CAPTION_LINES:
        lines = blocks[-1].split("\n")
        while lines and _is_caption(lines[-1]) and len(taken) < MAX_CAPTION_LINES:
            taken.insert(0, lines.pop())
        if lines:
            blocks[-1] = "\n".join(lines)
            break
        blocks.pop()
    return " ".join(taken) or None


def _is_caption(line: str) -> bool:
    line = line.strip()
    if not line or parse_heading(line) or parse_part(line):
        return False
    short = len(line.split()) <= MAX_CAPTION_WORDS and not line.endswith((".", ":", ";"))
    return short or bool(_UNITS.search(line) and len(line) < 120)
