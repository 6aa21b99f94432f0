"""A filing's page as a PNG with a cited passage highlighted.

A PDF page is rendered by PDFium; its lines are found as ingestion finds them
(:mod:`~filingqa.retrieval.ingest.pdf_layout`) and those made of the passage's words are
shaded. A text or HTML filing has no layout to render: its page's text is drawn in a fixed
font, the passage's lines shaded the same way.
"""

from __future__ import annotations

import io
import re
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

import pypdfium2 as pdfium
from PIL import Image, ImageDraw, ImageFont

from filingqa.records import Passage
from filingqa.retrieval.ingest.filings import read_pages
from filingqa.retrieval.ingest.pdf_layout import Line, page_chars, page_lines

SCALE = 1.5  # pixels per PDF point
HIGHLIGHT = (255, 214, 10, 110)  # translucent yellow
MIN_SHARE = 0.7  # a line is the passage's when this share of its words is
TEXT_WIDTH = 110  # characters per drawn line of a text page
MONO_FONT = Path("/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf")
_WORD = re.compile(r"[a-z0-9]+(?:[.,][0-9]+)*")


class PageNotFound(LookupError):
    """The filing has no such page (or its file is gone)."""


def page_png(source: Path, page: int, passage: Passage | None) -> bytes:
    """Page ``page`` (1-based) of the filing at ``source`` as PNG bytes, ``passage``'s lines
    highlighted.

    Raises:
        PageNotFound: no such page, or the file cannot be read.
    """
    if not source.is_file():
        raise PageNotFound(f"{source.name} is not on disk")
    stat = source.stat()
    text = passage.text if passage is not None else ""
    return _rendered(str(source), stat.st_mtime_ns, page, text)


@lru_cache(maxsize=64)
def _rendered(source: str, mtime: int, page: int, passage_text: str) -> bytes:
    path = Path(source)
    words = frozenset(_words(passage_text))
    image = _pdf_page(path, page, words) if path.suffix.lower() == ".pdf" else None
    if image is None:
        image = _text_page(path, page, words)
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()


def _pdf_page(path: Path, number: int, words: frozenset[str]) -> Image.Image:
    try:
        document = pdfium.PdfDocument(path)
    except pdfium.PdfiumError as error:
        raise PageNotFound(f"{path.name} cannot be read: {error}") from None
    try:
        if not 1 <= number <= len(document):
            raise PageNotFound(f"{path.name} has {len(document)} pages, not {number}")
        page = document[number - 1]
        image = page.render(scale=SCALE).to_pil().convert("RGBA")
        textpage = page.get_textpage()
        try:
            lines = page_lines(page_chars(textpage, page.get_height()))
        finally:
            textpage.close()
        boxes = [_box(line) for line in lines if _is_passage_line(line.text, words)]
        return _shaded(image, [tuple(v * SCALE for v in box) for box in boxes])
    finally:
        document.close()


def _box(line: Line) -> tuple[float, float, float, float]:
    return (line.cells[0].x0 - 2, line.top - 2, line.cells[-1].x1 + 2, line.bottom + 2)


def _text_page(path: Path, number: int, words: frozenset[str]) -> Image.Image:
    try:
        pages = read_pages(path)
    except Exception as error:
        raise PageNotFound(f"{path.name} cannot be read: {error}") from None
    if not 1 <= number <= len(pages):
        raise PageNotFound(f"{path.name} has {len(pages)} pages, not {number}")
    lines = [
        wrapped[i : i + TEXT_WIDTH] or ""
        for raw in pages[number - 1].text.splitlines()
        for wrapped in [raw.rstrip()]
        for i in range(0, max(len(wrapped), 1), TEXT_WIDTH)
    ]
    font = _font()
    height = 20
    image = Image.new("RGBA", (TEXT_WIDTH * 9 + 40, len(lines) * height + 40), "white")
    draw = ImageDraw.Draw(image)
    for row, text in enumerate(lines):
        draw.text((20, 20 + row * height), text, fill="black", font=font)
    boxes = [
        (16.0, 18.0 + row * height, TEXT_WIDTH * 9 + 24.0, 20.0 + (row + 1) * height)
        for row, text in enumerate(lines)
        if _is_passage_line(text, words)
    ]
    return _shaded(image, boxes)


def _font() -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    if MONO_FONT.is_file():
        return ImageFont.truetype(str(MONO_FONT), 14)
    return ImageFont.load_default(size=14)


def _shaded(image: Image.Image, boxes: Sequence[tuple[float, ...]]) -> Image.Image:
    """``image`` with a translucent highlight over each box."""
    if not boxes:
        return image.convert("RGB")
    overlay = Image.new("RGBA", image.size, (0, 0, 0, 0))
    draw = ImageDraw.Draw(overlay)
    for box in boxes:
        draw.rectangle(box, fill=HIGHLIGHT)
    return Image.alpha_composite(image, overlay).convert("RGB")


def _is_passage_line(text: str, words: frozenset[str]) -> bool:
    """Whether a page line is made of the passage's words (two words at least)."""
    own = _words(text)
    return len(own) >= 2 and sum(w in words for w in own) >= MIN_SHARE * len(own)


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())
