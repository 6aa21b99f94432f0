"""What a server runs with: where it listens, what it answers from, and its limits."""

from __future__ import annotations

import ipaddress
import os
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, SecretStr

from filingqa.lm.backbone import LOCAL

TOKEN_VARIABLE = "FILINGQA_API_TOKEN"
MAX_QUESTION_CHARS = 2000
MAX_UPLOAD_BYTES = 50 * 1024 * 1024
MAX_JSON_BYTES = 16 * 1024


class ServerSettings(BaseModel):
    """A server's configuration; :meth:`from_environment` reads the token."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    index: Path = Field(description="the index the questions search and uploads go to")
    lm: str = Field(default=LOCAL, description="the backbone, as `--lm` takes it")
    api_base: str | None = None
    program: Path | None = Field(
        default=None,
        description="a compiled artifact to answer with (default: the shipped one compiled for "
        "the backbone, else the uncompiled program)",
    )
    uncompiled: bool = Field(default=False, description="answer with the uncompiled program")
    search: dict[str, Any] = Field(
        default_factory=dict,
        description="SearchSettings changes the questions search with (the remote rerank stage)",
    )
    host: str = "127.0.0.1"
    port: int = Field(default=8000, ge=0, le=65535)
    workers: int = Field(default=1, ge=1, description="questions answered at once")
    queue: int = Field(default=8, ge=0, description="questions waiting for a worker, at most")
    token: SecretStr | None = Field(default=None, description="the bearer token, if any")
    cors_origins: tuple[str, ...] = ()
    max_upload_bytes: int = Field(default=MAX_UPLOAD_BYTES, ge=1)
    max_json_bytes: int = Field(default=MAX_JSON_BYTES, ge=1)
    max_question_chars: int = Field(default=MAX_QUESTION_CHARS, ge=1)
    uploads: Path | None = Field(default=None, description="where uploads are kept")

    @classmethod
    def from_environment(cls, **values: object) -> ServerSettings:
        """Settings from ``values``, the token from ``FILINGQA_API_TOKEN`` when not given."""
        token = values.pop("token", None) or os.environ.get(TOKEN_VARIABLE) or None
        return cls.model_validate({**values, "token": token})

    @property
    def uploads_dir(self) -> Path:
        """Where uploaded filings are stored: ``<index>.uploads`` unless set."""
        return self.uploads or self.index.with_name(f"{self.index.name}.uploads")

    @property
    def url(self) -> str:
        """The address the server prints (an IPv6 host in brackets)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/"


def is_loopback(host: str) -> bool:
    """Whether ``host`` names this machine only (``localhost``, 127.0.0.0/8, ``::1``)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
