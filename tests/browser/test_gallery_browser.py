"""Every table, chart and graph view, measured in a real browser, and a screenshot gallery.

One generated notebook (``gallery.ipynb``, written into the lab's served copy)
puts every widget of the workbench on one page: the recipe editor, the fusion
inspector (at k = 1), two recipe comparisons (the workshop index with its
benchmark, and the imported GraphRAG index, one document), the citation
checker, two graph walk views and the graph explorer on the imported index.
One page, run once; then, in the light and the dark theme at 1366x768, each
widget is scrolled to and read from the DOM as a person would:

* every table's key column (the item's name) is inside the visible box and
  left of the numbers;
* no text overflows its cell unless it ends in an ellipsis and has a title;
* every chart's SVG text lies inside the chart's visible box, no axis title
  or annotation is drawn over tick numbers, bars start at zero, and a chart's
  legend does not cover its plot;
* the explorer's legend is beside the canvas, a neighbourhood's nodes all lie
  inside the canvas after its layout settles, and a node keeps its colour
  between the whole graph and a neighbourhood.

Every screenshot goes to ``test-artifacts/gallery/`` with an ``index.html``
(each widget, light and dark, 1366x768; and 1920x1080).
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

import pytest

#: The first browser test of a session also waits for the indexes and JupyterLab.
pytestmark = pytest.mark.timeout(3000)

GALLERY = Path(__file__).resolve().parents[2] / "test-artifacts" / "gallery"

CELLS = [
    """import os
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
import plotly.io as pio
pio.renderers.default = "plotly_mimetype"
from agrag_lab import recipes
from agrag_lab.eval import workshop
from agrag_lab.lab import open_carol, open_workshop
from agrag_lab.widgets import (CitationChecker, FusionInspector, GraphExplorer, GraphWalkView, RecipeComparison,
                               RecipeEditor, table_frame)
graph = open_workshop()
engine = graph.engine()
carol = open_carol()
carol_engine = carol.engine()""",
    """RecipeEditor(recipes.HYBRID.replace(**{"walk.enabled": True, "walk.strategy": "ppr"}), engine=engine,
             query="Who worked with Babbage?")""",
    """bfs_expand = recipes.GRAPH_EXPAND.replace(name="GRAPH_EXPAND_BFS", **{"walk.strategy": "bfs"})
inspector = FusionInspector(engine.run("Who worked with Babbage?", bfs_expand), session=graph.evidence())
inspector.k = 1
inspector""",
    """bench = workshop()
compare = RecipeComparison(engine, [recipes.CHUNK, recipes.HYBRID, recipes.GRAPH_EXPAND],
                           {q: bench.queries[q] for q in ("q01", "q04", "q05")}, benchmark=bench)
compare""",
    """table_frame(compare.model.metric_rows())""",
    """six = [recipes.ENTITY, recipes.CHUNK, recipes.HYBRID,
       recipes.HYBRID_RERANKED.replace(**{"rerank.kind": "graph_distance"}), recipes.GRAPH_EXPAND, recipes.THEMATIC]
carol_compare = RecipeComparison(carol_engine, six, {"marley": "Who was Jacob Marley and why does his ghost visit Scrooge?"})
carol_compare""",
    """session = graph.evidence()
found = session.discover("Bernoulli numbers", limit=2)
session.fetch(found.ids[:1])
CitationChecker(session, f"Lovelace computed the Bernoulli numbers [{found.ids[0]}], see also [{found.ids[1]}].")""",
    """walk_run = engine.run("Who worked with Babbage?", recipes.GRAPH_EXPAND)
GraphWalkView(walk_run, graph=graph, session=graph.evidence())""",
    """seed = carol_engine.find_entity("Jacob Marley")
GraphWalkView(carol_engine.traverse(seed, depth=2, limit=15), seed=seed, graph=carol, session=carol.evidence())""",
    """explorer = GraphExplorer(carol, layout_seconds=2.0)
explorer""",
]

#: The views on indexes nobody here made: GraphRAG 3.3.0's output and a LightRAG directory with Chinese text
#: (tests/fixtures/peers), and ten recipes across both. ``{graphrag}`` and ``{lightrag}`` are their index folders.
PEER_CELLS = [
    """from agrag_lab import Graph
