"""Search filters: which documents, companies, periods and Items a search may return, as
Qdrant payload conditions."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from filingqa.records.documents import DocType, PassageKind
from filingqa.retrieval.index.point_store import Condition
from filingqa.retrieval.vocabulary.companies import normalise_company


def item_key(item: str) -> str:
    """A 10-K/10-Q Item for matching: ``"Item 7A."``, ``"ITEM 7A"`` and ``"7a"`` -> ``"7a"``."""
    lowered = item.casefold()
    found = re.search(r"item\s*(\d+[a-z]?)\b", lowered) or re.fullmatch(
        r"\s*(\d+[a-z]?)\W*", lowered
    )
    return found.group(1) if found else " ".join(lowered.split())


def _as_list(value: object) -> object:
    if value is None or isinstance(value, list | tuple):
        return value
    return [value]


_OneOrMore = (BeforeValidator(_as_list), Field(min_length=1))

_Strings = Annotated[list[str] | None, *_OneOrMore]
_Ints = Annotated[list[int] | None, *_OneOrMore]
_DocTypes = Annotated[list[DocType] | None, *_OneOrMore]
_Kinds = Annotated[list[PassageKind] | None, *_OneOrMore]


class SearchFilters(BaseModel):
    """Payload filters; each field takes one value or a non-empty list (any of); fields AND.

    ``company`` matches the normalised company name or the ticker; ``item`` matches
    ``"Item 7"``, ``"item 7"`` or ``"7"`` alike.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    company: _Strings = None
    doc_ids: _Strings = None
    doc_type: _DocTypes = None
    fiscal_year: _Ints = None
    fiscal_quarter: _Ints = None
    item: _Strings = None
    kind: _Kinds = None

    def conditions(self) -> list[Condition]:
        """``(payload key, accepted normalised values)`` pairs, one per field set."""
        fields: list[tuple[str, list[Any] | None, Callable[[Any], str | int]]] = [
            ("company_key", self.company, normalise_company),
            ("doc_id", self.doc_ids, str),
            ("doc_type", self.doc_type, str),
            ("fiscal_year", self.fiscal_year, int),
            ("fiscal_quarter", self.fiscal_quarter, int),
            ("item_key", self.item, item_key),
            ("kind", self.kind, str),
        ]
        return [
            (key, tuple(dict.fromkeys(normalise(v) for v in values)))
            for key, values, normalise in fields
            if values is not None
        ]
