"""Load on ``filingqa serve``: each part starts its own server on loopback and stops it.

(a) scripted backbone: ``--questions`` questions from ``--clients`` concurrent clients, with
    ``--uploads`` filing uploads during the run. A client turned away (503) waits the
    ``Retry-After`` it was given and asks again. Reported: completed, 503s (and whether all
    carried ``Retry-After``), other errors, lost questions (no answer in the end), latency
    p50/p95 from first attempt to answer, the server's own overhead per question (its
    ``Server-Timing`` total less the queue wait and the answering), peak RSS.
(b) the embedded model: ``--embedded-questions`` questions about the bundled sample filing
    from 3 concurrent clients, each answer compared with ``filingqa ask --index`` for the
    same question (run before the server starts; both from empty LM caches).
(c) ``kill -9`` of the server while an upload is being indexed, a restart, the same upload
    again: the filing is in the index once, as a clean build stores it, and the filing
    indexed before is untouched.

    python benchmarks/serve_load.py --parts a,b,c --json results/serve_load.json
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

DEFAULT_JSON = Path("results/serve_load.json")
CALL_SECONDS = 0.02  # what one scripted LM call takes
COMPANIES = ["Acme", "Globex", "Initech", "Umbrella", "Hooli", "Vandelay", "Wonka", "Stark"]
SAMPLE_QUESTIONS = [
    "What was Northwind's free cash flow in fiscal 2024?",
    "What was Northwind's total revenue in fiscal 2024?",
    "What was Northwind's net income in fiscal 2024?",
    "What were Northwind's purchases of property and equipment in fiscal 2024?",
    "What was Northwind's net cash provided by operating activities in fiscal 2024?",
    "By how much did Northwind's revenue change from fiscal 2023 to fiscal 2024?",
]


# --- a scripted server ----------------------------------------------------------------------


def scripted_reply(prompt: str) -> str:
    """One pass of the program in DSPy's chat format: no ambiguity, a rewrite, one
    hypothetical passage, the first three passages kept, a program returning the first
    revenue figure of the evidence, an accepting verifier."""
    from filingqa.signatures.ambiguity import DetectAmbiguity
    from filingqa.signatures.curate import CurateEvidence
    from filingqa.signatures.decompose import Decompose
    from filingqa.signatures.hyde import WriteHypotheticalPassages
    from filingqa.signatures.pot import WriteProgram
    from filingqa.signatures.rewrite import RewriteQuery
    from filingqa.signatures.verify import RefineQuestions, VerifyAnswer

    time.sleep(CALL_SECONDS)
    replies = {
        DetectAmbiguity: {"report": {"kind": "none", "reason": "", "interpretations": []}},
        RewriteQuery: {"company": "", "period": "", "variants": ["total revenue"]},
        WriteHypotheticalPassages: {"hypotheses": [{"query": "revenue", "passage": "Revenue"}]},
        CurateEvidence: {
            "keep": [1, 2, 3], "answerable": True, "missing": "", "complementary_query": ""
        },
        Decompose: {"steps": [{"kind": "retrieval", "question": "total revenue", "formula": ""}]},
        VerifyAnswer: {"reasons": ["matches"], "missing": "", "verdict": "ACCEPT"},
        RefineQuestions: {"queries": ["total revenue"]},
    }  # fmt: skip
    if _first_line(WriteProgram) in prompt:
        figure = re.search(r"\| Total revenue \| ([\d,.]+)", prompt)
        value = figure[1].replace(",", "") if figure else "0"
        return f"```python\nresult = {value}\n```"
    for signature, fields in replies.items():
        if _first_line(signature) in prompt:
            parts = [
                f"[[ ## {name} ## ]]\n{value if isinstance(value, str) else json.dumps(value)}"
                for name, value in fields.items()
            ]
            return "\n\n".join([*parts, "[[ ## completed ## ]]"])
    raise ValueError(f"no scripted reply for: {prompt[:200]!r}")


def _first_line(signature: type) -> str:
    return str(signature.__doc__).strip().splitlines()[0]


def run_scripted_server(index: Path, port: int) -> None:
    """A server over ``index`` answering with the scripted backbone (a subprocess)."""
    import dspy
    import uvicorn

    from filingqa.lm.reply_engine import ReplyEngine
    from filingqa.server.answering import ProgramAnswerer
    from filingqa.server.app import create_app
    from filingqa.server.library import Library
    from filingqa.server.settings import ServerSettings

    settings = ServerSettings(index=index, port=port, workers=1, queue=8)
    lm = dspy.LM("scripted/serve", engine=ReplyEngine(scripted_reply), cache=False, num_retries=0)
    library = Library.open(index)
    app = create_app(settings, library, ProgramAnswerer(library, lm, program=None))
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


def ten_k(company: str, year: int, revenue: float) -> str:
    """A three-page plain-text 10-K: cover, MD&A, statement of operations."""
    return "\f".join(
        [
            f"FORM 10-K\n\nANNUAL REPORT for the fiscal year ended December 31, {year}\n\n"
            f"{company} Corporation\n(Exact name of registrant as specified in its charter)\n",
            f"Item 7. Management's Discussion and Analysis\n\n{company} grew revenue in "
            f"fiscal {year} on demand for its services.\n",
            "Item 8. Financial Statements\n\nConsolidated Statements of Operations\n"
            f"(In millions)\n| | {year} | {year - 1} |\n|---|---|---|\n"
            f"| Total revenue | {revenue:,.1f} | {revenue * 0.9:,.1f} |\n"
            f"| Net income | {revenue * 0.1:,.1f} | {revenue * 0.08:,.1f} |\n",
        ]
    )


# --- servers ----------------------------------------------------------------------------------


@dataclass
class Server:
    """A server subprocess on loopback."""

    process: subprocess.Popen[bytes]
    url: str
    log: Path

    def peak_rss_mb(self) -> float:
        status = Path(f"/proc/{self.process.pid}/status").read_text()
        return int(re.search(r"VmHWM:\s+(\d+) kB", status)[1]) / 1024

    def stop(self, kill: bool = False) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL if kill else signal.SIGINT)
            self.process.wait(60)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start(command: list[str], port: int, log: Path, env: dict[str, str] | None = None) -> Server:
    """Start ``command`` and wait until its server is ready."""
    out = log.open("ab")
    process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env)
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 600
    while time.time() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server stopped (exit {process.returncode}); see {log}")
        try:
            if httpx.get(f"{url}/readyz", timeout=2).status_code == 200:
                return Server(process, url, log)
        except httpx.TransportError:
            pass
        time.sleep(0.3)
    process.kill()
    raise RuntimeError(f"the server did not get ready; see {log}")


def scripted_server(index: Path, log: Path) -> Server:
    port = free_port()
    command = [sys.executable, __file__, "_scripted-server", str(index), str(port)]
    return start(command, port, log)


def build_index(index: Path, files: list[Path]) -> None:
    subprocess.run(
        ["filingqa", "index", *map(str, files), "--index", str(index), "--quiet"], check=True
    )


# --- (a) scripted load ------------------------------------------------------------------------


@dataclass
class Tally:
    """What the clients saw."""

    latencies: list[float] = field(default_factory=list)
    overheads: list[float] = field(default_factory=list)
    busy: int = 0
    busy_with_retry_after: int = 0
    errors: list[str] = field(default_factory=list)
    lost: int = 0


async def ask_until_answered(client: httpx.AsyncClient, question: str, tally: Tally) -> None:
    """Ask, waiting out each 503's Retry-After, until answered (or an error: lost)."""
    started = time.perf_counter()
    for _ in range(1000):
        try:
            response = await client.post("/v1/ask", json={"question": question}, timeout=600)
        except httpx.HTTPError as error:
            tally.errors.append(f"{type(error).__name__}: {error}")
            tally.lost += 1
            return
        if response.status_code == 503:
            tally.busy += 1
            retry = response.headers.get("retry-after")
            tally.busy_with_retry_after += retry is not None
            await asyncio.sleep(float(retry or 1))
            continue
        if response.status_code != 200 or not response.json().get("answer"):
            tally.errors.append(f"{response.status_code}: {response.text[:200]}")
            tally.lost += 1
            return
        tally.latencies.append(time.perf_counter() - started)
        timing = dict(part.split(";dur=") for part in response.headers["server-timing"].split(", "))
        spent = float(timing["total"]) - float(timing["queue"]) - float(timing["answer"])
        tally.overheads.append(spent / 1000)
        return
    tally.lost += 1


