"""Ingestion jobs: each upload is indexed in turn by one background thread, beside the
answering; a job reports its stage while it runs and its result or error when done."""

from __future__ import annotations

import queue
import threading
import time
import uuid
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from filingqa.server.library import Library

JobState = Literal["queued", "running", "done", "failed"]


class Job(BaseModel):
    """One upload's ingestion: its state, and what it added or why it failed."""

    id: str
    file: str = Field(description="the stored file name")
    doc_id: str = Field(description="the document id the filing is indexed under")
    state: JobState = "queued"
    passages: int | None = Field(default=None, description="passages of the filing now stored")
    pages: int | None = None
    error: str | None = Field(default=None, description="why the filing could not be indexed")
    submitted: float = Field(default_factory=time.time)
    finished: float | None = None


class IngestJobs:
    """Upload jobs, run one at a time by a daemon thread (:meth:`close` stops it)."""

    def __init__(self, library: Library) -> None:
        self.library = library
        self._jobs: dict[str, Job] = {}
        self._todo: queue.Queue[tuple[Job, Path] | None] = queue.Queue()
        self._worker = threading.Thread(target=self._run, name="filingqa-ingest", daemon=True)
        self._worker.start()

    def submit(self, path: Path) -> Job:
        """Queue the filing at ``path`` for indexing."""
        job = Job(id=uuid.uuid4().hex, file=path.name, doc_id=path.stem)
        self._jobs[job.id] = job
        self._todo.put((job, path))
        return job

    def get(self, job_id: str) -> Job | None:
        """The job ``job_id``, or None."""
        return self._jobs.get(job_id)

    def close(self, timeout: float | None = None) -> None:
        """Finish the job at hand and stop."""
        self._todo.put(None)
        self._worker.join(timeout)

    def _run(self) -> None:
        while (task := self._todo.get()) is not None:
            job, path = task
            job.state = "running"
            try:
                report = self.library.add(path)
            except Exception as failure:  # a job fails alone: the server goes on
                job.state, job.error = "failed", f"{type(failure).__name__}: {failure}"
            else:
                if report.failures:
                    first = report.failures[0]
                    job.state, job.error = "failed", f"{first.reason}: {first.detail}"
                else:
                    document = self.library.document(job.doc_id)
                    job.state, job.pages = "done", document.pages if document else None
                    job.passages = report.passages
            job.finished = time.time()
