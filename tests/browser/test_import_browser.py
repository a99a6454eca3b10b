"""Notebook 08 in JupyterLab in Chromium: the imported GraphRAG index drawn by GraphWalkView and FusionInspector.

Screenshots (light and dark theme, 1366x768 viewport) go to ``test-artifacts/``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from test_lab_browser import CHROMIUM, _open_and_run_all, _shot, browser

__all__ = ["browser"]  # the module's browser fixture, shared

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's Chromium at /usr/bin/chromium")


@pytest.fixture
def small_page(browser: Any) -> Iterator[Any]:
    """A 1366x768 page (the workshop laptops' screen)."""
    context = browser.new_context(viewport={"width": 1366, "height": 768})
    page = context.new_page()
    page.set_default_timeout(120_000)
    yield page
    context.close()


def _dark(page: Any) -> None:
    page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^Settings$")).click()
    page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Theme$")).click()
    page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^JupyterLab Dark$")).click()
    page.wait_for_function("() => document.body.dataset.jpThemeLight === 'false'", timeout=60_000)
    page.wait_for_timeout(1500)


def test_08_graphrag_import_is_drawn(small_page: Any, lab_server: Any) -> None:
    page = small_page
    _open_and_run_all(page, lab_server, "08_inspect_a_graphrag_index")
    walk = page.locator(".agrag-graph-walk").first
    walk.wait_for(state="visible")
    assert walk.locator(".js-plotly-plot").count() == 1
    labels = walk.locator(".js-plotly-plot").inner_text()
    assert "JACOB MARLEY" in labels or "EBENEZER SCROOGE" in labels  # GraphRAG's entity titles
    inspector = page.locator(".agrag-fusion-inspector").first
    ledger = inspector.locator('.agrag-table[data-name="ledger"] tbody tr')
    ledger.first.wait_for(state="visible")
    assert ledger.count() > 5
    comparison = page.locator(".agrag-recipe-comparison").first
    comparison.wait_for(state="visible")
    for theme in ("light", "dark"):
        if theme == "dark":
            _dark(page)
        _shot(walk, f"08_graph_walk_{theme}.png")
        _shot(inspector, f"08_inspector_{theme}.png")
        _shot(comparison, f"08_comparison_{theme}.png")
