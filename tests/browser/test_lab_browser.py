"""A person's check in a real browser: JupyterLab + Debian Chromium (Playwright), notebooks 03 and 04.

Runs every cell through JupyterLab's Run menu, then reads the DOM: the widgets
and plotly charts must be drawn, and moving the k slider of the fusion
inspector must change the fused ranking it shows. Screenshots go to
``test-artifacts/``.
"""

from __future__ import annotations

from typing import Any

import pytest

#: The first test also waits for the session's set-up (indexes, JupyterLab, Chromium).
pytestmark = pytest.mark.timeout(1800)

LEDGER_KEYS = """() => [...document.querySelectorAll(
  '.agrag-fusion-inspector .agrag-table[data-name="ledger"] tbody tr')].map(r => r.dataset.key)"""


def test_04_inspector_renders_and_the_k_slider_refuses(page: Any, lab: Any) -> None:
    lab.run_notebook(page, "04_why_did_it_rank")
    inspector = page.locator(".agrag-fusion-inspector").first
    inspector.wait_for(state="visible")
    ledger = inspector.locator('.agrag-table[data-name="ledger"] tbody tr')
    ledger.first.wait_for(state="visible")
    assert ledger.count() > 20
    chart = inspector.locator(".js-plotly-plot")
    chart.first.wait_for(state="visible")
    assert inspector.locator(".js-plotly-plot .bars path, .js-plotly-plot .point path").count() > 0
    assert inspector.locator(".agrag-table-note").first.inner_text().startswith("cut:")
    lab.shot(page.locator(".jp-NotebookPanel").first, whole=True, name="04_why_did_it_rank.png")
    lab.shot(inspector, "04_inspector_k60.png", whole=True)

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
    lab.shot(inspector, "04_inspector_k1.png", whole=True)

    # selecting a row shows its explanation and its fetched text
    inspector.locator('.agrag-table[data-name="ledger"] tbody tr').first.click()
    explanation = inspector.locator(".agrag-explanation")
    explanation.wait_for(state="visible")
    assert "fused score" in explanation.inner_text()
    assert inspector.locator(".agrag-passage").count() >= 1
    lab.shot(inspector.locator(".agrag-detail"), "04_selected_row.png")


def test_03_comparisons_and_charts_render(page: Any, lab: Any) -> None:
    lab.run_notebook(page, "03_compare_recipes")
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
        lab.shot(widget, f"03_comparison_{name}.png", whole=True)
    # the static chart drawn outside the widgets
    total = page.locator(".jp-Notebook .js-plotly-plot").count()
    assert total == 13, total
    lab.shot(page.locator(".jp-NotebookPanel").first, whole=True, name="03_compare_recipes.png")


def test_the_lab_helpers_measure_themes_contrast_and_the_viewport(page: Any, lab: Any) -> None:
    """The shared helpers themselves: a theme switch changes the page; contrast and viewport are measured."""
    lab.open_notebook(page, "01_quickstart")
    assert page.viewport_size == {"width": 1366, "height": 768}
    backgrounds = {}
    for theme in lab.each_theme(page):
        backgrounds[theme] = page.evaluate("() => getComputedStyle(document.body).getPropertyValue('--jp-layout-color0').trim()")
        lab.shot(page, f"01_quickstart_{theme}.png")
        # JupyterLab's own file browser passes WCAG AA in both themes
        assert lab.contrast_failures(page.locator(".jp-DirListing-content")) == []
    assert backgrounds["light"] != backgrounds["dark"]
    # an injected grey-on-white text fails, and a box below the fold is not in the viewport
    page.evaluate("""() => {
      const d = document.createElement('div'); d.id = 'probe';
      d.style.cssText = 'position:fixed;left:0;top:0;background:#fff;color:#aaa;z-index:9999';
      d.textContent = 'pale text'; document.body.appendChild(d);
      const f = document.createElement('div'); f.id = 'below';
      f.style.cssText = 'position:fixed;left:0;top:2000px;width:50px;height:50px';
      f.textContent = 'x'; document.body.appendChild(f);
    }""")
    [failure] = lab.contrast_failures(page.locator("#probe"))
    assert failure["text"] == "pale text" and failure["ratio"] < 2.5
    assert lab.in_viewport(page.locator("#probe")) and not lab.in_viewport(page.locator("#below"))
