"""The records every room shares: filings and their passages, QA records and their tables,
the search handle the program reads passages through, the refusal classification and the
answer-form type. They sit just above ``core`` so that no room reaches sideways for them."""

from filingqa.records.answer_form import AnswerForm, Asks
from filingqa.records.documents import DocType, Document, Passage, PassageKind
from filingqa.records.qa_record import (
    AnswerType,
    Context,
    Evidence,
    Page,
    Paragraph,
    QARecord,
    Scale,
    Table,
    Turn,
)
from filingqa.records.refusal import is_refusal
from filingqa.records.search_handle import SearchHandle

__all__ = [
    "AnswerForm",
    "AnswerType",
    "Asks",
    "Context",
    "DocType",
    "Document",
    "Evidence",
    "Page",
    "Paragraph",
    "Passage",
    "PassageKind",
    "QARecord",
    "Scale",
    "SearchHandle",
    "Table",
    "Turn",
    "is_refusal",
]
