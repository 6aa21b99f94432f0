"""Worked examples: solved questions from other filings, the nearest shown to the PoT writer.

Each example is a question with a program that reproduces its gold answer (derived from
the dataset's gold, never from the model's guesses; see
:mod:`~filingqa.optimizers.worked_example_pool`). For a new question the ``k`` examples
whose questions are most similar (cosine of their embeddings) are shown after the evidence
and before the question, so the evidence block stays the request's shared prefix and the
question is read last.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from pydantic import BaseModel, ConfigDict

from filingqa.retrieval.index.embedder import Embedder


class WorkedExample(BaseModel):
    """A solved question: its id in the dataset it came from, the question, the program."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    question: str
    program: str


class WorkedExamples:
    """The pool of worked examples and the embedder that finds the nearest ones.

    ``embedder`` defaults to the offline MiniLM (:meth:`Embedder.load`), loaded on the first
    search.
    """

    def __init__(self, examples: Sequence[WorkedExample], embedder: Embedder | None = None):
        if not examples:
            raise ValueError("a pool of worked examples needs at least one example")
        self.examples = list(examples)
        self._embedder = embedder
        self._vectors: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.examples)

    def __deepcopy__(self, memo: dict[int, object]) -> WorkedExamples:
        """The same pool: it is read-only, and DSPy's optimizers copy the modules that
        hold it."""
        return self

    def nearest(self, question: str, k: int) -> list[WorkedExample]:
        """The ``k`` examples most similar to ``question``, most similar first; an example
        asking the very same question is never one of them."""
        if k <= 0:
            return []
        query = self._unit(self.embedder.embed_query(question)[None, :])[0]
        similarity = self.vectors @ query
        order = np.argsort(-similarity, kind="stable")
        asked = " ".join(question.split()).lower()
        found = (self.examples[i] for i in order)
        return [e for e in found if " ".join(e.question.split()).lower() != asked][:k]

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = Embedder.load()
        return self._embedder

    @property
    def vectors(self) -> np.ndarray:
        """The examples' questions embedded, one unit row each."""
        if self._vectors is None:
            questions = [e.question for e in self.examples]
            self._vectors = self._unit(self.embedder.embed_passages(questions))
        return self._vectors

    @staticmethod
    def _unit(vectors: np.ndarray) -> np.ndarray:
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return vectors / np.where(norms == 0, 1.0, norms)


def shown(examples: Sequence[WorkedExample]) -> str | None:
    """The examples as the PoT writer reads them (None for none): each question, then its
    program in a fenced block."""
    if not examples:
        return None
    blocks = [f"Q: {e.question}\n```python\n{e.program}\n```" for e in examples]
    return "\n\n".join(blocks)
