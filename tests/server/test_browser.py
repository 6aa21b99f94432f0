"""The page in a real browser: Debian's Chromium, headless, driven by Playwright, against the
app served by uvicorn on a loopback port (the small index, the scripted program LM).

Asks with the keyboard, sees the steps and the answer, opens a citation's page image; uploads
a filing and sees it indexed; enters a token when the server asks for one. Skipped without
Chromium, except in CI (``CI=true``), where ``.ci/run`` installs it. With
``FILINGQA_SCREENSHOT=PATH`` the 1280x800 screenshot of the answered question is saved there
(``docs/serve-page.png`` is one).
"""

from __future__ import annotations

import os
import shutil
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
import uvicorn
from pydantic import SecretStr

from filingqa.server.answering import ProgramAnswerer
from filingqa.server.library import Library
from filingqa.server.settings import ServerSettings

from .conftest import QUESTION, program_lm, serving

IN_CI = os.environ.get("CI", "").lower() == "true"
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
VIEWPORT = {"width": 1280, "height": 800}
WAIT_MS = 15_000


def _chromium() -> str | None:
    found = shutil.which("chromium")
    if found is None and Path("/usr/bin/chromium").is_file():
        found = "/usr/bin/chromium"
    return found


def _unavailable(why: str) -> None:
    if IN_CI:
        pytest.fail(f"{why}: CI must run the browser test (.ci/run installs Chromium)")
    pytest.skip(why)


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    """Debian's Chromium, headless (never a downloaded browser)."""
    executable = _chromium()
    if executable is None:
        _unavailable("Chromium is not installed (apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("Playwright is not installed (pip install -e '.[dev]')")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=executable, headless=True, args=CHROMIUM_ARGS
        )
        yield launched
        launched.close()


class Served:
    """The app under uvicorn on a free loopback port, in a background thread."""

    def __init__(self, settings: ServerSettings, library: Library) -> None:
        app = serving(settings, library, ProgramAnswerer(library, program_lm(), None))
        self.socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.socket.bind(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.socket.getsockname()[1]}/"
        config = uvicorn.Config(app, log_level="warning", lifespan="on")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [self.socket]}, daemon=True
        )

    def __enter__(self) -> Served:
        self.thread.start()
        for _ in range(200):
            if self.server.started:
                return self
            self.thread.join(0.05)
        raise AssertionError("the server did not start")

    def __exit__(self, *_: object) -> None:
        self.server.should_exit = True
        self.thread.join(30)
        self.socket.close()


@pytest.fixture
def served(settings: ServerSettings, library: Library) -> Iterator[Served]:
    with Served(settings, library) as running:
        yield running


@pytest.fixture
def page(browser, served: Served) -> Iterator[object]:
    """A fresh tab on the page; fails the test on a script error or a console error such as
    a CSP violation (not on a refused request, which the page shows itself)."""
    context = browser.new_context(viewport=VIEWPORT)
    tab = context.new_page()
    tab.set_default_timeout(WAIT_MS)
    problems: list[str] = []

    def console(message) -> None:
        if message.type == "error" and not message.text.startswith("Failed to load resource"):
            problems.append(f"console: {message.text}")

    tab.on("pageerror", lambda error: problems.append(f"script error: {error}"))
    tab.on("console", console)
    tab.goto(served.url)
    yield tab
    context.close()
    assert not problems, problems


def test_a_question_asked_on_the_page_shows_its_steps_answer_and_cited_page(
    page, tmp_path: Path
) -> None:
    page.get_by_label("Question").fill(QUESTION)
    page.get_by_label("Question").press("Enter")

    page.locator("#steps li").first.wait_for()
    answer = page.locator("#answer-text")
    answer.get_by_text("1,250 million").wait_for()
    assert page.locator("#outcome").inner_text().lower() == "answered"
    assert page.locator("#program").inner_text() == "Answered by the uncompiled program"
    assert page.locator("#steps li").count() >= 3
    assert page.get_by_role("button", name="Ask").is_enabled()
    assert "revenue = 1250  # Total revenue" in page.locator("#working").inner_text()

    citation = page.get_by_role("button", name="ACME_2024_10K · page 3")
    citation.click()
    image = page.get_by_role("img", name="Page 3 of ACME_2024_10K")
    image.wait_for()
    page.wait_for_function(
        "() => { const i = document.getElementById('page-image');"
        " return i.complete && i.naturalWidth > 0; }"
    )
    page.get_by_text("ACME_2024_10K, page 3: the cited table is highlighted.").wait_for()
    assert citation.get_attribute("aria-pressed") == "true"
    assert "| Total revenue | 1,250.0 | 900.0 |" in page.locator("#cited-text").inner_text()

    shot = Path(os.environ.get("FILINGQA_SCREENSHOT") or tmp_path / "serve-page.png")
    shot.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(shot))
    assert shot.stat().st_size > 10_000


def test_a_filing_uploaded_on_the_page_is_indexed_and_listed(page, filings) -> None:
    documents = page.locator("#documents input[type=checkbox]")
    documents.nth(1).wait_for()
    assert documents.count() == 2
    page.get_by_label("Company").select_option(label="Globex Inc. (GBX)")
    assert documents.count() == 1 and documents.get_attribute("value") == "GLOBEX_2024Q2_10Q"
    page.get_by_label("Company").select_option(label="All companies")

    page.get_by_label("Filing (PDF, HTML or text)").set_input_files(filings[0])
    page.get_by_role("button", name="Upload").click()

    page.locator("#upload-message").get_by_text("ACME_2023_10K is indexed").wait_for()
    assert page.locator("#upload-stages li[data-stage=done]").get_attribute("aria-current")
    page.locator("#documents input[value=ACME_2023_10K]").wait_for()
    assert documents.count() == 3
    assert "3 filings" in page.locator("#index-summary").inner_text()


@pytest.fixture
def settings(tmp_path: Path, request: pytest.FixtureRequest) -> ServerSettings:
    """The conftest's settings; with the token a test gives by indirect parametrization."""
    token = getattr(request, "param", None)
    return ServerSettings(
        index=tmp_path / "index",
        max_upload_bytes=200_000,
        token=SecretStr(token) if token else None,
    )


@pytest.mark.parametrize("settings", ["browser-test-token"], indirect=True)
def test_a_server_with_a_token_asks_for_it_and_the_page_then_works(page) -> None:
    page.get_by_role("heading", name="Access token").wait_for()
    assert page.locator("#documents input").count() == 0

    page.get_by_label("Token", exact=True).fill("wrong")
    page.get_by_label("Token", exact=True).press("Enter")
    page.get_by_text("The server refused this token").wait_for()

    page.get_by_label("Token", exact=True).fill("browser-test-token")
    page.get_by_role("button", name="Use this token").click()
    page.locator("#documents input[value=ACME_2024_10K]").wait_for()
    assert page.locator("#token-panel").is_hidden()