from agrag_lab.notebook_inputs import pick_examples
peer = Graph.open({graphrag!r}, read_only=True)
light = Graph.open({lightrag!r}, read_only=True)
picked = pick_examples(peer)
peer_compare = RecipeComparison(peer.engine(), six, dict(picked.questions))
peer_compare""",
    """peer_seed = peer.engine().find_entity(picked.entity)
GraphWalkView(peer.engine().traverse(peer_seed, depth=2, limit=15), seed=peer_seed, depth=2, graph=peer,
              session=peer.evidence())""",
    """chinese = {{"zh": "刘备、关羽和张飞在哪里结义？", "en": pick_examples(light).questions["entity"]}}
light_compare = RecipeComparison(light.engine(), [recipes.CHUNK, recipes.HYBRID, recipes.get("LIGHTRAG_HYBRID")],
                                 chinese)
light_compare""",
    """FusionInspector(light_compare.model.get("LIGHTRAG_HYBRID", "zh"), session=light.evidence())""",
    """ten = [*recipes.RECIPES.values(), *list(recipes.peers().values())[:10 - len(recipes.RECIPES)]]
RecipeComparison(None, ten, {{"q": picked.questions["entity"]}}, graphs={{"graphrag": peer, "lightrag": light}})""",
]

#: Each widget's root, its gallery name, and the tabs to open in turn ("" = as it opens).
WIDGETS = [
    (".agrag-recipe-editor", "recipe-editor", [""]),
    (".agrag-fusion-inspector", "fusion-inspector", ["", "contributions chart"]),
    (".agrag-recipe-comparison >> nth=0", "comparison-workshop",
     ["", "overlap", "rank shift", "contributions", "on the benchmark"]),
    (".agrag-recipe-comparison >> nth=1", "comparison-imported", ["", "overlap", "rank shift"]),
    (".agrag-citation-checker", "citation-checker", [""]),
    (".agrag-graph-walk >> nth=0", "walk-workshop", [""]),
    (".agrag-graph-walk >> nth=1", "walk-imported", [""]),
    (".agrag-graph-explorer", "explorer", [""]),
    (".agrag-recipe-comparison >> nth=2", "comparison-graphrag-3.3", ["", "overlap", "rank shift", "contributions"]),
    (".agrag-graph-walk >> nth=2", "walk-graphrag-3.3", [""]),
    (".agrag-recipe-comparison >> nth=3", "comparison-lightrag-chinese",
     ["", "overlap", "rank shift", "contributions"]),
    (".agrag-fusion-inspector >> nth=1", "fusion-inspector-lightrag-chinese", ["", "contributions chart"]),
    (".agrag-recipe-comparison >> nth=4", "comparison-ten-recipes-two-indexes", ["", "overlap", "rank shift"]),
]

#: The column that names the item, by table; every other table: its first column.
KEY_COLUMNS = {
    "side-by-side": "title", "ledger": "title", "editor-results": "title", "citations": "citation",
    "metrics": "recipe", "per-query": "query", "overlap": "a", "mean-overlap": "a",
    "explorer-entities": "name", "explorer-relations": "source", "explorer-communities": "title",
}

#: What a person needs of a view, read from the DOM: a list of problems, each saying what and where.
GEOMETRY_JS = r"""
([root, keyColumns]) => {
  const problems = [];
  const shown = (e) => { const r = e.getBoundingClientRect(); if (r.width < 1 || r.height < 1) return false;
    for (let x = e; x && x !== document.body; x = x.parentElement) {
      const s = getComputedStyle(x); if (s.display === 'none' || s.visibility === 'hidden') return false; }
    return true; };
  // the box a person can see of an element: the window and every ancestor that clips
  const visibleBox = (el) => {
    let b = {left: 0, top: 0, right: window.innerWidth, bottom: window.innerHeight};
    for (let e = el.parentElement; e && e !== document.body; e = e.parentElement) {
      const s = getComputedStyle(e);
      if (/(auto|scroll|hidden|clip)/.test(s.overflowX + s.overflowY)) {
        const c = e.getBoundingClientRect();
        b = {left: Math.max(b.left, c.left), top: Math.max(b.top, c.top),
             right: Math.min(b.right, c.right), bottom: Math.min(b.bottom, c.bottom)};
      }
    }
    return b;
  };
  const inside = (r, b, slack = 1) => r.left >= b.left - slack && r.right <= b.right + slack
    && r.top >= b.top - slack && r.bottom <= b.bottom + slack;
  const overlap = (a, b) => Math.max(0, Math.min(a.right, b.right) - Math.max(a.left, b.left))
    * Math.max(0, Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top));
  const round = (r) => [r.left, r.top, r.right, r.bottom].map(Math.round);

  // 1. tables: the key column first, inside the visible box
  for (const table of root.querySelectorAll('.agrag-table')) {
    if (!shown(table)) continue;
    const row = table.querySelector('tbody tr');
    if (!row) continue;
    const name = table.dataset.name;
    const cells = [...row.querySelectorAll('td')];
    const key = keyColumns[name] || (cells[0] && cells[0].dataset.column);
    const cell = row.querySelector(`td[data-column="${key}"]`);
    if (!cell) { problems.push({what: 'no key column', table: name, key}); continue; }
    const scroller = table.querySelector('.agrag-table-scroll');
    if (scroller) scroller.scrollLeft = 0;
    cell.scrollIntoView({block: 'nearest', inline: 'nearest'});
    const r = cell.getBoundingClientRect(), b = visibleBox(cell);
    if (!inside({left: r.left, right: r.left + Math.min(r.width, 80), top: r.top, bottom: r.bottom}, b))
      problems.push({what: 'key column outside the visible box', table: name, key, cell: round(r), box: round(b)});
    for (const other of cells) {
      if (other === cell || other.style.textAlign !== 'right') continue;  // numbers are right-aligned
      if (other.getBoundingClientRect().left < r.left)
        { problems.push({what: 'a number before the key column', table: name, key, column: other.dataset.column}); break; }
    }
  }
  // 2. no text cut short without an ellipsis and a title
  for (const el of root.querySelectorAll('td, th, span, div, b, a, li, label, button, h3, p')) {
    if (el.closest('.js-plotly-plot, select, textarea, input, .agrag-explorer-canvas')) continue;
    const own = [...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
    if (!own || !shown(el)) continue;
    const s = getComputedStyle(el);
    if (el.scrollWidth <= el.clientWidth + 1 || !/(hidden|clip|auto|scroll)/.test(s.overflowX)) continue;
    const titled = !!el.closest('[title]') && el.closest('[title]').title.trim() !== '';
    if (s.textOverflow !== 'ellipsis' || !titled)
      problems.push({what: 'text cut without an ellipsis and a title', text: el.textContent.trim().slice(0, 60),
                     ellipsis: s.textOverflow, titled});
  }
  // 3. charts: text inside the chart's visible box, never over the tick numbers; bars from zero; legend off the plot
  for (const plot of root.querySelectorAll('.js-plotly-plot')) {
    // a plot whose box is shorter than its drawing: the controls below draw over it (the walk view's plot
    // collapsed to 0 px after a resize) and a check of shown elements would skip it
    const drawing = plot.querySelector('.main-svg');
    if (drawing && plot.offsetParent !== null && drawing.getBoundingClientRect().height > 0
        && plot.getBoundingClientRect().height < drawing.getBoundingClientRect().height - 2)
      problems.push({what: 'chart box shorter than its drawing', chart: (plot.querySelector('.gtitle') || {}).textContent || '',
                     box: Math.round(plot.getBoundingClientRect().height), drawing: Math.round(drawing.getBoundingClientRect().height)});
    if (!shown(plot)) continue;
    const svg = plot.querySelector('.main-svg');
    if (!svg) continue;
    plot.scrollIntoView({block: 'nearest'});
    const p = plot.getBoundingClientRect(), v = visibleBox(plot);
    const box = {left: Math.max(p.left, v.left), right: Math.min(p.right, v.right), top: p.top, bottom: p.bottom};
    const title = (plot.querySelector('.gtitle') || {}).textContent || '';
    if (svg.getBoundingClientRect().width > v.right - v.left + 2)
      problems.push({what: 'chart wider than its box', chart: title, width: Math.round(svg.getBoundingClientRect().width),
                     box: Math.round(v.right - v.left)});
    const texts = [...plot.querySelectorAll('.main-svg text')].filter(t => !t.closest('.hoverlayer') && t.textContent.trim());
    for (const t of texts) {
      const r = t.getBoundingClientRect();
      if (r.width < 1) continue;
      if (!inside(r, box)) problems.push({what: 'chart text clipped', chart: title, text: t.textContent.slice(0, 50),
                                          at: round(r), box: round(box)});
    }
    const ticks = [...plot.querySelectorAll('.xtick text, .ytick text')].map(t => t.getBoundingClientRect()).filter(r => r.width > 0);
    for (const t of plot.querySelectorAll('.g-xtitle text, .g-ytitle text, .annotation-text')) {
      const r = t.getBoundingClientRect();
      if (r.width < 1) continue;
      for (const k of ticks) if (overlap(r, k) > 4) {
        problems.push({what: 'chart text over the tick numbers', chart: title, text: t.textContent.slice(0, 50)}); break; }
    }
    const full = plot._fullLayout;
    for (const trace of (plot._fullData || [])) {
      if (trace.type !== 'bar' || trace.visible !== true) continue;
      const axis = full[(trace.orientation === 'h' ? trace.xaxis : trace.yaxis).replace(/^([xy])/, '$1axis')];
      if (axis && axis.range && Math.min(...axis.range) > 1e-9 * Math.max(1, Math.abs(axis.range[1])))
        problems.push({what: 'bars not drawn from zero', chart: title, range: axis.range});
    }
    // no two labels of one chart equal: the items of a rank-shift or a contributions chart must read apart
    for (const group of ['.ytick text', '.xtick text', '.scatterlayer .textpoint text']) {
      const seen = new Set();
      for (const t of plot.querySelectorAll(group)) {
        const label = t.textContent.trim();
        if (!label || /^[-+]?[0-9.,%]+$/.test(label)) continue;  // tick numbers repeat across axes
        if (seen.has(label)) { problems.push({what: 'two labels of one chart are equal', chart: title, text: label.slice(0, 60)}); break; }
        seen.add(label);
      }
    }
    const legend = plot.querySelector('.legend'), drag = plot.querySelector('.nsewdrag');
    if (legend && drag) {
      const l = legend.getBoundingClientRect(), d = drag.getBoundingClientRect();
      if (overlap(l, d) > 0.05 * l.width * l.height) problems.push({what: 'legend over the plot', chart: title});
    }
  }
  // 4. the explorer: its legend beside the canvas
  for (const legend of root.querySelectorAll('.agrag-explorer-legend')) {
    const canvas = root.querySelector('.agrag-explorer-canvas');
    if (canvas && shown(legend) && overlap(legend.getBoundingClientRect(), canvas.getBoundingClientRect()) > 0)
      problems.push({what: 'legend over the graph canvas'});
  }
  // 5. the explorer's node names: each whole inside the canvas, none printed over another, and enough of them
  for (const canvas of root.querySelectorAll('.agrag-explorer-canvas')) {
    const renderer = canvas.__sigma;
    if (!renderer || !shown(canvas)) continue;
    const {width, height} = renderer.getDimensions();
    let labels = canvas.__labels;
    if (!labels) {  // sigma's own drawer: every displayed name right of its node
      const s = renderer.getSettings(), g = document.createElement('canvas').getContext('2d');
      g.font = `${s.labelWeight} ${s.labelSize}px ${s.labelFont}`;
      labels = [...renderer.displayedNodeLabels].map(k => renderer.getNodeDisplayData(k)).filter(d => d && d.label)
        .map(d => { const p = renderer.framedGraphToViewport(d), x = p.x + renderer.scaleSize(d.size) + 3;
          return {left: x, right: x + g.measureText(d.label).width, top: p.y - s.labelSize / 2, bottom: p.y + s.labelSize / 2,
                  label: d.label}; });
    }
    if (labels.length < 5) problems.push({what: 'fewer than 5 node names drawn on the graph', names: labels.length});
    for (const l of labels)
      if (!inside(l, {left: 0, top: 0, right: width, bottom: height}))
        problems.push({what: 'node name cut at the canvas edge', text: l.label, at: round(l), canvas: [width, height]});
    for (let i = 0; i < labels.length; i++)
      for (let j = i + 1; j < labels.length; j++)
        if (overlap(labels[i], labels[j]) > 6)
          problems.push({what: 'node names printed over each other', text: [labels[i].label, labels[j].label]});
  }
  return problems;
}
"""

#: Every node of the explorer's view, with its place on screen and its colour, and the canvas's box.
EXPLORER_NODES = """(root) => {
  const canvas = root.querySelector('.agrag-explorer-canvas');
  const renderer = canvas.__sigma, graph = renderer.getGraph(), r = canvas.getBoundingClientRect();
  const nodes = {};
  graph.forEachNode((n, a) => { const p = renderer.graphToViewport({x: a.x, y: a.y});
    nodes[n] = {x: r.left + p.x, y: r.top + p.y, colour: a.color, label: a.label, degree: graph.degree(n)}; });
  return {nodes, canvas: {left: r.left, top: r.top, right: r.right, bottom: r.bottom}};
}"""


#: The texts of ``sample`` (a Chinese and a Cherokee name) that the browser draws as the same box as a
#: character no font has (tofu): then a name in that script reads as empty boxes.
TOFU_JS = r"""
(samples) => {
  const draw = (text) => { const c = document.createElement('canvas'); c.width = 80; c.height = 30;
    const g = c.getContext('2d'); g.font = '20px sans-serif'; g.fillText(text, 2, 22);
    return Array.from(g.getImageData(0, 0, 80, 30).data).join(','); };
  const none = draw('\u{10FFFD}');
  return samples.filter(t => draw(t) === none || draw(t) === draw(''));
}
"""


def _write_notebook(root: Path, graphrag: Path, lightrag: Path) -> None:
    sources = [*CELLS, *(cell.format(graphrag=str(graphrag), lightrag=str(lightrag)) for cell in PEER_CELLS)]
    cells = [{"cell_type": "code", "execution_count": None, "id": f"c{i}", "metadata": {}, "outputs": [],
              "source": source} for i, source in enumerate(sources)]
    notebook = {"cells": cells, "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python",
                                                              "name": "python3"}},
                "nbformat": 4, "nbformat_minor": 5}
    (root / "notebooks" / "gallery.ipynb").write_text(json.dumps(notebook), encoding="utf-8")


def _open_tab(widget: Any, title: str) -> None:
    widget.locator(".lm-TabBar-tab", has_text=re.compile(rf"^{re.escape(title)}$")).first.click()
    widget.page.wait_for_timeout(500)
    widget.page.evaluate("() => window.dispatchEvent(new Event('resize'))")
    widget.page.wait_for_timeout(500)


def _wait_charts(widget: Any) -> list[str]:
    """A plotly figure laid out while hidden draws on the next resize: nudge until every shown one drew its data.

    Returns the titles of the charts still without data after 40 s (an empty chart measures as "fine").
    """
    page = widget.page
    pending: list[str] = []
    for _ in range(20):
        pending = widget.evaluate("""(root) => [...root.querySelectorAll('.js-plotly-plot')]
            .filter(e => e.offsetParent !== null && !(e.data && e.data.length
                     && e.querySelector('.main-svg .scatterlayer .trace, .main-svg .barlayer .trace')))
            .map(e => (e.layout && e.layout.title && e.layout.title.text) || '(untitled)')""")
        if not pending:
            return []
        page.evaluate("() => window.dispatchEvent(new Event('resize'))")
        page.wait_for_timeout(2000)
    return pending


#: The error bars of the shown plotly charts (their traces' names).
ERROR_BARS_JS = """(root) => [...root.querySelectorAll('.js-plotly-plot')].filter(p => p.offsetParent !== null)
  .flatMap(p => (p._fullData || []).filter(t => t.visible === true
     && ((t.error_y && t.error_y.visible) || (t.error_x && t.error_x.visible))).map(t => t.name || t.type))"""


def _tab_checks(widget: Any, name: str, tab: str) -> list[Any]:
    """What one tab must say or not draw: the one-document overlap note; no intervals beside the warning."""
    problems: list[Any] = []
    text = widget.inner_text()
    if name == "comparison-imported" and tab == "overlap" and "one document" not in text:
        problems.append({"what": "the overlap of a one-document index does not say why it is on the items"})
    if name == "comparison-workshop" and tab == "on the benchmark":
        if "intervals are not" not in text:
            problems.append({"what": "3 judged queries and no warning that intervals are not shown"})
        bars = widget.evaluate(ERROR_BARS_JS)
        if bars:
            problems.append({"what": "error bars drawn beside the warning that intervals are not shown", "traces": bars})
    return problems


def _neighbourhood(page: Any, lab: Any, explorer: Any, theme: str, shots: list[tuple[str, str]]) -> list[str]:
    """Show the best-connected node's neighbourhood; its nodes must stay inside the canvas and keep their colours."""
    problems: list[str] = []
    page.wait_for_function("(e) => e.querySelector('.agrag-explorer')?.dataset.layoutDone === '1'",
                           arg=explorer.element_handle(), timeout=120_000)
    whole = explorer.evaluate(EXPLORER_NODES)
    hub = max(whole["nodes"], key=lambda n: (whole["nodes"][n]["degree"], n))
    page.evaluate("""([root, name]) => { const input = root.querySelector('.agrag-explorer-search input');
        input.value = name; input.dispatchEvent(new Event('input')); }""",
                  [explorer.element_handle(), whole["nodes"][hub]["label"]])
    explorer.locator(".agrag-explorer-match").first.click()
    near = explorer.locator(".agrag-explorer-button", has_text="show its neighbourhood")
    near.wait_for(state="visible")
    details = explorer.locator(".agrag-explorer-details")
    # the details panel: the whole relation count, and not many screens tall
    meta = details.locator(".agrag-explorer-meta").first.inner_text()
    degree = int(re.search(r"(\d+) related", meta).group(1))  # type: ignore[union-attr]
    section = details.locator(".agrag-explorer-section", has_text="relations").first.inner_text()
    count = int(re.search(r"\((\d+)\)", section).group(1))  # type: ignore[union-attr]
    if count < degree:
        problems.append(f"details say relations ({count}) for an entity with {degree} related entities")
    height = details.evaluate("e => [e.scrollHeight, e.clientHeight]")
    if height[0] > 3 * height[1]:
        problems.append(f"details panel {height[0]} px tall inside {height[1]} px")
    explorer.evaluate("(root) => { delete root.querySelector('.agrag-explorer').dataset.layoutDone; }")
    near.click()
    page.wait_for_function("(e) => e.querySelector('.agrag-explorer')?.dataset.layoutDone === '1'",
                           arg=explorer.element_handle(), timeout=120_000)
    page.wait_for_timeout(1500)  # the camera's last move after the layout settled
    lab.to_top(explorer)
    seen = explorer.evaluate(EXPLORER_NODES)
    box = seen["canvas"]
    out = [n for n, p in seen["nodes"].items()
           if not (box["left"] <= p["x"] <= box["right"] and box["top"] <= p["y"] <= box["bottom"])]
    if out:
        problems.append(f"{len(out)} of {len(seen['nodes'])} neighbourhood nodes outside the canvas after the layout")
    changed = [n for n, p in seen["nodes"].items() if n in whole["nodes"] and whole["nodes"][n]["colour"] != p["colour"]]
    if changed:
        problems.append(f"{len(changed)} nodes changed colour between the whole graph and the neighbourhood")
    # its names: inside the canvas, not over each other (the selected node's neighbours all ask for theirs)
    problems += [json.dumps(p) for p in page.evaluate(GEOMETRY_JS, [explorer.element_handle(), KEY_COLUMNS])
                 if "node name" in p["what"]]
    name = f"explorer-neighbourhood-{theme}.png"
    lab.shot(page, f"gallery/{name}")
    shots.append((name, f"explorer: a neighbourhood, {theme}"))
    explorer.locator(".agrag-explorer-button", has_text="whole graph").click()
    return problems


