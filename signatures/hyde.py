"""Multi-HyDE: several different queries, each with the filing passage that would answer it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated

import dspy
from pydantic import BaseModel, ConfigDict, Field, RootModel

# Length bounds for decoding under a JSON-schema grammar only (json_schema_extra: a longer
# reply from an API backbone still validates). Unbounded, a small model can enumerate items
# inside one passage until the token limit.
QUERY_CHARS, PASSAGE_CHARS = 160, 400


class HypotheticalPassage(BaseModel):
    """A search query and a short made-up filing excerpt that would answer it."""

    query: str = Field(min_length=3, json_schema_extra={"maxLength": QUERY_CHARS})
    passage: str = Field(min_length=10, json_schema_extra={"maxLength": PASSAGE_CHARS})


class WriteHypotheticalPassages(dspy.Signature):
    """Write different search queries for the question, each with a short passage in the
    style of a 10-K or 10-Q that would answer it (a table row or an MD&A sentence).

    The queries must differ in what they look for (statement line, note, MD&A wording,
    segment table), not only in wording. Numbers in the passages are placeholders.
    """

    question: str = dspy.InputField()
    count: int = dspy.InputField(desc="how many query/passage pairs to write")
    hypotheses: list[HypotheticalPassage] = dspy.OutputField()


class Hypotheses(RootModel[list[HypotheticalPassage]]):
    """Hypothetical passages, iterable and sliceable like the list they hold."""

    def __iter__(self) -> Iterator[HypotheticalPassage]:  # type: ignore[override]
        return iter(self.root)

    def __getitem__(self, index: slice) -> list[HypotheticalPassage]:
        return self.root[index]

    def __len__(self) -> int:
        return len(self.root)


def write_hypothetical_passages(count: int) -> type[WriteHypotheticalPassages]:
    """The signature with ``hypotheses`` bounded to ``count`` items under a JSON-schema
    grammar, which closes the list there: unbounded, a small model goes on writing pairs
    until the step's token cap cuts the reply. A longer list from an API backbone still
    validates."""
    bounds = {"minItems": min(count, 1), "maxItems": count}

    class BoundedHypotheses(Hypotheses):
        model_config = ConfigDict(title="Hypotheses")
        root: Annotated[list[HypotheticalPassage], Field(json_schema_extra=bounds)]

    return WriteHypotheticalPassages.with_updated_fields("hypotheses", type_=BoundedHypotheses)
