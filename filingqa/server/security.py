"""The lock-down: where a server may listen, who may call it, and what it accepts.

A server binds to loopback unless a token is set; a token is sent as a bearer token and
compared in constant time. Uploads are bounded in size and recognised by their content (a
PDF's signature, HTML markup, or UTF-8 text), never by their name; stored names keep only
safe characters, so no upload can name a path outside the uploads folder.
"""

from __future__ import annotations

import hmac
import re
from pathlib import Path
from typing import Literal

from filingqa.server.settings import TOKEN_VARIABLE, ServerSettings, is_loopback

FilingKind = Literal["pdf", "html", "text"]
SUFFIXES: dict[FilingKind, str] = {"pdf": ".pdf", "html": ".html", "text": ".txt"}
_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")
_HTML = re.compile(rb"<\s*(!doctype\s+html|html|body|table|div|p)\b", re.IGNORECASE)
SNIFF_BYTES = 4096
_CLAIMS: dict[str, FilingKind] = {".pdf": "pdf", ".htm": "html", ".html": "html", ".txt": "text"}
_CLAIM_WORDS: dict[FilingKind, str] = {"pdf": "a PDF", "html": "HTML", "text": "plain text"}


class UnsafeBind(ValueError):
    """The server was asked to listen beyond loopback without a token."""


class RejectedUpload(ValueError):
    """An upload that is not a filing this server reads; the message says why."""


def check_bind(settings: ServerSettings) -> None:
    """Refuse a non-loopback address unless a token is set.

    Raises:
        UnsafeBind: ``settings.host`` is reachable from other machines and no token is set.
    """
    if settings.token is None and not is_loopback(settings.host):
        raise UnsafeBind(
            f"refusing to listen on {settings.host} without a token: set {TOKEN_VARIABLE} "
            "(clients send it as 'Authorization: Bearer <token>'), or bind to 127.0.0.1"
        )


def authorized(settings: ServerSettings, header: str | None) -> bool:
    """Whether an ``Authorization`` header carries the server's token (always, without
    one); compared in constant time."""
    if settings.token is None:
        return True
    scheme, _, given = (header or "").partition(" ")
    expected = settings.token.get_secret_value().encode()
    return scheme.lower() == "bearer" and hmac.compare_digest(given.strip().encode(), expected)


def filing_kind(head: bytes) -> FilingKind:
    """What an upload is, from its first bytes.

    Raises:
        RejectedUpload: neither a PDF, nor HTML, nor UTF-8 text.
    """
    if head.startswith(b"%PDF-"):
        return "pdf"
    if b"\x00" in head:
        raise RejectedUpload("not a filing: binary content that is not a PDF")
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as error:
        if error.start < len(head) - 4:  # a character cut at the sniffed length is fine
            raise RejectedUpload("not a filing: neither a PDF nor UTF-8 text or HTML") from None
    return "html" if _HTML.search(head) else "text"


def upload_kind(name: str, head: bytes) -> FilingKind:
    """What an upload named ``name`` is, from its content; a name claiming another kind
    (a text file renamed ``.pdf``, a PDF named ``.txt``) is refused.

    Raises:
        RejectedUpload: the content is no filing, or the name contradicts it.
    """
    kind = filing_kind(head)
    claimed = _CLAIMS.get(Path(name).suffix.lower())
    if claimed is not None and (claimed == "pdf") != (kind == "pdf"):
        found = "a PDF" if kind == "pdf" else f"{'HTML' if kind == 'html' else 'plain text'}"
        raise RejectedUpload(
            f"{Path(name).name!r} is named as {_CLAIM_WORDS[claimed]} but its content is {found}"
        )
    return kind


def stored_name(name: str, kind: FilingKind) -> str:
    """A safe file name for an upload: its stem's safe characters (the document id), the
    suffix of what its content is.

    Raises:
        RejectedUpload: nothing of the name is left.
    """
    base = Path(name.replace("\\", "/")).name
    stem = base.rsplit(".", 1)[0] if "." in base.strip(".") else base
    stem = _UNSAFE.sub("_", stem).strip("._")
    if not stem:
        raise RejectedUpload(f"unusable file name {name!r}: give a name such as ACME_2024_10K.pdf")
    return f"{stem[:120]}{SUFFIXES[kind]}"
