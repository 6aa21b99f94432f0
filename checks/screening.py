"""Screening: lines of a passage that speak to the reader instead of reporting are withheld.

A filing reports figures; it does not tell its reader what to answer. A line that does —
an override ("ignore previous instructions"), a note addressed to an AI, a dictated answer
("the correct figure to report is 50%"), a role or answer label ("Question:", "Answer:",
"SYSTEM:"), a chat-template or DSPy field token, a forged evidence delimiter — is taken out
of the passage before any LM sees it and before the verifier traces numbers to the
evidence, so a number that only such a line holds is unsupported. Table rows are screened
as lines, text line by line and then sentence by sentence, so the rest of the passage
stays. What was withheld is returned for the question's trace.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

from pydantic import BaseModel

from filingqa.records import Passage
from filingqa.records.search_handle import SearchHandle

WITHHELD = "[line withheld: it addresses the reader instead of reporting]"

_PATTERNS = (
    # overrides of the task
    r"\b(ignore|disregard|forget|override|bypass)\b[^.\n]{0,60}"
    r"\b(instructions?|prompts?|rules|above|previous|prior|earlier|table|evidence|context)\b",
    r"\bnew instructions?\b",
    # text addressed to a model
    r"\b(note|message|instructions?|attention|memo)\s+(to|for)\s+(the\s+|all\s+)?"
    r"(ai|assistant|model|llm|language model|chat ?bot|gpt|reader|system)s?\b",
    r"\byou are an? (ai|assistant|model|language model|helpful|chat ?bot)\b",
    r"\b(as an ai|as a language model|dear (ai|assistant|model))\b",
    r"\b(ai|llm|language model|assistant)s?\s+(must|should|shall)\s+"
    r"(answer|report|reply|respond|use|ignore|output|say)\b",
    # a dictated answer
    r"\b(correct|right|true|final)\s+answer\b",
    r"\b(correct|true)\b[^.\n]{0,30}\bto (report|give|answer)\b",
    r"\b(the|your)\s+answer\s+(is|should be|must be)\b",
    r"\byour (answer|response|reply|output)\b",
    r"(^|[.;:!]\s*)(always\s+)?(answer|reply|respond|output|return|say|report)\s+"
    r"(with|only|exactly|the number|as)\b",
    r"\balways\s+(report|answer|say|reply|output|use)\b",
    r"(^|[(,;:.]\s*)use this\b",
    r"(^|[.;:!]\s*)(do not|don't|never|refuse to)\s+(answer|respond|reply|compute|calculate)\b",
    # prompt structure: role and answer labels, template tokens, forged delimiters
    r"^\W{0,4}(question|answer|program|result|reasoning|system|user|assistant|human|q|a"
    r"|verifier|judge|automatic checks)\s*:",
    r"`{3}|\[\[\s*##|<\|[a-z_]+\|?>|\[/?inst\]|<<\s*/?sys\s*>>",
    r"^\s*-{3}\s*(page\b|end of evidence)",
    r"\"(answer|result|value)\"\s*:",
)
_INSTRUCTION = re.compile("|".join(f"(?:{p})" for p in _PATTERNS), re.IGNORECASE)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"'(])")


class Screening(BaseModel):
    """The screened passages and the lines (or sentences) withheld from them."""

    passages: list[Passage]
    withheld: list[str]


def screen(passages: Iterable[Passage]) -> Screening:
    """``passages`` with every line addressed to the reader withheld."""
    kept: list[Passage] = []
    withheld: list[str] = []
    for passage in passages:
        text, removed = screen_text(passage.text, table=passage.kind == "table")
        kept.append(passage.model_copy(update={"text": text}) if removed else passage)
        withheld += removed
    return Screening(passages=kept, withheld=withheld)


def screen_text(text: str, table: bool = False) -> tuple[str, list[str]]:
    """``text`` with instruction-like lines withheld, and what was withheld.

    A table row is withheld whole; in a text line only the offending sentences go, and a
    line left empty is replaced by :data:`WITHHELD` so the model sees that something was.
    """
    lines: list[str] = []
    removed: list[str] = []
    for line in text.splitlines():
        if not _INSTRUCTION.search(line):
            lines.append(line)
        elif table or line.lstrip().startswith("|"):
            removed.append(line.strip())
        else:
            sentences = _SENTENCE_END.split(line)
            bad = [s for s in sentences if _INSTRUCTION.search(s)]
            removed += [s.strip() for s in bad] if len(bad) < len(sentences) else [line.strip()]
            rest = " ".join(s for s in sentences if s not in bad)
            lines.append(rest if rest.strip() else WITHHELD)
    return "\n".join(lines), removed


def is_instruction(text: str) -> bool:
    """Whether ``text`` holds a line screening would withhold."""
    return any(_INSTRUCTION.search(line) for line in text.splitlines())


class ScreenedSearch:
    """A search handle whose passages come back screened; ``on_withheld`` hears of every
    line withheld. Anything else (such as ``covers``) is the wrapped handle's."""

    def __init__(self, inner: SearchHandle, on_withheld: Callable[[list[str]], None]) -> None:
        self.inner = inner
        self.on_withheld = on_withheld

    def search(
        self, query: str, *, k: int, company: str | None = None, period: str | None = None
    ) -> list[Passage]:
        """The wrapped handle's passages for ``query``, screened."""
        screening = screen(self.inner.search(query, k=k, company=company, period=period))
        if screening.withheld:
            self.on_withheld(screening.withheld)
        return screening.passages

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)
