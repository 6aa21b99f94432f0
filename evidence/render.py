"""Evidence as the LM reads it: passages rendered under plain page headers, fitted to the
evidence budget.

Passages are data, never instructions: FinancialQA screens them first
(:mod:`~filingqa.checks.screening` withholds lines addressed to the reader), then
:func:`render` delimits each one and quotes any line that could pass for prompt structure
(a page header, a ``Question:``/``Answer:`` label, a code fence, a DSPy field marker, a
chat-template token), and :func:`fit` cuts a passage larger than the evidence budget (a
10,000-row table) down to the rows the question needs. Ids are kept for citations, not
shown to the model.
"""

from __future__ import annotations

import re

from filingqa.records.documents import Passage

EVIDENCE_END = "--- end of evidence ---"
# Lines of a passage that could be read as the prompt's own structure rather than as text.
_STRUCTURE = re.compile(
    r"^\s*(-{3}|`{3}|\[\[\s*#|<\|"
    r"|(question|answer|evidence|program|result|reasoning|instructions?|system|user|assistant)"
    r"\s*:)",
    re.IGNORECASE,
)
_TOKEN = re.compile(r"[a-z0-9]+")


def render(passages: list[Passage]) -> str:
    """The passages as the LM sees them: a plain header line, the quoted text, and one
    closing line after the last passage (empty for no passages).

    No identifiers are shown: small models read labels such as ``[T1]`` as Python
    variables. Citations are recovered afterwards by tracing the program's numbers.
    """
    if not passages:
        return ""
    blocks = [f"--- page {p.page}, {p.kind} ---\n{quote(p.text)}" for p in passages]
    return "\n\n".join([*blocks, EVIDENCE_END])


def quote(text: str) -> str:
    """``text`` with every line that looks like prompt structure prefixed by ``> ``, and
    chat-template tokens (``<|im_start|>``) broken up; numbers and words are kept."""
    lines = [f"> {line}" if _STRUCTURE.match(line) else line for line in text.splitlines()]
    return "\n".join(lines).replace("<|", "< |").replace("|>", "| >")


def fit(passage: Passage, question: str, budget_chars: int) -> Passage:
    """``passage`` cut to ``budget_chars`` when larger: a table keeps its caption and header
    and the rows sharing most words with ``question`` (in table order), a text its start.

    A note line says how much was left out, so the model does not take the cut for the whole.
    """
    if len(passage.text) <= budget_chars:
        return passage
    lines = passage.text.splitlines()
    if passage.kind != "table":
        cut = passage.text[:budget_chars].rsplit(" ", 1)[0]
        note = f"[... {len(passage.text) - len(cut):,} more characters not shown]"
        return passage.model_copy(update={"text": f"{cut}\n{note}"})
    head = _table_head(lines)
    rows = lines[len(head) :]
    wanted = set(_TOKEN.findall(question.lower()))
    ranked = sorted(
        range(len(rows)), key=lambda i: -len(wanted & set(_TOKEN.findall(rows[i].lower())))
    )
    used = sum(len(line) + 1 for line in head) + 60
    kept: list[int] = []
    for index in ranked:
        if used + len(rows[index]) + 1 > budget_chars:
            break
        kept.append(index)
        used += len(rows[index]) + 1
    shown = [rows[i] for i in sorted(kept)]
    note = f"[... {len(rows) - len(shown):,} more rows not shown]"
    return passage.model_copy(update={"text": "\n".join([*head, *shown, note])})


def within_budget(passages: list[Passage], question: str, budget_chars: int) -> list[Passage]:
    """``passages`` in order while they fit ``budget_chars``; the first one is cut to the
    budget (:func:`fit`) rather than dropped, so there is always evidence to show."""
    chosen: list[Passage] = []
    used = 0
    for passage in passages:
        if not chosen:
            passage = fit(passage, question, budget_chars)
        elif used + len(passage.text) > budget_chars:
            continue
        chosen.append(passage)
        used += len(passage.text)
    return chosen


def _table_head(lines: list[str]) -> list[str]:
    """Caption and header lines of a table: up to its ``|---|`` separator, else up to and
    including its first row."""
    for index, line in enumerate(lines[:10]):
        if re.fullmatch(r"\s*\|?[\s:|-]*-{3}[\s:|-]*\|?\s*", line):
            return lines[: index + 1]
    first_row = next((i for i, line in enumerate(lines) if line.lstrip().startswith("|")), 0)
    return lines[: first_row + 1]
