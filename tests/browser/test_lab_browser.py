"""A person's check in a real browser: JupyterLab + Debian Chromium (Playwright), notebooks 03 and 04.

Runs every cell through JupyterLab's Run menu at 1366x768, then works the
widgets as a person would (the k slider, a row click, the tabs, the metric
menu) and reads the DOM: the fused ranking changes with k, a click shows its
explanation without scrolling, chunks have names a person can tell apart, and
every text passes WCAG contrast (4.5:1) in the light and the dark theme.
Screenshots go to ``test-artifacts/``.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

#: The first test also waits for the session's set-up (indexes, JupyterLab, Chromium).
pytestmark = pytest.mark.timeout(1800)

LEDGER_KEYS = """() => [...document.querySelectorAll(
  '.agrag-fusion-inspector .agrag-table[data-name="ledger"] tbody tr')].map(r => r.dataset.key)"""
#: An evidence id written out (ids belong in hovers and columns, not in prose).
RAW_ID = re.compile(r"[A-Za-z0-9._~-]+@[0-9a-f]{8,64}#[cs]\d")


def open_tab(widget: Any, title: str) -> None:
    widget.locator(".lm-TabBar-tab", has_text=re.compile(rf"^{re.escape(title)}$")).first.click()
    widget.page.wait_for_timeout(600)  # plotly lays out a chart that was hidden
    widget.page.evaluate("() => window.dispatchEvent(new Event('resize'))")


def test_04_inspector_refuses_with_k_and_a_click_shows_why_beside_the_ledger(page: Any, lab: Any) -> None:
    lab.run_notebook(page, "04_why_did_it_rank")
    inspector = page.locator(".agrag-fusion-inspector").first
    inspector.wait_for(state="visible")
    ledger = inspector.locator('.agrag-table[data-name="ledger"] tbody tr')
    ledger.first.wait_for(state="visible")
    assert ledger.count() > 20
    assert inspector.locator(".agrag-table-note").first.inner_text().startswith("cut:")
    assert "moved up" in inspector.locator(".agrag-legend").inner_text()  # the coloured edges are explained
    lab.shot(page.locator(".jp-NotebookPanel").first, "04_why_did_it_rank.png", whole=True)

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
    assert inspector.locator(".agrag-k-note").count() == 0  # k reorders here: no "k cannot reorder" note
    caption = inspector.locator('.agrag-table[data-name="ledger"] .agrag-table-caption').inner_text()
    assert "k=1" in caption

    # a click on a row shows its explanation and text beside the ledger, without scrolling (1366x768)
    lab.to_top(inspector)
    first = ledger.first
    first.click()
    explanation = inspector.locator(".agrag-explanation")
    explanation.wait_for(state="visible")
    assert "fused score" in explanation.inner_text()
    assert lab.in_viewport(explanation, fraction=0.9), lab.visible_fraction(explanation)
    assert lab.in_viewport(first.locator("td").first, fraction=0.9)  # the clicked row is still in sight
    assert not RAW_ID.search(explanation.inner_text()), explanation.inner_text()
    assert first.get_attribute("title") == first.get_attribute("data-key")  # the id is in the hover
    assert inspector.locator(".agrag-passage").count() >= 1

    for theme in lab.each_theme(page):
        lab.to_top(inspector)
        lab.assert_legible(inspector, f"inspector, ledger, {theme}")
        lab.shot(page, f"04_inspector_ledger_{theme}.png")
        open_tab(inspector, "contributions chart")
        bars = inspector.locator(".js-plotly-plot .bars path")
        # a plotly chart laid out while its tab was hidden
        # draws on the next resize, so a slow machine gets a resize every few seconds until it has
        for _ in range(60):
            if bars.count() > 0 and bars.first.is_visible():
                break
            page.evaluate("() => window.dispatchEvent(new Event('resize'))")
            page.wait_for_timeout(5_000)
        bars.first.wait_for(state="visible", timeout=30_000)
        assert bars.count() > 0
        lab.assert_legible(inspector, f"inspector, chart, {theme}")
        assert lab.clipped_legends(inspector) == []  # the legend's title ("source") is whole
        lab.shot(page, f"04_inspector_chart_{theme}.png")
        open_tab(inspector, "fusion ledger")


def test_03_comparisons_names_tabs_and_statistics_that_follow_the_metric(page: Any, lab: Any) -> None:
    lab.run_notebook(page, "03_compare_recipes")
    comparisons = page.locator(".agrag-recipe-comparison")
    comparisons.nth(1).wait_for(state="visible")
    assert comparisons.count() == 2
    for i, name in enumerate(("workshop", "musique")):
        widget = comparisons.nth(i)
        rows = widget.locator('.agrag-table[data-name="side-by-side"] tbody tr')
        rows.first.wait_for(state="visible")
        assert rows.count() > 5
        # names a person can tell apart: no two rows show the same title
        titles = widget.locator('.agrag-table[data-name="side-by-side"] td[data-column="title"]').all_inner_texts()
        assert len(set(titles)) == len(titles), titles
        assert any(re.search(r"#c\d+$", t) for t in titles)  # passages carry their chunk number
        lab.to_top(widget)
        rows.nth(1).click()
        detail = widget.locator(".agrag-detail .agrag-explanation")
        detail.wait_for(state="visible")
        assert lab.in_viewport(detail, fraction=0.5), lab.visible_fraction(detail)
        assert not RAW_ID.search(detail.inner_text())

        # overlap: on passages (documents, as evaluated) or on items
        assert widget.locator('.agrag-table[data-name="overlap"] tbody tr').count() == 3
        caption = widget.locator('.agrag-table[data-name="overlap"] .agrag-table-caption')
        assert "documents" in caption.inner_text()
        widget.locator(".widget-toggle-button", has_text="items").click()
        expect(caption).to_contain_text("on items")

        open_tab(widget, "rank shift")
        widget.locator(".js-plotly-plot .scatterlayer").first.wait_for(state="visible")
        open_tab(widget, "contributions")
        notes = widget.locator(".agrag-single-vote")
        plots = widget.locator(".js-plotly-plot:visible")
        assert notes.count() + plots.count() == 3  # a chart, or a note when every result has a single vote
        assert "single vote" in notes.first.inner_text()  # CHUNK: one source per result

        open_tab(widget, "on the benchmark")
        metrics = widget.locator('.agrag-table[data-name="metrics"]')
        assert metrics.locator("tbody tr").count() == 3
        assert "too few for a confidence interval" in widget.locator(".agrag-warning").inner_text()
        assert set(metrics.locator('td[data-column="ci"]').all_inner_texts()) == {"too few queries"}
        assert metrics.locator("td.best").count() >= 5  # the best mean of each metric in bold
        verdicts = metrics.locator('td[data-column="verdict"]').all_inner_texts()
        assert verdicts[0] == "baseline" and set(verdicts[1:]) <= {"better", "worse", "not significant"}
        widget.locator(".widget-dropdown select").last.select_option("ndcg@10")
        expect(metrics.locator("th", has_text="ndcg@10 95% CI")).to_have_count(1)
        wins = widget.locator(".js-plotly-plot").last
        ticks = [t for t in wins.locator(".ytick text").evaluate_all("els => els.map(e => e.textContent)") if t.strip()]
        assert ticks and all(re.fullmatch(r"[−-]?\d+", t.strip()) for t in ticks), ticks  # whole queries

        for theme in lab.each_theme(page):
            for tab in ("overlap", "on the benchmark"):
                open_tab(widget, tab)
                lab.to_top(widget)
                lab.assert_legible(widget, f"{name} comparison, {tab}, {theme}")
                lab.shot(page, f"03_comparison_{name}_{tab.replace(' ', '_')}_{theme}.png")
        open_tab(widget, "overlap")
    lab.shot(page.locator(".jp-NotebookPanel").first, "03_compare_recipes.png", whole=True)


def test_the_lab_helpers_measure_themes_contrast_and_the_viewport(page: Any, lab: Any) -> None:
    """The shared helpers themselves: a theme switch changes the page; contrast and viewport are measured."""
    lab.open_notebook(page, "01_quickstart")
    assert page.viewport_size == {"width": 1366, "height": 768}
    backgrounds = {}
    for theme in lab.each_theme(page):
        backgrounds[theme] = page.evaluate(
            "() => getComputedStyle(document.body).getPropertyValue('--jp-layout-color0').trim()"
        )
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
