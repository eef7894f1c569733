# SPDX-License-Identifier: MIT
"""The built site fetches nothing from the network and shows its formulas as MathML."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from types import ModuleType

import pytest

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

# Where a tag fetches what its attribute names; `<link>` is judged by its `rel` instead.
FETCHING_ATTRIBUTES = {
    "audio": ("src",),
    "embed": ("src",),
    "iframe": ("src",),
    "image": ("href",),
    "img": ("src", "srcset"),
    "input": ("src",),
    "object": ("data",),
    "script": ("src",),
    "source": ("src", "srcset"),
    "track": ("src",),
    "video": ("src", "poster"),
}
FETCHING_RELS = {
    "apple-touch-icon",
    "dns-prefetch",
    "icon",
    "manifest",
    "modulepreload",
    "preconnect",
    "prefetch",
    "preload",
    "stylesheet",
}
EXTERNAL_URL = re.compile(r"\s*(?:https?:)?//", re.IGNORECASE)
CSS_EXTERNAL_URL = re.compile(
    r"""(?:url\(\s*["']?|@import\s+["'])\s*(?P<url>(?:https?:)?//[^"')\s;]+)""", re.IGNORECASE
)


class _PageScanner(HTMLParser):
    """Collect the external URLs a page would fetch, and whether it holds a Mermaid diagram."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.fetched: list[str] = []
        self.mermaid = False
        self._in_style = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: value or "" for name, value in attrs}
        names = FETCHING_ATTRIBUTES.get(tag, ())
        if tag == "link" and FETCHING_RELS & set(values.get("rel", "").lower().split()):
            names = ("href",)
        for name in names:
            # A srcset lists candidates as "URL WIDTH, URL WIDTH".
            urls = values.get(name, "").split(",") if name == "srcset" else [values.get(name, "")]
            self.fetched += [url.strip() for url in urls if EXTERNAL_URL.match(url)]
        self.fetched += [m["url"] for m in CSS_EXTERNAL_URL.finditer(values.get("style", ""))]
        self.mermaid |= tag == "pre" and "mermaid" in values.get("class", "").split()
        self._in_style = tag == "style"

    def handle_endtag(self, tag: str) -> None:
        self._in_style = False

    def handle_data(self, data: str) -> None:
        if self._in_style:
            self.fetched += [m["url"] for m in CSS_EXTERNAL_URL.finditer(data)]


def scan(page: Path) -> _PageScanner:
    """Parse one built HTML page."""
    scanner = _PageScanner()
    scanner.feed(page.read_text(encoding="utf-8"))
    scanner.close()
    return scanner


def build(project: Path, site: Path) -> subprocess.CompletedProcess[str]:
    """Build `project` in strict mode into `site`, in its own process as a user would."""
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=project,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        check=False,
    )


def copy_site(destination: Path, page: str, config: str = "") -> Path:
    """Copy the site's sources to `destination` with `page` as an extra page outside the nav.

    `config` is YAML appended to the copy's `mkdocs.yml`.
    """
    for name in ("mkdocs.yml", "pyproject.toml"):
        shutil.copy2(ROOT / name, destination / name)
    for name in ("docs", "src"):
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
    spec = importlib.util.spec_from_file_location("mathml_hook", ROOT / "docs/hooks/mathml.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


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
    page = project / "site" / Path(EXTRA_PAGE).stem / "index.html"
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
        f"{page.relative_to(directory)}: {url}"
        for page in directory.rglob("*.html")
        for url in scan(page).fetched
    ]
    found += [
        f"{sheet.relative_to(directory)}: {match['url']}"
        for sheet in directory.rglob("*.css")
        for match in CSS_EXTERNAL_URL.finditer(sheet.read_text(encoding="utf-8"))
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


def test_no_page_holds_a_mermaid_diagram_which_would_load_mermaid_from_unpkg(
    site: tuple[subprocess.CompletedProcess[str], Path],
) -> None:
    _, directory = site
    assert [page for page in directory.rglob("*.html") if scan(page).mermaid] == []


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