async def upload(client: httpx.AsyncClient, path: Path) -> dict:
    """Upload ``path`` and wait for its job to finish."""
    response = await client.post(
        "/v1/filings", params={"name": path.name}, content=path.read_bytes()
    )
    response.raise_for_status()
    job = response.json()
    while job["state"] in ("queued", "running"):
        await asyncio.sleep(0.2)
        job = (await client.get(f"/v1/jobs/{job['id']}")).json()
    return job


async def drive(
    url: str, questions: list[str], clients: int, uploads: list[Path]
) -> tuple[Tally, list[dict]]:
    tally = Tally()
    todo: asyncio.Queue[str] = asyncio.Queue()
    for question in questions:
        todo.put_nowait(question)
    limits = httpx.Limits(max_connections=clients + len(uploads) + 5)
    async with httpx.AsyncClient(base_url=url, limits=limits) as client:

        async def worker() -> None:
            while not todo.empty():
                await ask_until_answered(client, todo.get_nowait(), tally)

        async def uploader() -> list[dict]:
            jobs = []
            for path in uploads:
                await asyncio.sleep(2)
                jobs.append(await upload(client, path))
            return jobs

        results = await asyncio.gather(uploader(), *(worker() for _ in range(clients)))
    return tally, results[0]


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.ceil(share * len(ordered)) - 1)] if ordered else 0.0


