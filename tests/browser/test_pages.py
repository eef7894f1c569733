# SPDX-License-Identifier: MIT
"""Every page of the built site, in Chromium, served on 127.0.0.1 and opened from disk."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from playwright.sync_api import expect
from site_urls import CLAIM_BOXES, DOCS, PAGES, ROOT, WHERE, is_inside

SCREENSHOTS = ROOT / "site-screenshots"

# LaTeX left in a page's text: a command, display dollars, a dollar before a command, or
# arithmatex's own \( \) and \[ \] wrappers (what a page shows when no MathML replaced them).
RAW_MATH = r"\\[a-zA-Z]+[{_^]|\$\$|\$\\|\\\(|\\\["
# The pages whose Markdown holds math: each must show at least one MathML formula.
WITH_MATH = {
    path.relative_to(DOCS).with_suffix(".html").as_posix()
    for path in DOCS.rglob("*.md")
    if "$" in re.sub(r"`[^`]*`|```.*?```", "", path.read_text(encoding="utf-8"), flags=re.DOTALL)
}
# The pages with a code block, which must fit their boxes.
WITH_CODE = sorted(
    path.relative_to(DOCS).with_suffix(".html").as_posix()
    for path in DOCS.rglob("*.md")
    if "hooks" not in path.parts and re.search(r"^\s*(```|~~~)", path.read_text("utf-8"), re.M)
)
TEXT_OUTSIDE_CODE = """() => {
    const article = document.querySelector("article").cloneNode(true);
    article.querySelectorAll("pre, code, script, math").forEach((node) => node.remove());
    return article.textContent;
}"""
MATH_BOXES = """() => Array.from(document.querySelectorAll("math"), (math) => {
    const box = math.getBoundingClientRect();
    return [box.width, box.height];
})"""
OVERFLOWING_CODE = """() => Array.from(document.querySelectorAll(".highlight code"))
    .filter((code) => code.scrollWidth > code.clientWidth)
    .map((code) => code.textContent.split("\\n").reduce((a, b) => (b.length > a.length ? b : a)))"""


@WHERE
@pytest.mark.parametrize("path", PAGES)
def test_a_page_loads_with_no_error_no_request_off_the_site_and_rendered_math(
    open_page, server, site_dir, path, served
) -> None:
    """No console error or uncaught exception, nothing fetched elsewhere, math drawn."""
    page, visit = open_page(path, served=served)
    page.wait_for_load_state("networkidle")
    assert visit.errors == []
    assert [
        url for url in visit.requests if not is_inside(url, server=server, site_dir=site_dir)
    ] == []
    boxes = page.evaluate(MATH_BOXES)
    assert bool(boxes) == (path in WITH_MATH)
    assert all(width > 0 and height > 0 for width, height in boxes)
    assert re.search(RAW_MATH, page.evaluate(TEXT_OUTSIDE_CODE)) is None


def test_the_math_check_sees_the_pages_with_math() -> None:
    """The pages whose formulas are checked include the two that state the rule."""
    assert {"index.html", "trainer-configuration.html"} <= WITH_MATH


@pytest.mark.parametrize("width", [1280, 1920])
@pytest.mark.parametrize("path", WITH_CODE)
def test_no_code_block_is_wider_than_its_box(open_page, path, width) -> None:
    """At desktop widths every example fits: no highlighted code scrolls sideways."""
    page, _ = open_page(path, served=True, width=width)
    assert page.locator(".highlight code").count() > 0
    assert page.evaluate(OVERFLOWING_CODE) == []
    white_space = "(code) => getComputedStyle(code).whiteSpace"
    assert set(
        page.locator(".highlight code").evaluate_all(f"(all) => all.map({white_space})")
    ) == {"pre"}


@WHERE
@pytest.mark.parametrize("width", [1280, 375])
def test_search_lists_the_trainer_page(open_page, served, width) -> None:
    """Searching num_trained_rows lists the trainer page, on a desktop and on a phone."""
    page, visit = open_page("index.html", served=served, width=width)
    if width < 1220:
        # On a phone the header shows only the search icon, which opens the search.
        page.click("label.md-header__button[for='__search']")
    else:
        page.click("input.md-search__input")
    # Typed once the opened search has focused its input, as a reader types.
    page.wait_for_function("() => document.activeElement?.matches('input.md-search__input')")
    search = page.locator("input.md-search__input")
    search.press_sequentially("num_trained_rows")
    assert search.input_value() == "num_trained_rows"
    # Material searches on every key: wait for the results of the whole query.
    expect(page.locator(".md-search-result__meta")).to_have_text(
        re.compile(r"^\d+ matching documents?$"), timeout=10_000
    )
    expect(
        page.locator(".md-search-result__item a[href*='trainer-configuration.html']").first
    ).to_be_visible()
    assert visit.errors == []


@WHERE
def test_every_internal_link_and_anchor_resolves(open_page, server, site_dir, served) -> None:
    """Each link between pages names a page of the site, and each #anchor an id on it."""
    ids: dict[str, set[str]] = {}
    links: list[tuple[str, str]] = []
    for path in PAGES:
        page, _ = open_page(path, served=served)
        ids[page.url.split("#")[0]] = set(
            page.evaluate("() => Array.from(document.querySelectorAll('[id]'), (e) => e.id)")
        )
        hrefs = page.evaluate(
            "() => Array.from(document.querySelectorAll('a[href]'), (a) => a.href)"
        )
        links += [
            (path, href) for href in hrefs if is_inside(href, server=server, site_dir=site_dir)
        ]
        page.close()
    broken = []
    for source, href in links:
        target, _, anchor = href.partition("#")
        if target.endswith("/"):
            target += "index.html"
        if target not in ids or (anchor and anchor not in ids[target]):
            broken.append((source, href))
    assert len(links) > 10 * len(PAGES)
    assert any("#" in href for _, href in links)
    assert broken == []


