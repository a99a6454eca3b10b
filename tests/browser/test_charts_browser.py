"""Notebook 07's charts as a person sees them: JupyterLab + Debian Chromium (Playwright), light and dark, 1366x768.

Runs the evaluation notebook through JupyterLab's Run menu, then, in each
theme, scrolls to every plotly chart and checks that its text reads
(contrast >= 4.5:1 against the theme's background: the charts have no widget,
``use_jupyterlab_theme()`` brings the theme's stylesheet) and that no legend
or legend title runs past the figure's edge. Screenshots go to
``test-artifacts/07_*.png``.
"""

from __future__ import annotations

from typing import Any

import pytest

#: The first browser test of a session also waits for the indexes and JupyterLab.
pytestmark = pytest.mark.timeout(1800)

CHART_TITLES = ("Recall@5 on workshop", "wins and losses", "by query group", "does the graph help")


def test_07_the_evaluation_charts_read_in_both_themes_with_whole_legends(page: Any, lab: Any) -> None:
    lab.run_notebook(page, "07_evaluate")
    # JupyterLab's plotly renderer draws a figure once its output is on screen: scroll to each in turn
    outputs = page.locator(".jp-OutputArea-output .jp-RenderedPlotly, .jp-OutputArea-output.jp-RenderedPlotly")
    outputs.first.wait_for(state="attached")
    assert outputs.count() >= len(CHART_TITLES)
    for i in range(outputs.count()):
        lab.to_top(outputs.nth(i))
        page.evaluate("() => window.dispatchEvent(new Event('resize'))")
        svg = outputs.nth(i).locator(".main-svg").first
        try:
            svg.wait_for(state="visible", timeout=60_000)
        except Exception as exc:  # say what JupyterLab put there instead
            raise AssertionError(outputs.nth(i).evaluate("e => e.outerHTML.slice(0, 1500)")) from exc
    charts = outputs  # the renderer's node is the plotly figure (.js-plotly-plot) itself
    titles = [c.locator(".gtitle").first.text_content() or "" for c in charts.all()]
    for expected in CHART_TITLES:
        assert any(expected.lower() in t.lower() for t in titles), (expected, titles)
    # the metric chart names each system with its letter, as ranx's reports (and the tables) do
    ticks = charts.first.locator(".xtick text").all_text_contents()
    assert ticks and all(t.endswith(")") and "(" in t for t in ticks), ticks
    for theme in lab.each_theme(page):
        for i in range(charts.count()):
            chart = charts.nth(i)
            lab.to_top(chart)
            lab.assert_legible(chart, f"notebook 07 chart {i} ({titles[i]}), {theme}")
            assert lab.clipped_legends(chart) == [], titles[i]
            lab.shot(page, f"07_chart_{i}_{theme}.png")