def part_a(work: Path, questions: int, clients: int, uploads: int) -> dict:
    filings = work / "a-filings"
    filings.mkdir(parents=True)
    paths = []
    for n, company in enumerate(COMPANIES):
        path = filings / f"{company.upper()}_2024_10K.txt"
        path.write_text(ten_k(company, 2024, 1000.0 + 137 * n))
        paths.append(path)
    build_index(work / "a-index", paths[: len(paths) - uploads])
    asked = [
        f"What was {COMPANIES[n % (len(COMPANIES) - uploads)]}'s total revenue in fiscal 2024?"
        for n in range(questions)
    ]
    server = scripted_server(work / "a-index", work / "a-server.log")
    try:
        started = time.perf_counter()
        tally, jobs = asyncio.run(drive(server.url, asked, clients, paths[len(paths) - uploads :]))
        wall = time.perf_counter() - started
        listed = httpx.get(f"{server.url}/v1/filings").json()
        rss = server.peak_rss_mb()
    finally:
        server.stop()
    return {
        "questions": questions,
        "clients": clients,
        "completed": len(tally.latencies),
        "busy_503": tally.busy,
        "busy_503_with_retry_after": tally.busy_with_retry_after,
        "other_errors": len(tally.errors),
        "error_examples": tally.errors[:5],
        "lost": tally.lost,
        "latency_p50_s": round(percentile(tally.latencies, 0.5), 3),
        "latency_p95_s": round(percentile(tally.latencies, 0.95), 3),
        "overhead_p50_ms": round(1000 * percentile(tally.overheads, 0.5), 2),
        "overhead_p95_ms": round(1000 * percentile(tally.overheads, 0.95), 2),
        "uploads": [{k: job[k] for k in ("doc_id", "state", "passages", "error")} for job in jobs],
        "filings_after": len(listed),
        "peak_rss_mb": round(rss, 1),
        "wall_s": round(wall, 1),
    }


# --- (b) the embedded model -------------------------------------------------------------------


def fresh_home(work: Path, name: str) -> dict[str, str]:
    """An environment whose FILINGQA_HOME is empty but for the pulled models (no LM cache)."""
    from filingqa.core.config import home_dir

    home = work / name
    home.mkdir()
    (home / "models").symlink_to(home_dir() / "models")
    return {**os.environ, "FILINGQA_HOME": str(home)}


