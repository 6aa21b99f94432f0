"""The one typed record every dataset loader returns: :class:`QARecord` and its parts."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

if TYPE_CHECKING:
    import dspy

AnswerType = Literal["number", "yes_no", "span", "multi_span", "count", "explanation"]
Scale = Literal["", "thousand", "million", "billion", "percent"]
AnswerValue = float | bool | list[str] | None

SCALE_FACTORS: dict[str, int] = {"thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000}

# Which Python type ``answer_value`` must have for each answer type (None: no value).
_VALUE_TYPES: dict[str, type | None] = {
    "number": float,
    "count": float,
    "yes_no": bool,
    "span": list,
    "multi_span": list,
    "explanation": None,
}


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Evidence(_Model):
    """One gold supporting fact: where it is and what it says."""

    doc_name: str
    page: int | None = Field(default=None, ge=0, description="0-indexed page; None if unknown")
    text: str = ""
    table_rows: list[int] = Field(default_factory=list, description="gold table row indices")
    text_ids: list[str] = Field(default_factory=list, description="ids of gold paragraphs")


class Table(_Model):
    """A table as rows of cell strings (row 0 is usually the header)."""

    id: str
    rows: list[list[str]]
    caption: str | None = Field(default=None, description="caption or units line, if known")

    def render(self) -> str:
        """The table as pipe-separated lines, caption first."""
        lines = [self.caption] if self.caption else []
        lines += ["| " + " | ".join(row) + " |" for row in self.rows]
        return "\n".join(lines)


class Paragraph(_Model):
    """A passage of text with the id the dataset's evidence refers to."""

    id: str
    text: str


class Page(_Model):
    """The extracted text of one page of a filing."""

    doc_name: str
    page: int = Field(ge=0, description="0-indexed page")
    text: str


class Context(_Model):
    """The gold context a question may be answered from (tables, paragraphs, pages)."""

    tables: list[Table] = Field(default_factory=list)
    paragraphs: list[Paragraph] = Field(default_factory=list)
    pages: list[Page] = Field(default_factory=list)

    def render(self) -> str:
        """All of the context as one plain-text block."""
        parts = [table.render() for table in self.tables]
        parts += [f"[{p.id}] {p.text}" for p in self.paragraphs]
        parts += [f"--- {p.doc_name}, page {p.page} ---\n{p.text}" for p in self.pages]
        return "\n\n".join(parts)


class Turn(_Model):
    """A previous turn of a conversation."""

    question: str
    answer: str
    program: str | None = None


class QARecord(_Model):
    """One question with its gold answer, evidence and (optionally) gold context.

    ``answer_value`` is the machine-comparable gold in the dataset's own convention:
    a float for ``number``/``count`` (FinQA/ConvFinQA give percentages as fractions,
    TAT-QA and FinanceBench as percentages with ``scale="percent"``), a bool for
    ``yes_no``, the list of gold spans for ``span``/``multi_span``, None for
    ``explanation``. ``scale`` is the multiplier the answer is stated in
    (``3.5`` with ``million`` means 3.5 million).
    """

    id: str = Field(min_length=1)
    dataset: str = Field(min_length=1)
    split: str = Field(min_length=1)
    question: str = Field(min_length=1)
    answer: str
    answer_value: AnswerValue = None
    answer_type: AnswerType
    scale: Scale = ""
    unit: str | None = None
    evidence: list[Evidence] = Field(default_factory=list)
    context: Context | None = None
    documents: list[str] = Field(default_factory=list)
    gold_program: str | None = None
    history: list[Turn] = Field(default_factory=list)
    meta: dict[str, Any] = Field(default_factory=dict)

    @field_validator("answer_value", mode="before")
    @classmethod
    def _int_to_float(cls, value: Any) -> Any:
        if isinstance(value, int) and not isinstance(value, bool):
            return float(value)
        return value

    @model_validator(mode="after")
    def _check_consistency(self) -> QARecord:
        expected = _VALUE_TYPES[self.answer_type]
        value = self.answer_value
        ok = value is None if expected is None else type(value) is expected
        if not ok:
            raise ValueError(
                f"{self.id}: answer_type {self.answer_type!r} needs answer_value of type "
                f"{expected.__name__ if expected else 'None'}, got {value!r}"
            )
        if not self.documents:
            self.documents = list(dict.fromkeys(ev.doc_name for ev in self.evidence))
        return self

    @property
    def spec(self) -> str:
        """``name:split`` of the dataset this record came from."""
        return f"{self.dataset}:{self.split}"

    def context_text(self) -> str:
        """The conversation so far (if any) followed by the rendered gold context."""
        parts = []
        if self.history:
            turns = [f"Q: {t.question}\nA: {t.answer}" for t in self.history]
            parts.append("Conversation so far:\n" + "\n".join(turns))
        if self.context:
            parts.append(self.context.render())
        return "\n\n".join(parts)

    def to_dspy_example(self) -> dspy.Example:
        """This record as a ``dspy.Example``.

        Inputs: ``question`` and ``context`` (:meth:`context_text`: prior turns, then the
        gold context; empty in open-corpus datasets). Labels: ``answer``,
        ``answer_value``, ``answer_type``, ``scale``, ``unit``, ``gold_program``; also
        ``id``, ``dataset`` and ``documents`` for bookkeeping.
        """
        import dspy

        return dspy.Example(
            question=self.question,
            context=self.context_text(),
            answer=self.answer,
            answer_value=self.answer_value,
            answer_type=self.answer_type,
            scale=self.scale,
            unit=self.unit,
            gold_program=self.gold_program,
            id=self.id,
            dataset=self.dataset,
            documents=self.documents,
        ).with_inputs("question", "context")
