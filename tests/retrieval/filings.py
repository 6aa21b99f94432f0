"""Synthetic filings and a fake embedder for the corpus and search tests.

Two companies, three filings with EDGAR-like cover pages (form, period, registrant, ticker):
Acme's fiscal 2023 and 2024 10-Ks (plain text, pages split by form feeds) and Globex's
Q2 2024 10-Q (HTML). Each reports revenue and net income in a table, with different numbers.
"""

from __future__ import annotations

import re
import zlib
from pathlib import Path

import numpy as np

from filingqa.retrieval.index.embedder import Embedder

DIM = 32
SYNONYMS = {
    **dict.fromkeys(["revenue", "revenues", "sales"], 0),
    **dict.fromkeys(["income", "profit", "earnings"], 1),
    **dict.fromkeys(["cash", "liquidity"], 2),
    **dict.fromkeys(["risk", "risks"], 3),
    **dict.fromkeys(["employees", "headcount"], 4),
}


class FakeEncoder:
    """Bag of words into 32 dimensions (synonyms share one); can fail on its n-th call."""

    def __init__(self, fail_on_call: int | None = None) -> None:
        self.calls = 0
        self.fail_on_call = fail_on_call
        self.texts: list[str] = []

    def __call__(self, texts: list[str]) -> np.ndarray:
        self.calls += 1
        self.texts += texts
        if self.calls == self.fail_on_call:
            raise KeyboardInterrupt("simulated kill")
        out = np.zeros((len(texts), DIM), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in re.findall(r"[a-z]+", text.lower()):
                column = SYNONYMS.get(word, 8 + zlib.crc32(word.encode()) % (DIM - 9))
                out[row, column] += 1.0 if word in SYNONYMS else 0.2
            out[row, DIM - 1] = 0.05
        return out


def fake_embedder(encoder: FakeEncoder | None = None) -> Embedder:
    """An :class:`Embedder` over :class:`FakeEncoder` (no cache)."""
    return Embedder("fake-bag-of-words", DIM, encoder or FakeEncoder())


def count_pieces(text: str) -> int:
    """A tokenizer's count, faked: one token per word or punctuation mark."""
    return len(re.findall(r"\w+|[^\w\s]", text))


def windowed_embedder(encoder: FakeEncoder | None = None, window: int = 120) -> Embedder:
    """:func:`fake_embedder` that reads ``window`` tokens (:func:`count_pieces`): its index
    cuts passages to fit and embeds them under a header."""
    return Embedder(
        "fake-bag-of-words",
        DIM,
        encoder or FakeEncoder(),
        window=window,
        count_tokens=count_pieces,
    )


def ten_k(company: str, ticker: str, year: int, revenue: str, income: str) -> str:
    """A three-page plain-text 10-K: cover, MD&A, statement of operations."""
    cover = (
        "UNITED STATES SECURITIES AND EXCHANGE COMMISSION\n\nFORM 10-K\n\n"
        f"ANNUAL REPORT for the fiscal year ended December 31, {year}\n\n"
        f"{company}\n(Exact name of registrant as specified in its charter)\n\n"
        f"Title of each class Trading Symbol(s) Name of exchange\n"
        f"Common Stock {ticker} New York Stock Exchange\n"
    )
    mdna = (
        "PART II\n\nItem 7. Management's Discussion and Analysis\n\n"
        f"In fiscal {year} our employees focused on field service. Liquidity remained strong "
        "with cash from operations covering capital spending.\n"
    )
    statement = (
        "Item 8. Financial Statements and Supplementary Data\n\n"
        "Consolidated Statements of Operations\n(In millions)\n"
        f"| | {year} | {year - 1} |\n|---|---|---|\n"
        f"| Total revenue | {revenue} | 900.0 |\n"
        f"| Net income | {income} | 80.0 |\n"
    )
    return "\f".join([cover, mdna, statement])


def ten_q_html(company: str, ticker: str, revenue: str) -> str:
    """An HTML 10-Q for the quarter ended June 30, 2024, two pages."""
    return (
        "<html><body><p>FORM 10-Q</p>"
        "<p>QUARTERLY REPORT for the quarterly period ended June 30, 2024</p>"
        f"<p>{company} (Exact name of registrant as specified in its charter)</p>"
        f"<p>Trading Symbol(s) {ticker} Nasdaq</p>"
        '<hr style="page-break-after: always">'
        "<p>Item 2. Management's Discussion and Analysis</p>"
        "<p>Condensed Consolidated Statements of Operations (In millions)</p>"
        "<table><tr><td></td><td>Three months ended June 30, 2024</td></tr>"
        f"<tr><td>Revenue</td><td>{revenue}</td></tr>"
        "<tr><td>Net income</td><td>45.5</td></tr></table>"
        "</body></html>"
    )


def write_filings(folder: Path) -> list[Path]:
    """ACME_2023_10K.txt, ACME_2024_10K.txt and GLOBEX_2024Q2_10Q.html under ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    files = {
        "ACME_2023_10K.txt": ten_k("Acme Corporation", "ACME", 2023, "1,000.0", "100.0"),
        "ACME_2024_10K.txt": ten_k("Acme Corporation", "ACME", 2024, "1,250.0", "140.0"),
        "GLOBEX_2024Q2_10Q.html": ten_q_html("Globex Inc.", "GBX", "333.3"),
    }
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    return [folder / name for name in files]
