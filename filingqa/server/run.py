"""Starting a server: the backbone, the program and the index loaded, then uvicorn."""

from __future__ import annotations

import shutil
import sys

from filingqa.artifacts.compiled import choose_program
from filingqa.artifacts.shipped import program_label
from filingqa.ask import SAMPLE_DOC, program_reranker, sample_filing
from filingqa.lm.backbone import Backbone, get_lm, is_embedded
from filingqa.retrieval.search.pipeline import SearchSettings
from filingqa.server.answering import ProgramAnswerer
from filingqa.server.app import create_app
from filingqa.server.library import Library
from filingqa.server.security import check_bind
from filingqa.server.settings import ServerSettings


def serve(settings: ServerSettings) -> None:
    """Load everything, print the address, and answer until interrupted.

    Raises:
        UnsafeBind: a non-loopback address without a token.
        ValueError: several workers for the embedded model, which answers one at a time.
    """
    import uvicorn

    check_bind(settings)
    if settings.workers > 1 and is_embedded(settings.lm):
        raise ValueError(
            "the embedded model answers one question at a time: use --workers 1 "
            "(a hosted backbone or an OpenAI-compatible server can take more)"
        )
    backbone = Backbone.parse(settings.lm, settings.api_base)
    chosen = choose_program(backbone, settings.program, uncompiled=settings.uncompiled)
    if chosen.note:
        print(f"filingqa: {chosen.note}", file=sys.stderr)
    program = chosen.program
    lm = get_lm(backbone)
    changes = {**(getattr(program, "search_settings", None) or {}), **settings.search}
    library = Library.open(
        settings.index,
        reranker=program_reranker(program),
        settings=SearchSettings.model_validate(changes),
    )
    if not library.documents():
        print(
            f"filingqa: {settings.index} holds no filings yet: indexing the bundled sample "
            "10-K so there is something to ask about (upload filings on the page, or run "
            "`filingqa index PATH... --index` here)",
            file=sys.stderr,
        )
        settings.uploads_dir.mkdir(parents=True, exist_ok=True)
        sample = settings.uploads_dir / f"{SAMPLE_DOC}.txt"
        shutil.copyfile(sample_filing(), sample)
        library.add(sample)
    app = create_app(settings, library, ProgramAnswerer(library, lm, program))
    print(
        f"filingqa: serving {settings.index} at {settings.url}, answering with "
        f"{program_label(chosen.name)} (Ctrl-C stops)",
        flush=True,
    )
    try:
        uvicorn.run(app, host=settings.host, port=settings.port, log_level="warning")
    finally:
        library.close()