@WHERE
def test_the_palette_toggle_switches_between_light_and_dark(open_page, served) -> None:
    """The header's toggle turns the light scheme dark, and back."""
    page, visit = open_page("index.html", served=served)
    scheme = "() => document.body.getAttribute('data-md-color-scheme')"
    assert page.evaluate(scheme) == "default"
    page.locator("form[data-md-component='palette'] label:visible").click()
    assert page.evaluate(scheme) == "slate"
    page.locator("form[data-md-component='palette'] label:visible").click()
    assert page.evaluate(scheme) == "default"
    assert visit.errors == []


NOT_FOUND_STATUS = "Failed to load resource: the server responded with a status of 404 (Not Found)"


def _styled_with_search(page) -> list[str]:
    """The page has the theme's styled header, its script ran, and search finds a page."""
    header = "() => getComputedStyle(document.querySelector('.md-header')).position"
    assert page.evaluate(header) == "sticky"
    assert page.evaluate("() => document.documentElement.classList.contains('js')")
    page.click("input.md-search__input")
    page.locator("input.md-search__input").press_sequentially("retention")
    expect(page.locator(".md-search-result__item a").first).to_be_visible(timeout=10_000)
    return page.locator(".md-search-result__item a").evaluate_all("(a) => a.map((x) => x.href)")


def test_the_404_page_from_disk_is_styled(open_page, site_dir) -> None:
    """404.html read from disk loads the theme and runs search, with links beside it."""
    page, visit = open_page("404.html", served=False)
    page.wait_for_load_state("networkidle")
    links = _styled_with_search(page)
    assert all(link.startswith(site_dir.as_uri() + "/") for link in links)
    assert visit.errors == []


def test_a_missing_page_served_gets_the_styled_404_page(open_page, server) -> None:
    """A server's answer to a missing page is the 404 page, styled, its search from the root."""
    page, visit = open_page("missing.html", served=True)
    page.wait_for_load_state("networkidle")
    assert page.title().startswith("rolloutnorm")
    links = _styled_with_search(page)
    assert all(link.startswith(server) and "/missing" not in link for link in links)
    # The one error is the browser's note on the page's own status, 404: nothing else failed.
    assert visit.errors == [NOT_FOUND_STATUS]


def test_a_missing_page_deeper_down_gets_the_404_page_with_search_from_the_root(
    open_page, server
) -> None:
    """Deeper down, only the preload scanner's first guesses at the assets fail (documented)."""
    page, visit = open_page("reference/missing.html", served=True)
    page.wait_for_load_state("networkidle")
    links = _styled_with_search(page)
    assert all(link.startswith(server) and "/reference/search" not in link for link in links)
    assert set(visit.errors) == {NOT_FOUND_STATUS}