def part_b(work: Path, questions: int) -> dict:
    from filingqa.ask import sample_filing

    index = work / "b-index"
    build_index(index, [sample_filing()])
    asked = SAMPLE_QUESTIONS[:questions]
    env = fresh_home(work, "b-home-ask")
    by_ask = {}
    for question in asked:
        done = subprocess.run(
            ["filingqa", "ask", question, "--index", str(index), "--json"],
            capture_output=True, text=True, env=env, check=True,
        )  # fmt: skip
        by_ask[question] = json.loads(done.stdout)
    port = free_port()
    command = ["filingqa", "serve", "--index", str(index), "--port", str(port)]
    server = start(command, port, work / "b-server.log", env=fresh_home(work, "b-home-serve"))
    try:
        started = time.perf_counter()
        served = asyncio.run(_ask_all(server.url, asked, clients=3))
        wall = time.perf_counter() - started
        rss = server.peak_rss_mb()
    finally:
        server.stop()
    rows = [
        {
            "question": q,
            "ask": by_ask[q]["answer"],
            "serve": served[q].get("answer"),
            "same_answer": by_ask[q]["answer"] == served[q].get("answer"),
            "same_working": by_ask[q]["working"] == served[q].get("working"),
            "serve_seconds": served[q].get("seconds"),
        }
        for q in asked
    ]
    return {
        "questions": len(asked),
        "answered": sum(bool(r["serve"]) for r in rows),
        "identical": sum(r["same_answer"] for r in rows),
        "rows": rows,
        "peak_rss_mb": round(rss, 1),
        "wall_s": round(wall, 1),
    }


async def _ask_all(url: str, questions: list[str], clients: int) -> dict[str, dict]:
    answers: dict[str, dict] = {}
    todo = list(questions)
    async with httpx.AsyncClient(base_url=url, timeout=3600) as client:

        async def worker() -> None:
            while todo:
                question = todo.pop(0)
                for _ in range(100):
                    response = await client.post("/v1/ask", json={"question": question})
                    if response.status_code != 503:
                        break
                    await asyncio.sleep(float(response.headers["retry-after"]))
                answers[question] = response.json() if response.status_code == 200 else {}

        await asyncio.gather(*(worker() for _ in range(clients)))
    return answers


# --- (c) kill -9 during an upload -------------------------------------------------------------


def part_c(work: Path, pdf: Path) -> dict:
    from filingqa.retrieval.index.filters import SearchFilters
    from filingqa.retrieval.index.passage_index import PassageIndex

    first = work / "c-filings" / "ACME_2024_10K.txt"
    first.parent.mkdir(parents=True)
    first.write_text(ten_k("Acme", 2024, 1250.0))
    index, clean = work / "c-index", work / "c-clean"
    build_index(index, [first])
    build_index(clean, [first, pdf])
    doc = pdf.stem

    def counts(location: Path) -> dict[str, int]:
        with PassageIndex.open(location) as opened:
            return {
                name: opened.count(SearchFilters(doc_ids=name)) for name in (first.stem, doc)
            } | {"all": opened.count()}

    before = counts(index)
    server = scripted_server(index, work / "c-server.log")
    response = httpx.post(
        f"{server.url}/v1/filings", params={"name": pdf.name}, content=pdf.read_bytes(), timeout=120
    )
    job_id = response.json()["id"]
    while httpx.get(f"{server.url}/v1/jobs/{job_id}").json()["state"] == "queued":
        time.sleep(0.1)
    time.sleep(2.0)  # well into reading and embedding
    state_at_kill = httpx.get(f"{server.url}/v1/jobs/{job_id}").json()["state"]
    server.stop(kill=True)
    killed_counts = counts(index)
    server = scripted_server(index, work / "c-server.log")
    try:
        job = asyncio.run(_upload_once(server.url, pdf))
        listed = [f["doc_id"] for f in httpx.get(f"{server.url}/v1/filings").json()]
    finally:
        server.stop()
    after, expected = counts(index), counts(clean)
    uploads = work / "c-index.uploads"
    return {
        "pdf": pdf.name,
        "state_at_kill": state_at_kill,
        "passages_before": before,
        "passages_after_kill": killed_counts,
        "job_after_restart": {k: job[k] for k in ("state", "passages", "error")},
        "passages_after": after,
        "passages_clean_build": expected,
        "filing_in_index_once": after[doc] == expected[doc] and after["all"] == expected["all"],
        "earlier_filing_untouched": after[first.stem] == before[first.stem],
        "listed_once": listed.count(doc) == 1,
        "files_left_incoming": sorted(p.name for p in (uploads / ".incoming").glob("*"))
        if (uploads / ".incoming").is_dir()
        else [],
        "uploads": sorted(p.name for p in uploads.glob("*") if p.is_file()),
    }


