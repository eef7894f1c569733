# SPDX-License-Identifier: MIT
"""The built site in Debian's Chromium, driven by Playwright: served on 127.0.0.1 and from disk.

`nox -s site` runs these. The browser is the system's (``apt-get install chromium``):
Playwright is only the driver here and downloads no browser.
"""

from __future__ import annotations

import functools
import os
import shutil
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from site_urls import ROOT, site_url

from helpers import mkdocs_build

# The real binary first: Debian's /usr/bin/chromium is a shell wrapper that outlives a kill.
CANDIDATES = (
    "/usr/lib/chromium/chromium",
    "/usr/lib/chromium/headless_shell",
    "chromium",
    "chromium-headless-shell",
)
INSTALL = (
    "Chromium is missing: install Debian's package (as root: apt-get install chromium), "
    "or name the browser in CHROMIUM=/path/to/chromium"
)


def chromium_path() -> str:
    """The system's Chromium: $CHROMIUM, else the first candidate that exists.

    Ends the whole run, once, with how to install it when there is none.
    """
    named = os.environ.get("CHROMIUM")
    if named:
        found = shutil.which(named)
        if found is None:
            pytest.exit(f"CHROMIUM={named} is not an executable", returncode=2)
        return found
    for candidate in CANDIDATES:
        found = shutil.which(candidate)
        if found:
            return found
    pytest.exit(INSTALL, returncode=2)


class _QuietHandler(SimpleHTTPRequestHandler):
    """Serve files without logging each request, and answer a missing one with 404.html.

    A missing page gets the site's 404 page with status 404, as static hosts answer.
    """

    def log_message(self, format: str, *args: object) -> None:
        return

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        page = Path(self.directory) / "404.html"
        if code != 404 or not page.is_file():
            super().send_error(code, message, explain)
            return
        body = page.read_bytes()
        self.send_response(404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)


@pytest.fixture(scope="session")
def site_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site, built once in strict mode from this checkout."""
    directory = tmp_path_factory.mktemp("site")
    result = mkdocs_build(ROOT, "--site-dir", str(directory))
    assert result.returncode == 0, result.stdout
    return directory


@pytest.fixture(scope="session")
def server(site_dir: Path) -> Iterator[str]:
    """The site served on 127.0.0.1 at a free port; its base URL, ending in a slash."""
    handler = functools.partial(_QuietHandler, directory=str(site_dir))
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    """Headless Chromium from the system, one for the whole run."""
    path = chromium_path()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=path, headless=True)
        try:
            yield chromium
        finally:
            chromium.close()


@dataclass
class Visit:
    """What a page did while it loaded and was used: its console errors and requests."""

    errors: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)


@pytest.fixture
def open_page(browser, server: str, site_dir: Path):
    """Open a page of the site by its path, `served` or from disk, at a given width.

    Returns a function `(path, *, served, width=1280) -> (page, visit)`; every page it
    opened is closed after the test.
    """
    contexts = []

    def _open(path: str, *, served: bool, width: int = 1280, **context_options: object):
        context = browser.new_context(viewport={"width": width, "height": 900}, **context_options)
        contexts.append(context)
        page = context.new_page()
        visit = Visit()
        page.on("console", lambda m: m.type == "error" and visit.errors.append(m.text))
        page.on("pageerror", lambda error: visit.errors.append(f"uncaught: {error}"))
        page.on("request", lambda request: visit.requests.append(request.url))
        page.goto(site_url(path, served=served, server=server, site_dir=site_dir))
        page.wait_for_load_state("load")
        return page, visit

    yield _open
    for context in contexts:
        context.close()