def test_the_copy_button_of_a_doctest_block_copies_runnable_code(open_page) -> None:
    """Copying a doctest block gives its code, no prompts or outputs; the page still shows them."""
    page, _ = open_page(
        "trainer-configuration.html", served=True, permissions=["clipboard-read", "clipboard-write"]
    )
    block = page.locator("div.highlight[data-copy]").first
    block.hover()
    block.locator("button.md-clipboard, button.md-code__button").first.click()
    copied = page.evaluate("() => navigator.clipboard.readText()")
    assert ">>>" not in copied
    assert "..." not in copied.replace("...)", "")
    compile(copied, "<copied>", "exec")
    assert ">>>" in block.inner_text()


@pytest.mark.parametrize("path", ["trainer-configuration.html"])
def test_a_table_key_wraps_only_at_a_dot_or_an_underscore(open_page, path) -> None:
    """At a phone's width each line of a wrapped configuration key ends at `.` or `_`."""
    page, _ = open_page(path, served=True, width=375)
    lines = page.evaluate(
        """() => Array.from(document.querySelectorAll("table code"), (code) => {
            const range = document.createRange();
            const tops = [];
            let line = "";
            const out = [];
            for (const node of code.childNodes) {
                if (node.nodeType !== Node.TEXT_NODE) continue;
                for (let i = 0; i < node.length; i++) {
                    range.setStart(node, i);
                    range.setEnd(node, i + 1);
                    const top = Math.round(range.getBoundingClientRect().top);
                    if (tops.length && top !== tops[tops.length - 1]) { out.push(line); line = ""; }
                    tops.push(top);
                    line += node.data[i];
                }
            }
            out.push(line);
            return out;
        })"""
    )
    wrapped = [key for key in lines if len(key) > 1]
    assert wrapped, "no key wraps at 375 px: the check proves nothing"
    assert all(line[-1] in "._" for key in wrapped for line in key[:-1])


@pytest.mark.parametrize("scheme", ["default", "slate"])
@pytest.mark.parametrize("path", PAGES)
def test_screenshot_of_every_page_in_both_palettes(open_page, path, scheme) -> None:
    """A full-page screenshot of each page in each palette, for people to look at."""
    page, _ = open_page(path, served=True, color_scheme="dark" if scheme == "slate" else "light")
    assert page.evaluate("() => document.body.getAttribute('data-md-color-scheme')") == scheme
    target = SCREENSHOTS / f"{Path(path).with_suffix('').as_posix().replace('/', '-')}-{scheme}.png"
    target.parent.mkdir(exist_ok=True)
    page.screenshot(path=str(target), full_page=True)
    assert target.stat().st_size > 0


WORKER = """addEventListener("message", (event) => {
    if (event.data === "boom") {
        throw new Error("boom");
    }
    postMessage({ echo: event.data, ownArray: event.data instanceof Array });
});
"""
WORKER_PAGE = """<!doctype html><html><head><script src="iframe-worker.js"></script></head>
<body><script>
window.seen = [];
window.worker = new Worker("worker.js");
worker.onmessage = (event) => seen.push(["onmessage", event.data]);
worker.addEventListener("message", (event) => seen.push(["listener", event.data.echo]));
worker.addEventListener("error", (event) => seen.push(["error", event.message]));
worker.postMessage([1]);
worker.postMessage([2]);
</script></body></html>
"""