async def _upload_once(url: str, path: Path) -> dict:
    async with httpx.AsyncClient(base_url=url, timeout=600) as client:
        return await upload(client, path)


# --- the command ------------------------------------------------------------------------------


def largest_financebench_pdf(data_dir: Path) -> Path:
    pdfs = sorted(
        (data_dir / "financebench" / "pdfs").glob("*.pdf"), key=lambda p: p.stat().st_size
    )
    if not pdfs:
        raise SystemExit(f"no FinanceBench PDFs under {data_dir}: give --pdf")
    return pdfs[len(pdfs) // 2]  # a median filing: long enough to be killed mid-way


def report(results: dict) -> str:
    lines = []
    if "a" in results:
        a = results["a"]
        lines += [
            f"(a) scripted: {a['questions']} questions, {a['clients']} clients, "
            f"{len(a['uploads'])} uploads, {a['wall_s']} s",
            f"    completed {a['completed']}  503s {a['busy_503']} "
            f"(with Retry-After {a['busy_503_with_retry_after']})  other errors "
            f"{a['other_errors']}  lost {a['lost']}",
            f"    latency p50 {a['latency_p50_s']} s  p95 {a['latency_p95_s']} s  "
            f"server overhead p50 {a['overhead_p50_ms']} ms  p95 {a['overhead_p95_ms']} ms  "
            f"peak RSS {a['peak_rss_mb']} MB",
            "    uploads: " + ", ".join(f"{u['doc_id']} {u['state']}" for u in a["uploads"]),
        ]
    if "b" in results:
        b = results["b"]
        lines.append(
            f"(b) embedded: {b['answered']}/{b['questions']} answered, {b['identical']} identical "
            f"to `filingqa ask`, {b['wall_s']} s, peak RSS {b['peak_rss_mb']} MB"
        )
        lines += [
            f"    {(r['same_answer'] and 'same') or 'DIFF'}  {r['question']}  ask: {r['ask']!r}  "
            f"serve: {r['serve']!r}"
            for r in b["rows"]
        ]
    if "c" in results:
        c = results["c"]
        lines.append(
            f"(c) kill -9 during upload ({c['pdf']}, job {c['state_at_kill']} when killed): "
            f"in the index once {c['filing_in_index_once']}, earlier filing untouched "
            f"{c['earlier_filing_untouched']}, listed once {c['listed_once']}, "
            f"partial files left {c['files_left_incoming']}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "_scripted-server":
        run_scripted_server(Path(argv[1]), int(argv[2]))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--parts", default="a,b,c", help="which parts to run: a, b, c")
    parser.add_argument("--questions", type=int, default=200)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--uploads", type=int, default=3)
    parser.add_argument("--embedded-questions", type=int, default=6)
    parser.add_argument("--pdf", type=Path, help="the filing uploaded in (c)")
    parser.add_argument("--data-dir", type=Path, default=Path("../shared/datasets"))
    parser.add_argument("--json", type=Path, default=DEFAULT_JSON)
    parser.add_argument("--keep", action="store_true", help="keep the work folder")
    args = parser.parse_args(argv)
    parts = [p.strip() for p in args.parts.split(",")]
    work = Path(tempfile.mkdtemp(prefix="filingqa-serve-load-"))
    results: dict = {"date": time.strftime("%Y-%m-%d")}
    try:
        if "a" in parts:
            results["a"] = part_a(work, args.questions, args.clients, args.uploads)
        if "b" in parts:
            results["b"] = part_b(work, args.embedded_questions)
        if "c" in parts:
            results["c"] = part_c(work, args.pdf or largest_financebench_pdf(args.data_dir))
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    print(report(results))
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(results, indent=2) + "\n")
    print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
