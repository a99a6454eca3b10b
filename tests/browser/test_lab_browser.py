"""A person's check in a real browser: JupyterLab + Debian Chromium (Playwright), notebooks 03 and 04.

Runs every cell through JupyterLab's Run menu, then reads the DOM: the widgets
and plotly charts must be drawn, and moving the k slider of the fusion
inspector must change the fused ranking it shows. Screenshots go to
``test-artifacts/``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "test-artifacts"
CHROMIUM = Path("/usr/bin/chromium")

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(), reason="needs Debian's Chromium at /usr/bin/chromium (apt-get install -y chromium)"
)

ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]
#: Running a notebook's cells in the browser: kernel start, index loading, every search.
RUN_TIMEOUT_MS = 600_000

ALL_NUMBERED = """() => {
  const prompts = [...document.querySelectorAll('.jp-Notebook .jp-CodeCell .jp-InputPrompt')]
    .map(e => e.textContent.trim());
  return prompts.length > 0 && prompts.every(t => /^\\[\\d+\\]:$/.test(t));
}"""
LEDGER_KEYS = """() => [...document.querySelectorAll(
  '.agrag-fusion-inspector .agrag-table[data-name="ledger"] tbody tr')].map(r => r.dataset.key)"""


@pytest.fixture(scope="module")
def browser(lab_server: Any) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS, headless=True)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A fresh browser context per test (no state carried between notebooks)."""
    context = browser.new_context(viewport={"width": 1500, "height": 2200})
    page = context.new_page()
    page.set_default_timeout(120_000)
    yield page
    context.close()


def _open_and_run_all(page: Any, server: Any, name: str) -> None:
    # a workspace of its own, so only this notebook is open
    page.goto(server.url(f"lab/workspaces/{name}/tree/notebooks/{name}.ipynb"))
    page.wait_for_selector(".jp-NotebookPanel .jp-Notebook .jp-Cell")
    # the kernel must be ready before "Run All" (the status bar says Idle)
    page.wait_for_function(
        "() => /Idle/.test(document.querySelector('#jp-main-statusbar')?.textContent || '')", timeout=180_000
    )
    page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^Run$")).click()
    page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Run All Cells$")).click()
    page.wait_for_function(ALL_NUMBERED, timeout=RUN_TIMEOUT_MS)
    errors = page.locator(".jp-OutputArea-output", has_text="Traceback (most recent call last)")
    assert errors.count() == 0, errors.first.inner_text()[:2000]


def _shot(locator: Any, name: str) -> Path:
    """Screenshot one element whole: the viewport grows to fit it, then shrinks back."""
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / name
    page = locator.page
    size = page.viewport_size
    box = locator.bounding_box()
    if box is not None and box["height"] + 300 > size["height"]:
        page.set_viewport_size({"width": size["width"], "height": int(box["height"]) + 400})
        page.wait_for_timeout(1500)  # let JupyterLab and plotly lay out again
    locator.scroll_into_view_if_needed()
    locator.screenshot(path=str(path))
    page.set_viewport_size(size)
    return path


def test_04_inspector_renders_and_the_k_slider_refuses(page: Any, lab_server: Any) -> None:
    _open_and_run_all(page, lab_server, "04_why_did_it_rank")
    inspector = page.locator(".agrag-fusion-inspector").first
    inspector.wait_for(state="visible")
    ledger = inspector.locator('.agrag-table[data-name="ledger"] tbody tr')
    ledger.first.wait_for(state="visible")
    assert ledger.count() > 20
    chart = inspector.locator(".js-plotly-plot")
    chart.first.wait_for(state="visible")
    assert inspector.locator(".js-plotly-plot .bars path, .js-plotly-plot .point path").count() > 0
    assert inspector.locator(".agrag-table-note").first.inner_text().startswith("cut:")
    _shot(page.locator(".jp-NotebookPanel").first, "04_why_did_it_rank.png")
    _shot(inspector, "04_inspector_k60.png")

    before = page.evaluate(LEDGER_KEYS)
    readout = inspector.locator(".agrag-k-slider .widget-readout")
    assert readout.inner_text().strip() == "60"
    handle = inspector.locator(".agrag-k-slider .noUi-handle")
    handle.focus()
    page.keyboard.press("Home")
    page.wait_for_function(
        "() => document.querySelector('.agrag-fusion-inspector .agrag-k-slider .widget-readout')"
        ".textContent.trim() === '1'", timeout=30_000,
    )
    page.wait_for_function(
        f"(before) => JSON.stringify(({LEDGER_KEYS})()) !== JSON.stringify(before)", arg=before, timeout=60_000
    )
    after = page.evaluate(LEDGER_KEYS)
    assert after != before and sorted(after) == sorted(before)  # same candidates, another order
    caption = inspector.locator('.agrag-table[data-name="ledger"] .agrag-table-caption').inner_text()
    assert "k=1" in caption
    _shot(inspector, "04_inspector_k1.png")

    # selecting a row shows its explanation and its fetched text
    inspector.locator('.agrag-table[data-name="ledger"] tbody tr').first.click()
    explanation = inspector.locator(".agrag-explanation")
    explanation.wait_for(state="visible")
    assert "fused score" in explanation.inner_text()
    assert inspector.locator(".agrag-passage").count() >= 1
    _shot(inspector.locator(".agrag-detail"), "04_selected_row.png")


def test_03_comparisons_and_charts_render(page: Any, lab_server: Any) -> None:
    _open_and_run_all(page, lab_server, "03_compare_recipes")
    comparisons = page.locator(".agrag-recipe-comparison")
    comparisons.nth(1).wait_for(state="visible")
    assert comparisons.count() == 2
    for i, name in enumerate(("workshop", "musique")):
        widget = comparisons.nth(i)
        rows = widget.locator('.agrag-table[data-name="side-by-side"] tbody tr')
        rows.first.wait_for(state="visible")
        assert rows.count() > 5
        assert widget.locator('.agrag-table[data-name="overlap"] tbody tr').count() == 3
        assert widget.locator('.agrag-table[data-name="metrics"] tbody tr').count() == 3
        plots = widget.locator(".js-plotly-plot")
        plots.nth(5).wait_for(state="visible")  # rank shift, 3 contribution charts, metrics, wins
        assert plots.count() == 6
        assert widget.locator(".js-plotly-plot .main-svg").count() >= 6
        _shot(widget, f"03_comparison_{name}.png")
    # the static chart drawn outside the widgets
    total = page.locator(".jp-Notebook .js-plotly-plot").count()
    assert total == 13, total
    _shot(page.locator(".jp-NotebookPanel").first, "03_compare_recipes.png")
