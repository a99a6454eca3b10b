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
VIEWPORT = {"width": 1366, "height": 768}
RUN_TIMEOUT_MS = 600_000
MIN_CONTRAST = 4.5
THEMES = {"light": "JupyterLab Light", "dark": "JupyterLab Dark"}

ALL_NUMBERED = """() => {
  const prompts = [...document.querySelectorAll('.jp-Notebook .jp-CodeCell .jp-InputPrompt')]
    .map(e => e.textContent.trim());
  return prompts.length > 0 && prompts.every(t => /^\\[\\d+\\]:$/.test(t));
}"""

#: Text elements under a root whose colour contrasts too little with the background behind them
#: (WCAG 2 relative luminance; semi-transparent colours blended over what is behind them).
LOW_CONTRAST = """([root, minimum]) => {
  const parse = (c) => { const m = c.match(/[\\d.]+/g); if (!m) return null;
    return [+m[0], +m[1], +m[2], m.length > 3 ? +m[3] : 1]; };
  const over = (top, bottom) => [0, 1, 2].map(i => top[i] * top[3] + bottom[i] * (1 - top[3])).concat([1]);
  const background = (el) => {
    const layers = [];
    for (let e = el; e; e = e.parentElement) {
      const c = parse(getComputedStyle(e).backgroundColor);
      if (c && c[3] > 0) { layers.push(c); if (c[3] >= 1) break; }
    }
    let colour = [255, 255, 255, 1];
    for (const layer of layers.reverse()) colour = over(layer, colour);
    return colour;
  };
  const lum = (c) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]); };
  const bad = [];
  for (const el of root.querySelectorAll('*')) {
    const own = [...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
    const box = el.getBoundingClientRect();
    if (!own || box.width === 0 || box.height === 0 || el.closest('svg')) continue;
    const bg = background(el);
    const fg = over(parse(getComputedStyle(el).color), bg);
    const [a, b] = [lum(fg), lum(bg)].sort((x, y) => y - x);
    const ratio = (a + 0.05) / (b + 0.05);
    if (ratio < minimum) bad.push({text: el.textContent.trim().slice(0, 40), ratio: +ratio.toFixed(2),
      colour: getComputedStyle(el).color, cls: el.className});
  }
  return bad;
}"""

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


@pytest.fixture(scope="module")
def browser(lab_server: Any) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS, headless=True)
        yield chromium
        chromium.close()


@pytest.fixture(scope="module")
def notebook(browser: Any, lab_server: Any) -> Iterator[Any]:
    """Notebook 06 run whole in JupyterLab at 1366x768 (the theme is set back to light afterwards)."""
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    page.set_default_timeout(120_000)
    page.goto(lab_server.url("lab/workspaces/graph-views/tree/notebooks/06_graph_walks.ipynb"))
    page.wait_for_selector(".jp-NotebookPanel .jp-Notebook .jp-Cell")
    page.wait_for_function(
        "() => /Idle/.test(document.querySelector('#jp-main-statusbar')?.textContent || '')", timeout=180_000
    )
    page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^Run$")).click()
    page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Run All Cells$")).click()
    page.wait_for_function(ALL_NUMBERED, timeout=RUN_TIMEOUT_MS)
    errors = page.locator(".jp-OutputArea-output", has_text="Traceback (most recent call last)")
    assert errors.count() == 0, errors.first.inner_text()[:2000]
    try:
        yield page
    finally:
        _set_theme(page, "light")
        context.close()


def _set_theme(page: Any, theme: str) -> None:
    page.keyboard.press("Escape")
    page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^Settings$")).click()
    page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Theme$")).hover()
    page.locator(".lm-Menu-itemLabel", has_text=re.compile(f"^{THEMES[theme]}$")).click()
    light = "true" if theme == "light" else "false"
    page.wait_for_function(f"() => document.body.dataset.jpThemeLight === '{light}'", timeout=30_000)
    page.wait_for_timeout(1500)  # let the widgets redraw with the theme's colours


def _shot(locator: Any, name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / name
    locator.scroll_into_view_if_needed()
    locator.screenshot(path=str(path))
    return path


def _check_walk_view(page: Any, theme: str) -> None:
    view = page.locator(".agrag-graph-walk").first
    view.scroll_into_view_if_needed()
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
    point = max(boxes["edgePoints"], key=clearance)  # the edge middle farthest from any node
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
    _shot(view, f"graph-views-walk-{theme}.png")
    low = page.evaluate(LOW_CONTRAST, [view.element_handle(), MIN_CONTRAST])
    assert low == [], low


def _check_explorer(page: Any, theme: str) -> None:
    explorer = page.locator(".agrag-explorer").first
    explorer.scroll_into_view_if_needed()
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
    box = details.bounding_box()
    assert box is not None and box["y"] < VIEWPORT["height"] and box["y"] + min(box["height"], 200) > 0
    assert box["x"] + box["width"] <= VIEWPORT["width"] + 1
    assert explorer.locator(".agrag-explorer-passage").count() >= 1
    assert re.search(r"#c\d+$", explorer.locator(".agrag-explorer-passage-name").first.text_content() or "")
    _shot(explorer, f"graph-views-explorer-{theme}.png")
    low = page.evaluate(LOW_CONTRAST, [explorer.element_handle(), MIN_CONTRAST])
    assert low == [], low


@pytest.mark.timeout(1800)  # the first browser test of a session waits for the indexes and JupyterLab
def test_graph_views_in_light_and_dark(notebook: Any) -> None:
    for theme in ("light", "dark"):
        if theme == "dark":
            _set_theme(notebook, "dark")
        _check_walk_view(notebook, theme)
        _check_explorer(notebook, theme)
    timings = notebook.locator(".agrag-explorer").first
    assert int(timings.get_attribute("data-interactive") or "-1") >= int(timings.get_attribute("data-first-frame") or "0")
