"""Notebook 08 in JupyterLab in Chromium: the imported GraphRAG index drawn by GraphWalkView,
FusionInspector and the recipe comparison, in the light and dark theme at 1366x768.

Screenshots go to ``test-artifacts/08_*.png``.
"""

from __future__ import annotations

from typing import Any

import polars as pl

from agrag_lab.lab import carol_source


def test_08_an_imported_graphrag_index_is_drawn_with_its_entities_and_reports(page: Any, lab: Any) -> None:
    lab.run_notebook(page, "08_inspect_a_graphrag_index")
    titles = set(pl.read_parquet(carol_source() / "entities.parquet")["title"])
    walk = page.locator(".agrag-graph-walk").first
    walk.wait_for(state="visible")
    assert walk.locator(".js-plotly-plot").count() == 1
    drawn = {t.strip() for t in walk.locator(".js-plotly-plot text").all_text_contents()}
    assert drawn & titles, f"the walk draws none of GraphRAG's entity titles: {sorted(drawn)[:20]}"
    inspector = page.locator(".agrag-fusion-inspector").first
    ledger = inspector.locator('.agrag-table[data-name="ledger"] tbody tr')
    ledger.first.wait_for(state="visible")
    assert ledger.count() > 5
    comparison = page.locator(".agrag-recipe-comparison").first
    comparison.wait_for(state="visible")
    reports = set(pl.read_parquet(carol_source() / "community_reports.parquet")["title"])
    assert any(r in page.locator(".jp-Notebook").inner_text() for r in reports), "no GraphRAG report title is shown"
    for theme in lab.each_theme(page):
        for name, widget in (("graph_walk", walk), ("inspector", inspector), ("comparison", comparison)):
            lab.assert_legible(widget, f"notebook 08 {name} ({theme})")
            lab.shot(widget, f"08_{name}_{theme}.png")