def _write_index(shots: list[tuple[str, str]]) -> None:
    items = "\n".join(
        f"<figure><a href='{html.escape(n)}'><img src='{html.escape(n)}' width='683'></a>"
        f"<figcaption>{html.escape(c)}</figcaption></figure>" for n, c in shots)
    (GALLERY / "index.html").write_text(
        "<!doctype html><meta charset='utf-8'><title>agrag_lab workbench gallery</title>"
        "<style>body{font-family:sans-serif} figure{display:inline-block;margin:8px;vertical-align:top}</style>"
        f"<h1>agrag_lab workbench: every view, light and dark, 1366x768 and 1920x1080</h1>{items}",
        encoding="utf-8")


def test_every_view_legible_at_1366x768_in_both_themes_with_a_gallery(
    page: Any, lab: Any, peer_graphrag_path: Path, peer_lightrag_path: Path
) -> None:
    _write_notebook(lab.server.root, peer_graphrag_path, peer_lightrag_path)
    GALLERY.mkdir(parents=True, exist_ok=True)
    lab.run_notebook(page, "gallery", timeout_ms=1_500_000)  # every widget of the workbench, on a shared machine
    text = page.locator(".jp-Notebook").inner_text()
    assert "_marks" not in text and "_hover" not in text, "internal columns printed in a table"
    # CJK and Cherokee names draw as glyphs, not boxes (fonts-noto-cjk and fonts-noto-core)
    assert page.evaluate(TOFU_JS, ["\u72c4", "\u13a0"]) == []
    assert "embedding model" in text  # the notice is there, but not in the error-styled box of stderr
    stderr = page.locator('.jp-RenderedText[data-mime-type="application/vnd.jupyter.stderr"]', has_text="loaded in")
    assert stderr.count() == 0, "the model-loaded notice is drawn as an error"
    shots: list[tuple[str, str]] = []
    problems: dict[str, list[Any]] = {}
    for theme in lab.each_theme(page):
        for selector, name, tabs in WIDGETS:
            widget = page.locator(selector).first
            widget.wait_for(state="attached")
            for tab in tabs:
                if tab:
                    _open_tab(widget, tab)
                lab.to_top(widget)
                empty = _wait_charts(widget)
                if empty:
                    problems[f"{name} {tab or 'as opened'} ({theme}): charts that never drew their data"] = empty
                if name == "explorer":
                    page.wait_for_function("(e) => e.querySelector('.agrag-explorer')?.dataset.layoutDone === '1'",
                                           arg=widget.element_handle(), timeout=120_000)
                found = page.evaluate(GEOMETRY_JS, [widget.element_handle(), KEY_COLUMNS])
                found += _tab_checks(widget, name, tab)
                if found:
                    problems[f"{name} {tab or 'as opened'} ({theme})"] = found
                lab.to_top(widget)
                shot = f"{name}{'-' + tab.replace(' ', '-') if tab else ''}-{theme}.png"
                lab.shot(page, f"gallery/{shot}")
                shots.append((shot, f"{name}{', ' + tab if tab else ''}, {theme}, 1366x768"))
            if len(tabs) > 1:  # back to the first tab: the next theme's "as opened" is the widget as it opens
                widget.locator(".lm-TabBar-tab").first.click()
            if name == "explorer":
                found = _neighbourhood(page, lab, widget, theme, shots)
                if found:
                    problems[f"explorer neighbourhood ({theme})"] = found
    page.set_viewport_size({"width": 1920, "height": 1080})
    page.wait_for_timeout(1000)
    for selector, name, _tabs in WIDGETS:
        widget = page.locator(selector).first
        lab.to_top(widget)
        empty = _wait_charts(widget)
        if empty:
            problems[f"{name} (1920x1080): charts that never drew their data"] = empty
        found = page.evaluate(GEOMETRY_JS, [widget.element_handle(), KEY_COLUMNS])
        if found:
            problems[f"{name} (1920x1080)"] = found
        lab.to_top(widget)
        lab.shot(page, f"gallery/{name}-1920x1080.png")
        shots.append((f"{name}-1920x1080.png", f"{name}, light, 1920x1080"))
    _write_index(shots)
    assert problems == {}, json.dumps(problems, indent=1)[:12000]