def test_the_worker_shim_runs_a_worker_from_disk_as_a_browser_would(
    browser, site_dir, tmp_path
) -> None:
    """From disk: messages in order, copied into the worker's realm, errors reported, terminate."""
    (tmp_path / "iframe-worker.js").write_bytes(
        (site_dir / "javascripts" / "iframe-worker.js").read_bytes()
    )
    (tmp_path / "worker.js").write_text(WORKER, encoding="utf-8")
    (tmp_path / "page.html").write_text(WORKER_PAGE, encoding="utf-8")
    page = browser.new_page()
    try:
        page.goto((tmp_path / "page.html").as_uri())
        page.wait_for_function("() => seen.length === 4")
        assert page.evaluate("() => seen") == [
            ["onmessage", {"echo": [1], "ownArray": True}],
            ["listener", [1]],
            ["onmessage", {"echo": [2], "ownArray": True}],
            ["listener", [2]],
        ]
        page.evaluate("() => worker.postMessage('boom')")
        page.wait_for_function("() => seen.length === 5")
        # From disk the browser counts the script as another origin's and masks the message.
        assert page.evaluate("() => seen[4]") in (
            ["error", "Script error."],
            ["error", "Uncaught Error: boom"],
        )
        page.evaluate("() => { worker.terminate(); worker.postMessage([3]); }")
        page.wait_for_timeout(200)
        assert page.evaluate("() => seen.length") == 5
        assert page.evaluate("() => document.querySelectorAll('iframe').length") == 0
    finally:
        page.close()


def test_served_pages_keep_the_browsers_own_worker(open_page) -> None:
    """The shim replaces Worker only on file://: a served page's Worker is the browser's."""
    page, _ = open_page("index.html", served=True)
    assert page.evaluate("() => Worker.toString().includes('[native code]')")
    page, _ = open_page("index.html", served=False)
    assert not page.evaluate("() => Worker.toString().includes('[native code]')")


def _claims_of(path: str) -> list[tuple[str, str, str, str, str]]:
    """Each claim of a page's Markdown as its box should show it, in order.

    Returns `(title, function, runner, state, session)`: the marker's title (else `Claim
    ID`), the property, what ran it or would, what the results files of this checkout say of
    it, and its own session.
    """
    from docpact import load_config
    from docpact.claims._analysis import analyse

    config = load_config(ROOT / "pyproject.toml")
    page = f"docs/{Path(path).with_suffix('.md').as_posix()}"
    for contract in config.contracts:
        if contract.kind == "claims" and page in contract.pages:
            analysis = analyse(contract, config)
            found = []
            for name, block in analysis.claims:
                if name == page:
                    (binding,) = analysis.bound(block.argument)
                    title = block.title or f"Claim {block.argument}"
                    state = analysis.state(binding)
                    # The box names the session that ran it, else the one that would.
                    ran = state.run.session if state.run else analysis.session(binding)
                    runner = f"nox -s {ran}" if ran else "pytest"
                    own = analysis.session(binding)
                    found.append((title, binding.function, runner, state.status, own))
            return found
    return []


# The border of a box by its state, and the path that only the check mark's icon draws.
BORDERS = {"passed": "rgb(0, 121, 107)", "failed": "rgb(198, 40, 40)"}
OTHER_BORDER = "rgb(96, 125, 139)"
TICK = "5.6-5.6"


@WHERE
@pytest.mark.parametrize(
    "path", ["trainer-configuration.html", "verl.html", "verl-actor-update.html"]
)
def test_each_claim_shows_in_a_box_naming_its_property(open_page, path, served) -> None:
    """One box per claim, titled, naming its property, in the state its results give.

    In CI the tests and verl sessions ran before the site was built: every box says passed,
    run by its own session.
    """
    claims = _claims_of(path)
    assert claims, f"{path} has no claim: the check proves nothing"
    if os.environ.get("CI") == "true":
        assert {state for *_, state, _ in claims} == {"passed"}, claims
        assert all(runner == f"nox -s {own}" for *_, runner, _, own in claims), claims
    page, visit = open_page(path, served=served)
    boxes = page.evaluate(CLAIM_BOXES)
    assert [box["title"] for box in boxes] == [title for title, *_ in claims]
    for box, (_, function, runner, state, _) in zip(boxes, claims, strict=True):
        assert box["state"] == state
        assert f"{function} in tests/" in box["check"]
        assert runner in box["check"]
        assert box["border"] == BORDERS.get(state, OTHER_BORDER)
        assert "data:image/svg+xml" in box["icon"]
        assert (TICK in box["icon"]) == (state == "passed")
        assert box["fontSize"] >= 12.8  # the box's own text size, not smaller
        assert box["fontSize"] == box["textSize"]
        assert box["width"] > 0
        assert box["height"] > 0
    assert visit.errors == []
