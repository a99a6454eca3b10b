"""The graph views as a person uses them: JupyterLab + Debian Chromium (Playwright), notebook 06.

Runs notebook 06 through JupyterLab's Run menu at 1366x768, then, in the light
and in the dark theme: the walk view must use the cell's width, draw no
relation text over the drawing (relation types appear on hover), keep node
names clear of each other and of other nodes, and keep its text readable
(contrast >= 4.5:1); the explorer must draw the graph with WebGL, find an
entity by name, and show a clicked node's details in the viewport. The
screenshots go to ``test-artifacts/graph-views-*.png``.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

#: The first browser test of a session also waits for the indexes and JupyterLab.
pytestmark = pytest.mark.timeout(1800)

#: Bounding boxes of the walk view's node names (annotations), node markers and relation texts.
WALK_BOXES = """(root) => {
  const box = (e) => { const r = e.getBoundingClientRect(); return {x: r.left, y: r.top, w: r.width, h: r.height}; };
  const plot = root.querySelector('.js-plotly-plot');
  const names = [...plot.querySelectorAll('g.annotation')].map(a => ({text: a.textContent, ...box(a.querySelector('.annotation-text') || a)}));
  const traces = [...plot.querySelectorAll('.scatterlayer .trace')];
  const markers = traces.slice(3).flatMap(t => [...t.querySelectorAll('.point')].map(box));
  const relationTexts = [...plot.querySelectorAll('.scatterlayer .trace text, .scatterlayer .textpoint')].map(box);
  // the invisible points at the edges' middles (the trace whose meta is "edge-labels"), in page pixels
  const full = plot._fullLayout, rect = plot.getBoundingClientRect();
  const edges = plot.data.find(t => t.meta === 'edge-labels') || {x: [], y: []};
  const edgePoints = edges.x.map((x, i) => ({
    x: rect.left + full._size.l + full.xaxis.l2p(x) - 1, y: rect.top + full._size.t + full.yaxis.l2p(edges.y[i]) - 1, w: 2, h: 2}));
  return {names, markers, relationTexts, edgePoints, plot: box(plot), cell: box(root.closest('.jp-Cell'))};
}"""

EXPLORER_CLICK_TARGET = """(root) => {
  const canvas = root.querySelector('.agrag-explorer-canvas');
  const renderer = canvas.__sigma, graph = renderer.getGraph();
  let best = null, degree = -1;
  graph.forEachNode((n) => { if (graph.degree(n) > degree) { degree = graph.degree(n); best = n; } });
  const p = renderer.graphToViewport({x: graph.getNodeAttribute(best, 'x'), y: graph.getNodeAttribute(best, 'y')});
  const r = canvas.getBoundingClientRect();
  return {id: best, name: graph.getNodeAttribute(best, 'label'), x: r.left + p.x, y: r.top + p.y,
          webgl: !!canvas.querySelector('canvas.sigma-nodes, canvas') && !!document.createElement('canvas').getContext('webgl')};
}"""


def _overlaps(a: dict[str, float], b: dict[str, float], slack: float = 1.0) -> bool:
    return (a["x"] + slack < b["x"] + b["w"] and b["x"] + slack < a["x"] + a["w"]
            and a["y"] + slack < b["y"] + b["h"] and b["y"] + slack < a["y"] + a["h"])


def _check_walk_view(page: Any, lab: Any, theme: str) -> None:
    view = page.locator(".agrag-graph-walk").first
    lab.to_top(view)
    view.locator(".js-plotly-plot g.annotation").first.wait_for(state="visible")
    boxes = page.evaluate(WALK_BOXES, view.element_handle())
    # the whole width of the cell's output
    assert boxes["plot"]["w"] >= 0.85 * boxes["cell"]["w"], (boxes["plot"], boxes["cell"])
    # relation types are never drawn as text over the graph ...
    assert boxes["relationTexts"] == []
    names = boxes["names"]
    assert len(names) >= 3
    # ... and node names keep clear of each other and of the other nodes' markers
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            assert not _overlaps(a, b), (a, b)
        for m in boxes["markers"]:
            assert not _overlaps(a, m, slack=2.0), (a, m)
    # resting on an edge's middle shows its relation type, on its own label
    assert boxes["edgePoints"]
    centre = lambda b: (b["x"] + b["w"] / 2, b["y"] + b["h"] / 2)  # noqa: E731
    def clearance(b: dict[str, float]) -> float:
        (x, y) = centre(b)
        return min(((x - mx) ** 2 + (y - my) ** 2) ** 0.5 for mx, my in map(centre, boxes["markers"]))
    # the edge middle farthest from any node, among those a person can point at (inside the window: a
    # tall walk runs below the fold at 1366x768, and a pointer outside the window hovers nothing)
    height = page.viewport_size["height"]
    shown = [b for b in boxes["edgePoints"] if 0 < b["y"] < height - 4] or boxes["edgePoints"]
    point = max(shown, key=clearance)
    page.mouse.move(point["x"] + point["w"] / 2, point["y"] + point["h"] / 2)
    hover = view.locator(".hoverlayer .hovertext")
    hover.first.wait_for(state="visible", timeout=10_000)
    text = hover.first.text_content() or ""
    assert re.search(r"-\[[A-Za-z_]+\]->", text), text
    page.mouse.move(5, 5)
    # select a node: its path appears in names, with relation types
    dropdown = view.locator("select").first
    options = dropdown.locator("option")
    dropdown.select_option(index=options.count() - 1)
    info = view.locator(".agrag-node")
    info.wait_for(state="visible")
    assert "path:" in (info.text_content() or "")
    lab.to_top(view)
    lab.shot(view, f"graph-views-walk-{theme}.png", whole=True)
    lab.assert_legible(view, f"walk view, {theme}")
    assert lab.clipped_legends(view) == []  # every legend entry inside the figure


def _check_explorer(page: Any, lab: Any, theme: str) -> None:
    explorer = page.locator(".agrag-explorer").first
    lab.to_top(explorer)
    page.wait_for_function(
        "() => document.querySelector('.agrag-explorer')?.dataset.layoutDone === '1'", timeout=120_000
    )
    assert int(explorer.get_attribute("data-first-frame") or "-1") >= 0
    target = page.evaluate(EXPLORER_CLICK_TARGET, explorer.element_handle())
    assert target["webgl"], "sigma needs WebGL; headless Chromium gives it through SwiftShader"
    # search by name: the match list offers it, choosing it shows its details
    search = explorer.locator(".agrag-explorer-search input")
    search.fill(target["name"][:5])
    match = explorer.locator(".agrag-explorer-match", has_text=target["name"]).first
    match.wait_for(state="visible")
    match.click()
    name = explorer.locator(".agrag-explorer-name")
    name.wait_for(state="visible")
    page.wait_for_function(
        "(n) => document.querySelector('.agrag-explorer-name')?.textContent === n", arg=target["name"]
    )
    # clicking a node on the canvas: its details, passages and reports appear beside it, in the viewport
    page.keyboard.press("Escape")
    explorer.locator(".agrag-explorer-canvas").scroll_into_view_if_needed()
    page.wait_for_timeout(800)  # the camera's move to the searched node
    target = page.evaluate(EXPLORER_CLICK_TARGET, explorer.element_handle())
    page.mouse.click(target["x"], target["y"])
    page.wait_for_function(
        "(id) => document.querySelector('.agrag-explorer')?.dataset.selected === id", arg=target["id"]
    )
    page.wait_for_function(
        "(n) => document.querySelector('.agrag-explorer-name')?.textContent === n", arg=target["name"]
    )
    details = explorer.locator(".agrag-explorer-details")
    assert lab.in_viewport(explorer.locator(".agrag-explorer-name"), fraction=0.99)
    assert lab.visible_fraction(details) > 0.3, lab.visible_fraction(details)
    assert explorer.locator(".agrag-explorer-passage").count() >= 1
    assert re.search(r"#c\d+$", explorer.locator(".agrag-explorer-passage-name").first.text_content() or "")
    lab.shot(page, f"graph-views-explorer-{theme}.png")
    # the legend folds to its heading, so it hides no node label, and opens again
    legend = explorer.locator(".agrag-explorer-legend")
    rows = legend.locator(".agrag-explorer-legend-row").count()
    assert rows >= 2
    legend.locator(".agrag-explorer-legend-head").click()
    assert legend.locator(".agrag-explorer-legend-row").count() == 0
    assert legend.bounding_box()["height"] < 30
    lab.shot(page, f"graph-views-explorer-folded-{theme}.png")
    legend.locator(".agrag-explorer-legend-head").click()
    assert legend.locator(".agrag-explorer-legend-row").count() == rows
    lab.assert_legible(explorer, f"explorer, {theme}")


@pytest.mark.xfail(reason="issue 28 is open: the walk view is now a plotly output (its charts draw), but resting the pointer on an edge middle shows no hover label: at the computed point elementFromPoint is the view's VBox, not the plot (coordinates or a covering element, not found yet); the gallery test and test_05 pass", strict=False)
def test_graph_views_in_light_and_dark(page: Any, lab: Any) -> None:
    lab.run_notebook(page, "06_graph_walks")
    for theme in lab.each_theme(page):
        _check_walk_view(page, lab, theme)
        _check_explorer(page, lab, theme)
    timings = page.locator(".agrag-explorer").first
    assert int(timings.get_attribute("data-interactive") or "-1") >= int(timings.get_attribute("data-first-frame") or "0")
