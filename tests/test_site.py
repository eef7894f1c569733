# SPDX-License-Identifier: MIT
"""The built site fetches nothing from the network, works opened from disk, and shows MathML.

Opened from disk (file://) with no network, its links name files that exist and its search
finds pages. docs/hooks/external_assets.py is the one scanner for external assets: the strict
build runs it on every page, and these tests reuse it on the built files.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path
from types import ModuleType
from urllib.parse import unquote, urlsplit

import pytest

from helpers import load_module, mkdocs_build

ROOT = Path(__file__).resolve().parents[1]
EXTRA_PAGE = "math-check.md"

# Inline and display math, code that must keep its dollars, dollars that are not math, a link.
MATH_PAGE = r"""# Math check

Each row's share is $\frac{1}{\mathrm{num\_trained\_rows}}$, with $a < b$ and $\hat{A}_{i,t}$.

$$
\sum_{i \in r} \frac{\mathrm{tokens}_i}{T_r \cdot N} = \frac{1}{N}
$$

Code keeps its dollars: `$x$`. Prices of $5 and $6 are not math.
See [the sources](https://example.invalid/sources).
"""
# Where a reference leaves the site, or stays on its page; everything else names a file.
NOT_A_FILE = re.compile(r"(?:https?:|mailto:|data:|#|//)", re.IGNORECASE)
# The attribute by which each tag links to or loads a URL.
REFERENCE_ATTRIBUTES = {"a": "href", "img": "src", "link": "href", "script": "src"}


def load_hook(name: str) -> ModuleType:
    """Import docs/hooks/NAME.py from its path, as MkDocs does."""
    return load_module(f"{name}_hook", ROOT / f"docs/hooks/{name}.py")


ASSETS = load_hook("external_assets")


class _References(HTMLParser):
    """Collect what a page links to (`<a href>`) and what it loads from the site itself."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.urls: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        url = dict(attrs).get(REFERENCE_ATTRIBUTES.get(tag, ""))
        if url and not NOT_A_FILE.match(url):
            self.urls.append(url)


def local_references(page: Path) -> list[str]:
    """The URLs of one built page that name a file of the site."""
    parser = _References()
    parser.feed(page.read_text(encoding="utf-8"))
    parser.close()
    return parser.urls


def resolve(url: str, page: Path, site: Path) -> Path:
    """The file `url` names when a browser opens `page` of `site` from disk."""
    path = unquote(urlsplit(url).path)
    if not path:
        return page
    # 404.html is what a server sends for any missing path, so its URLs start at the root.
    if page == site / "404.html":
        return (site / path.lstrip("/")).resolve()
    return (page.parent / path).resolve()


def build(project: Path, site: Path) -> subprocess.CompletedProcess[str]:
    """Build `project` in strict mode into `site`, in its own process as a user would."""
    return mkdocs_build(project, "--site-dir", str(site))


def copy_site(destination: Path, page: str, config: str = "") -> Path:
    """Copy the site's sources to `destination` with `page` as an extra page outside the nav.

    `config` is YAML appended to the copy's `mkdocs.yml`.
    """
    for name in ("mkdocs.yml", "pyproject.toml", "noxfile.py"):
        shutil.copy2(ROOT / name, destination / name)
    # The claims' properties are anywhere under tests/, with the modules they import, and
    # their reviews in the ledger.
    for name in ("docs", "overrides", "src", "rolloutnorm/src", "tests", "docpact-reviews"):
        shutil.copytree(
            ROOT / name, destination / name, ignore=shutil.ignore_patterns("__pycache__")
        )
    (destination / "docs" / EXTRA_PAGE).write_text(page, encoding="utf-8")
    with (destination / "mkdocs.yml").open("a", encoding="utf-8") as file:
        file.write(f"\nnot_in_nav: |\n  /{EXTRA_PAGE}\n{config}")
    return destination


@pytest.fixture(scope="module")
def hook() -> ModuleType:
    """docs/hooks/mathml.py, imported from its path as MkDocs does."""
    return load_hook("mathml")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> tuple[subprocess.CompletedProcess[str], Path]:
    """The real site, built once for the module."""
    directory = tmp_path_factory.mktemp("site")
    return build(ROOT, directory), directory


@pytest.fixture(scope="module")
def math_site(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[subprocess.CompletedProcess[str], str]:
    """A copy of the site with MATH_PAGE added, built once; the result and the page's HTML."""
    project = copy_site(tmp_path_factory.mktemp("math"), MATH_PAGE)
    result = build(project, project / "site")
    page = project / "site" / Path(EXTRA_PAGE).with_suffix(".html")
    return result, page.read_text(encoding="utf-8") if page.exists() else ""


def test_the_site_builds_in_strict_mode(
    site: tuple[subprocess.CompletedProcess[str], Path],
) -> None:
    result, _ = site
    assert result.returncode == 0, result.stdout


def test_no_page_or_style_sheet_loads_an_external_asset(
    site: tuple[subprocess.CompletedProcess[str], Path],
) -> None:
    _, directory = site
    found = [
        f"{page.relative_to(directory)}: {fetch.url}"
        for page in directory.rglob("*.html")
        for fetch in ASSETS.external_assets(page.read_text(encoding="utf-8"))
    ]
    found += [
        f"{sheet.relative_to(directory)}: {match['url']}"
        for sheet in directory.rglob("*.css")
        for match in ASSETS.CSS_EXTERNAL_URL.finditer(sheet.read_text(encoding="utf-8"))
    ]
    assert list(directory.rglob("*.html"))
    assert found == []


def test_no_file_of_the_site_names_google_fonts(
    site: tuple[subprocess.CompletedProcess[str], Path],
) -> None:
    _, directory = site
    naming = [
        path.relative_to(directory).as_posix()
        for path in directory.rglob("*")
        if path.is_file() and re.search(rb"fonts\.(?:googleapis|gstatic)", path.read_bytes())
    ]
    assert naming == []


def test_every_link_and_local_asset_of_every_page_names_a_file_of_the_site(
    site: tuple[subprocess.CompletedProcess[str], Path],
) -> None:
    """Opened from disk, no server maps `folder/` to its index.html: each URL must be a file."""
    _, directory = site
    directory = directory.resolve()
    pages = sorted(directory.rglob("*.html"))
    broken = [
        f"{page.relative_to(directory)}: {url}"
        for page in pages
        for url in local_references(page)
        if not (
            resolve(url, page, directory).is_relative_to(directory)
            and resolve(url, page, directory).is_file()
        )
    ]
    assert len(pages) >= 5
    assert broken == []


def test_the_navigation_links_pages_by_their_html_files(
    site: tuple[subprocess.CompletedProcess[str], Path],
) -> None:
    _, directory = site
    urls = local_references(directory / "reference" / "docpact.html")
    assert {"../index.html", "../trainer-configuration.html", "rolloutnorm.html"} <= set(urls)
    assert not [url for url in urls if urlsplit(url).path.endswith("/")]


def test_no_page_header_links_to_a_repository(
    site: tuple[subprocess.CompletedProcess[str], Path],
) -> None:
    """Without `repo_url` the theme shows no repository link, which would be dead offline."""
    _, directory = site
    assert [p for p in directory.rglob("*.html") if 'class="md-source"' in p.read_text()] == []


def test_inline_and_display_math_become_mathml_and_code_keeps_its_dollars(
    math_site: tuple[subprocess.CompletedProcess[str], str],
) -> None:
    result, html = math_site
    assert result.returncode == 0, result.stdout
    assert html.count("<math ") == 4
    assert html.count('<math xmlns="http://www.w3.org/1998/Math/MathML" display="block">') == 1
    assert "\\(" not in html
    assert "\\[" not in html
    assert "<code>$x$</code>" in html
    assert "Prices of $5 and $6 are not math." in html


def test_an_external_link_is_kept_as_written_and_passes_the_strict_build(
    math_site: tuple[subprocess.CompletedProcess[str], str],
) -> None:
    result, html = math_site
    assert result.returncode == 0, result.stdout
    assert '<a href="https://example.invalid/sources">the sources</a>' in html


@pytest.mark.parametrize(
    ("page", "config"),
    [
        pytest.param(
            '# Page\n\n<script src="https://cdn.example.invalid/x.js"></script>\n', "", id="page"
        ),
        pytest.param(
            "# Page\n",
            "extra_javascript:\n  - https://cdn.example.invalid/x.js\n",
            id="extra_javascript",
        ),
    ],
)
def test_an_external_script_aborts_the_strict_build_naming_it(
    tmp_path: Path, page: str, config: str
) -> None:
    result = build(copy_site(tmp_path, page, config), tmp_path / "site")
    assert result.returncode == 1, result.stdout
    assert "WARNING -  External file: https://cdn.example.invalid/x.js" in result.stdout
    assert "Aborted with" in result.stdout


@pytest.mark.parametrize(
    ("html", "url"),
    [
        pytest.param(
            '<iframe src="https://example.com/x"></iframe>', "https://example.com/x", id="iframe"
        ),
        pytest.param(
            '<div style="background:url(https://example.com/y.png)">y</div>',
            "https://example.com/y.png",
            id="style",
        ),
    ],
)
def test_an_external_asset_the_privacy_plugin_misses_aborts_the_strict_build_naming_it(
    tmp_path: Path, html: str, url: str
) -> None:
    result = build(copy_site(tmp_path, f"# Page\n\n{html}\n"), tmp_path / "site")
    assert result.returncode == 1, result.stdout
    assert f"WARNING -  external_assets: docs/{EXTRA_PAGE}: " in result.stdout
    assert f" loads {url} from the network" in result.stdout
    assert "Aborted with" in result.stdout


@pytest.mark.parametrize(
    ("html", "found"),
    [
        ('<iframe src="https://e.com/x"></iframe>', [("https://e.com/x", "<iframe src>")]),
        ('<embed src="//e.com/x.swf">', [("//e.com/x.swf", "<embed src>")]),
        (
            '<object data="https://e.com/o.svg"></object>',
            [("https://e.com/o.svg", "<object data>")],
        ),
        (
            '<video poster="https://e.com/p.png"><source src="https://e.com/v.mp4"></video>',
            [("https://e.com/p.png", "<video poster>"), ("https://e.com/v.mp4", "<source src>")],
        ),
        ('<audio src=" HTTP://e.com/a.mp3">', [("HTTP://e.com/a.mp3", "<audio src>")]),
        (
            '<img src="a.png" srcset="https://e.com/a.png 1x, b.png 2x, //e.com/c.png 3x">',
            [("https://e.com/a.png", "<img srcset>"), ("//e.com/c.png", "<img srcset>")],
        ),
        (
            '<svg><image href="https://e.com/i.png"/></svg>',
            [("https://e.com/i.png", "<image href>")],
        ),
        ('<link rel="Preconnect" href="https://e.com">', [("https://e.com", "<link href>")]),
        (
            "<p style=\"background: url( 'https://e.com/y.png' )\">y</p>",
            [("https://e.com/y.png", "<p style>")],
        ),
        (
            '<style>@import "https://e.com/a.css"; p { background: url(//e.com/b.png) }</style>',
            [("https://e.com/a.css", "<style>"), ("//e.com/b.png", "<style>")],
        ),
        ('<pre class="mermaid">graph LR</pre>', [(ASSETS.MERMAID_URL, '<pre class="mermaid">')]),
    ],
)
def test_the_scanner_finds_each_kind_of_external_asset_with_what_names_it(
    html: str, found: list[tuple[str, str]]
) -> None:
    assert ASSETS.external_assets(html) == found


def test_the_scanner_leaves_links_and_local_or_inline_assets_alone() -> None:
    html = (
        '<a href="https://e.com/">e</a><link rel="canonical" href="https://e.com/">'
        '<img src="a.png" srcset="b.png 2x"><img src="data:image/png;base64,AA==">'
        '<iframe src="page.html"></iframe><div style="background:url(x.png)">x</div>'
        "<style>p { background: url(data:image/png;base64,AA==) }</style>"
        "<p>Not in a style block: url(https://e.com/z.png)</p><pre><code>mermaid</code></pre>"
    )
    assert ASSETS.external_assets(html) == []


def test_an_unconvertible_formula_aborts_the_strict_build_naming_the_page(tmp_path: Path) -> None:
    page = "# Page\n\nA fence left open: $\\left( x$.\n"
    result = build(copy_site(tmp_path, page), tmp_path / "site")
    assert result.returncode == 1, result.stdout
    assert (
        f"WARNING -  mathml: docs/{EXTRA_PAGE}:3: cannot render $\\left( x$ as MathML: "
        "latex2mathml failed: ExtraLeftOrMissingRightError"
    ) in result.stdout
    assert "Traceback" not in result.stdout


@pytest.mark.parametrize(
    "latex",
    [
        r"\max\left(1,\ \mathrm{rollout\_token\_count}(r)\cdot \mathrm{num\_trained\_rows}\right)",
        r"\frac{1}{\mathrm{num\_trained\_rows}}",
        r"\sum_{i \in r} \frac{\mathrm{tokens}_i}{T_r \cdot N} = \frac{1}{N}",
        r"\hat{A}_{i,t}",
        r"\lfloor x \rfloor",
        r"\min",
        r"\text{otherwise}",
        r"a < b \& c",
        r"\begin{cases} 1 & x > 0 \\ 0 & \text{otherwise} \end{cases}",
    ],
)
@pytest.mark.parametrize("display", ["inline", "block"])
def test_each_kind_of_formula_the_docs_use_converts_to_mathml(
    hook: ModuleType, latex: str, display: str
) -> None:
    mathml = hook.to_mathml(latex, display=display)
    assert mathml.startswith(
        f'<math xmlns="http://www.w3.org/1998/Math/MathML" display="{display}">'
    )
    assert "\\" not in mathml


@pytest.mark.parametrize(
    ("latex", "reason"),
    [
        (r"\left( x", "latex2mathml failed: ExtraLeftOrMissingRightError"),
        (r"\frac{1}", "<mfrac> has 1 of its 2 parts"),
        (r"\foo{x}", "latex2mathml left '\\foo' unconverted"),
        (r"\text{rollout\_token\_count}", "latex2mathml left '\\_' unconverted"),
        (r"\begin{aligned} a &= b \end{aligned}", "latex2mathml left '&' unconverted"),
    ],
)
def test_a_formula_latex2mathml_fails_or_mangles_is_refused(
    hook: ModuleType, latex: str, reason: str
) -> None:
    with pytest.raises(ValueError, match=re.escape(reason)):
        hook.to_mathml(latex, display="block")


BREAKS = load_hook("break_points")


def test_table_code_gets_a_break_point_after_each_dot_and_underscore_only() -> None:
    """Inside a table, inline code may wrap after `.` or `_`; code elsewhere is left as it is."""
    html = (
        "<p><code>a_b.c</code></p><table><tr><td><code>actor_rollout_ref.actor.clip_ratio_c</code>"
        '</td><td><code class="x">ppo_epochs</code> and <code>n</code></td></tr></table>'
    )
    assert BREAKS.add_break_points(html) == (
        "<p><code>a_b.c</code></p><table><tr><td><code>actor_<wbr>rollout_<wbr>ref.<wbr>"
        'actor.<wbr>clip_<wbr>ratio_<wbr>c</code></td><td><code class="x">ppo_<wbr>epochs</code>'
        " and <code>n</code></td></tr></table>"
    )


def test_a_trailing_or_doubled_separator_gets_no_empty_break_point() -> None:
    """A break point goes only between a separator and the next name character."""
    html = "<table><td><code>__init__.</code></td></table>"
    assert BREAKS.add_break_points(html) == "<table><td><code>__<wbr>init__.</code></td></table>"


def test_the_configuration_table_wraps_its_keys_only_at_dots_and_underscores(
    site: tuple[subprocess.CompletedProcess[str], Path],
) -> None:
    """The built trainer page's key column carries break points; its search text does not."""
    _, directory = site
    html = (directory / "trainer-configuration.html").read_text(encoding="utf-8")
    assert (
        "<code>actor_<wbr>rollout_<wbr>ref.<wbr>actor.<wbr>clip_<wbr>ratio_<wbr>high</code>" in html
    )
    index = (directory / "search" / "search_index.json").read_text(encoding="utf-8")
    assert "actor_rollout_ref.actor.clip_ratio_high" in index
    assert "wbr" not in index


NOT_FOUND = load_hook("not_found")


def test_the_404_page_gets_urls_relative_to_the_root_and_the_root_base_when_served() -> None:
    """Root-absolute URLs lose their slash, other sites' keep theirs, and a served page gets `/`."""
    html = (
        '<html><head><script>__md_scope=new URL("/",location)</script>'
        '<link href="/assets/a.css"><script src="/assets/b.js"></script></head>'
        '<body><a href="/index.html">Home</a><a href="//e.com/x">x</a><a href="https://e.com/">e</a>'
        '<script id="__config">{"base": "/", "search": "/assets/w.js"}</script></body></html>'
    )
    assert NOT_FOUND.relative_to_root(html) == (
        "<html><head>" + NOT_FOUND.SERVED_BASE + "<script>" + NOT_FOUND.LOCAL_SCOPE + "</script>"
        '<link href="assets/a.css"><script src="assets/b.js"></script></head><body>'
        '<a href="index.html">Home</a><a href="//e.com/x">x</a><a href="https://e.com/">e</a>'
        '<script id="__config">{"base": ".", "search": "assets/w.js"}</script>'
        + NOT_FOUND.SERVED_CONFIG
        + "</body></html>"
    )


@pytest.mark.parametrize(
    "missing", ["<head>", '<script id="__config">', '__md_scope=new URL("/",location)']
)
def test_a_404_page_without_what_the_hook_rewrites_is_refused(missing: str) -> None:
    """A theme whose 404 page lacks the head, the config or the palette scope fails the build."""
    html = (
        '<html><head><script>__md_scope=new URL("/",location)</script></head><body>'
        '<script id="__config">{"base": "/"}</script></body></html>'
    ).replace(missing, "<x>")
    with pytest.raises(NOT_FOUND.ThemeChanged, match=r"404\.html lacks"):
        NOT_FOUND.relative_to_root(html)


def test_the_built_404_page_names_no_root_absolute_url(
    site: tuple[subprocess.CompletedProcess[str], Path],
) -> None:
    """Every URL of the built 404.html but the served base resolves beside it, from disk."""
    _, directory = site
    html = (directory / "404.html").read_text(encoding="utf-8")
    assert html.count(NOT_FOUND.SERVED_BASE) == html.count(NOT_FOUND.SERVED_CONFIG) == 1
    rest = html.replace(NOT_FOUND.SERVED_BASE, "")
    assert re.findall(r'(?:href|src)="/(?!/)[^"]*"', rest) == []
    assert '"base": "."' in rest


DOCTESTS = load_hook("doctest_blocks")


def test_only_fences_that_open_with_a_prompt_are_highlighted_as_sessions() -> None:
    """A `python` fence starting with `>>>` becomes `pycon`; other fences keep their lexer."""
    markdown = (
        "```python\n>>> 1 + 1\n2\n```\n\n```python\nx = 1\n```\n\n"
        "  ```python\n  >>> x\n  ```\n\n```yaml\n>>> not python\n```\n"
    )
    assert DOCTESTS.as_sessions(markdown) == (
        "```pycon\n>>> 1 + 1\n2\n```\n\n```python\nx = 1\n```\n\n"
        "  ```pycon\n  >>> x\n  ```\n\n```yaml\n>>> not python\n```\n"
    )


def test_a_doctest_block_copies_its_source_and_a_plain_block_copies_as_shown() -> None:
    """`data-copy` holds the examples' code, continuation lines joined; plain code gets none."""
    page = (
        '<div class="highlight"><pre><span></span><code><span class="gp">&gt;&gt;&gt; </span>'
        'f(\n<span class="gp">... </span>  1)\n<span class="go">2 &lt; 3</span>\n'
        '</code></pre></div><div class="highlight"><pre><code>x = 1\n</code></pre></div>'
    )
    assert DOCTESTS.add_copy_text(page) == page.replace(
        '<div class="highlight"><pre><span>',
        '<div class="highlight" data-copy="f(\n  1)\n"><pre><span>',
        1,
    )


def test_a_fence_shown_inside_another_is_not_highlighted_as_a_session() -> None:
    """Only fences outside other fences change: a page may show a doctest fence as text."""
    markdown = "````markdown\n```python\n>>> x\n```\n````\n\n```python\n>>> y\n```\n"
    assert DOCTESTS.as_sessions(markdown) == (
        "````markdown\n```python\n>>> x\n```\n````\n\n```pycon\n>>> y\n```\n"
    )


def test_a_transcript_doctest_cannot_read_is_copied_as_shown() -> None:
    """`>>>x` (no space after the prompt) is no doctest: no copy text, and no failed build."""
    assert DOCTESTS.runnable_source(">>>x = 1\n") is None


def test_no_break_point_in_a_number_or_in_a_code_block_in_a_table() -> None:
    """`0.2` keeps together, and a plain code block inside a table is left as written."""
    html = "<table><td><code>0.2</code></td><td><pre><code>a.b</code></pre></td></table>"
    assert BREAKS.add_break_points(html) == html


@pytest.mark.slow
def test_without_the_api_pages_a_dropped_docstring_operand_fails_every_strict_build(
    tmp_path: Path,
) -> None:
    """No page renders rolloutnorm: the plugin checks its contracts all the same, under -q too."""
    project = copy_site(tmp_path, "# Page\n")
    for api_page in ("rolloutnorm.md", "docpact.md"):
        (project / "docs" / "reference" / api_page).unlink()
    config = (project / "mkdocs.yml").read_text(encoding="utf-8")
    api = "      - rolloutnorm API: reference/rolloutnorm.md\n"
    api += "      - docpact API: reference/docpact.md\n"
    assert config.count(api) == 1
    (project / "mkdocs.yml").write_text(config.replace(api, ""), encoding="utf-8")
    for level in ((), ("-q",)):
        clean = mkdocs_build(project, *level, "--site-dir", str(tmp_path / "site"))
        assert clean.returncode == 0, clean.stdout
    source = project / "rolloutnorm/src/rolloutnorm/_normalize.py"
    text = source.read_text(encoding="utf-8")
    # The drift catalogue's "operand dropped from the docstring", both of its edits.
    for operand, other in (
        ("    - `rollout_token_count`: the", "    - the rollout's token count: the"),
        ("``max(1, rollout_token_count(r) *", "``max(1, tokens(r) *"),
    ):
        assert text.count(operand) == 1
        text = text.replace(operand, other)
    source.write_text(text, encoding="utf-8")
    line = 1 + text[: text.index('"""Divide every row')].count("\n")
    for level in ((), ("-q",)):
        broken = mkdocs_build(project, *level, "--site-dir", str(tmp_path / "site"))
        assert broken.returncode == 1, broken.stdout
        assert f"rolloutnorm/src/rolloutnorm/_normalize.py:{line}: DP002" in broken.stdout
