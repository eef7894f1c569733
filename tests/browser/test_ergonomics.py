# SPDX-License-Identifier: MIT
"""What a reader on a phone, or with weaker eyes, meets: wide content, output contrast, 404.

At 390 px every formula and table either fits its column or scrolls in a box of its own
with a shadow that shows there is more, and nothing is cut off; doctest and console output is at
7:1 contrast or better against the background it is drawn on, in both palettes; the 404
page links home and opens the search, from disk and served.
"""

from __future__ import annotations

import pytest
from site_urls import PAGES, WHERE

# Each display formula and table: whether it fits, else whether the box it scrolls in shows a
# shadow at the edge there is more beyond (headless Chromium, as phones, hides scrollbars),
# and whether the box stays on the screen
# (the theme lets a table's box reach the screen's edges on a phone, past the column).
WIDE = """() => {
    const found = [];
    const boxes = [
        ...document.querySelectorAll(".md-typeset div.arithmatex"),
        ...document.querySelectorAll(".md-typeset__scrollwrap"),
    ];
    for (const box of boxes) {
        const style = getComputedStyle(box);
        const fits = box.scrollWidth <= box.clientWidth;
        const scrolls = ["auto", "scroll"].includes(style.overflowX);
        const hint = style.backgroundImage.includes("radial-gradient")
            && style.backgroundAttachment.includes("local");
        const rect = box.getBoundingClientRect();
        found.push({
            text: box.textContent.trim().slice(0, 60),
            fits, scrolls, hint,
            inside: rect.left >= -1 && rect.right <= document.documentElement.clientWidth + 1,
        });
    }
    return found;
}"""


@pytest.mark.parametrize("path", PAGES)
def test_at_390_px_a_formula_or_table_fits_or_scrolls_visibly(open_page, path) -> None:
    page, _ = open_page(path, served=True, width=390)
    for box in page.evaluate(WIDE):
        assert box["inside"], f"{path}: {box['text']!r} sticks out of the column"
        if not box["fits"]:
            assert box["scrolls"], f"{path}: {box['text']!r} is cut off, not scrolled"
            assert box["hint"], f"{path}: {box['text']!r} scrolls with no shadow to show it"


def test_the_main_formula_of_the_trainer_page_shows_both_operands_at_390_px(open_page) -> None:
    """Cut off at the first operand once; now its box scrolls to the second."""
    page, _ = open_page("trainer-configuration.html", served=True, width=390)
    box = page.locator(".md-typeset div.arithmatex").first
    assert "num_trained_rows" in box.text_content().replace("\\_", "_")
    box.evaluate("(box) => { box.scrollLeft = box.scrollWidth; }")
    assert box.evaluate("(box) => box.scrollLeft + box.clientWidth >= box.scrollWidth - 1")


# The contrast of each output span's colour against the colour it is drawn on: the first
# opaque background up its ancestors, composited over the ones below if translucent.
CONTRAST = """() => {
    const parse = (c) => (c.match(/[\\d.]+/g) || []).map(Number);
    const over = (top, below) => {
        const a = top.length > 3 ? top[3] : 1;
        return [0, 1, 2].map((i) => top[i] * a + below[i] * (1 - a));
    };
    const background = (node) => {
        const layers = [];
        for (let n = node; n; n = n.parentElement) {
            const c = parse(getComputedStyle(n).backgroundColor);
            if (c.length && (c.length < 4 || c[3] > 0)) layers.push(c);
            if (c.length && (c.length < 4 || c[3] === 1)) break;
        }
        let colour = [255, 255, 255];
        for (const layer of layers.reverse()) colour = over(layer, colour);
        return colour;
    };
    const luminance = (c) => {
        const [r, g, b] = c.map((v) => {
            v /= 255;
            return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
        });
        return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    };
    return Array.from(document.querySelectorAll(".highlight .go"), (span) => {
        const back = background(span);
        const fore = over(parse(getComputedStyle(span).color), back);
        const [l1, l2] = [luminance(fore), luminance(back)].sort((a, b) => b - a);
        return [(l1 + 0.05) / (l2 + 0.05), span.textContent.slice(0, 40)];
    });
}"""


@pytest.mark.parametrize("scheme", ["default", "slate"])
@pytest.mark.parametrize("path", ["trainer-configuration.html", "explain.html"])
def test_output_text_is_at_7_to_1_contrast_in_both_palettes(open_page, path, scheme) -> None:
    page, _ = open_page(path, served=True)
    # The theme fades colours over 125 ms when the palette changes: read them after none.
    page.add_style_tag(content="* { transition: none !important; }")
    page.evaluate(f"() => document.body.setAttribute('data-md-color-scheme', '{scheme}')")
    ratios = page.evaluate(CONTRAST)
    assert ratios, f"{path} shows no output: the check proves nothing"
    low = [(round(ratio, 2), text) for ratio, text in ratios if ratio < 7]
    assert low == [], f"{path} in {scheme}: output below 7:1"


@WHERE
def test_the_404_page_links_home_and_opens_the_search(open_page, served) -> None:
    page, visit = open_page("404.html", served=served)
    page.wait_for_load_state("networkidle")
    page.click("#not-found-search")
    assert page.evaluate("() => document.getElementById('__search').checked")
    page.keyboard.press("Escape")
    page.locator("#not-found-home").click()
    page.wait_for_load_state("load")
    assert page.url.endswith("/index.html")
    assert page.locator("h1").first.text_content().startswith("rolloutnorm")
    assert visit.errors == []
