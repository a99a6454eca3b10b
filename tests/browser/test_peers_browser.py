"""Notebook 09 in JupyterLab in Chromium at 1366x768: ten recipes side by side stay readable.

The comparison of the eight peer recipes and two of ours keeps its key column (the item's
title) in view, whatever the number of recipe columns; the evaluation chart's text is whole
(no legend, title or tick label past the figure's edge) and legible in the light and dark theme.
Screenshots go to ``test-artifacts/09_*.png``.
"""

from __future__ import annotations

from typing import Any

import pytest

from agrag_lab.recipes import peers

pytestmark = pytest.mark.timeout(1800)

#: Chart texts (title, axis titles, tick labels, legend entries) whose box reaches past the drawn figure.
_CLIPPED_TEXT_JS = r"""
(plot) => {
  const svg = plot.querySelector('.main-svg');
  const f = svg.getBoundingClientRect(), box = plot.getBoundingClientRect();
  const left = Math.max(f.left, box.left), right = Math.min(f.right, box.right);
  const out = [];
  for (const t of plot.querySelectorAll('.gtitle, .xtitle, .ytitle, .xtick text, .ytick text, .legendtext')) {
    const r = t.getBoundingClientRect();
    if (r.width < 1 || !t.textContent.trim()) continue;
    if (r.left < left - 1 || r.right > right + 1 || r.top < f.top - 1 || r.bottom > f.bottom + 1)
      out.push(t.textContent);
  }
  return out;
}
"""


def test_09_peer_recipes_side_by_side_keep_their_key_column_and_whole_charts(page: Any, lab: Any) -> None:
    lab.run_notebook(page, "09_graphrag_methods_side_by_side")
    comparisons = page.locator(".agrag-recipe-comparison")
    comparisons.nth(1).wait_for(state="visible")
    assert comparisons.count() == 2  # the ten recipes on the Carol import; two recipes on two indexes
    carol = comparisons.first
    table = carol.locator('.agrag-table[data-name="side-by-side"]')
    table.locator("tbody tr").first.wait_for(state="visible")
    # every peer recipe has its column: past ten recipes a letter heads it, and the caption keys each letter to its name
    assert table.locator("thead th").count() >= len(peers()) + 1
    named = carol.inner_text()
    assert all(name in named for name in peers()), named
    lab.to_top(carol)
    key = table.locator('td[data-column="title"]').first
    assert lab.visible_fraction(key) > 0.9, lab.visible_fraction(key)  # not pushed out by the recipe columns
    box, window = carol.bounding_box(), page.viewport_size
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= window["width"] + 1  # no page scroll
    across = comparisons.nth(1)
    assert "chunks800" in across.inner_text() and "chunks200" in across.inner_text()
    inspector = page.locator(".agrag-fusion-inspector").first
    inspector.locator('.agrag-table[data-name="ledger"] tbody tr').first.wait_for(state="visible")
    # the notebook's own chart (the cell that draws it), not a plot inside a widget's hidden tab
    cell = page.locator(".jp-CodeCell", has_text="metric_comparison(result")
    chart = cell.locator(".jp-OutputArea-output .jp-RenderedPlotly, .jp-OutputArea-output.jp-RenderedPlotly").first
    lab.to_top(chart)
    page.evaluate("() => window.dispatchEvent(new Event('resize'))")
    chart.locator(".main-svg").first.wait_for(state="visible")
    for theme in lab.each_theme(page):
        lab.to_top(chart)
        assert chart.evaluate(_CLIPPED_TEXT_JS) == [], theme
        assert lab.clipped_legends(chart) == [], theme
        lab.assert_legible(chart, f"notebook 09 chart ({theme})")
        lab.shot(page, f"09_chart_{theme}.png")
        for name, widget in (("comparison", carol), ("inspector", inspector), ("across", across)):
            lab.to_top(widget)
            lab.assert_legible(widget, f"notebook 09 {name} ({theme})")
            lab.shot(page, f"09_{name}_{theme}.png")
