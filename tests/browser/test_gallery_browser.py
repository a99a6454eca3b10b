"""Every table, chart and graph view, measured in a real browser, and a screenshot gallery.

One generated notebook (``gallery.ipynb``, written into the lab's served copy)
puts every widget of the workbench on one page: the recipe editor, the fusion
inspector (at k = 1), two recipe comparisons (the workshop index with its
benchmark, and the imported GraphRAG index, one document), the citation
checker, two graph walk views and the graph explorer on the imported index.
One page, run once; then, in the light and the dark theme at 1366x768, each
widget is scrolled to and read from the DOM as a person would:

* every table's key column (the item's name) is inside the visible box and
  left of the numbers, and every number of its row is in view too;
* no text overflows its cell unless it ends in an ellipsis and has a title;
* every chart's SVG text lies inside the chart's visible box, no axis title
  or annotation is drawn over tick numbers, bars start at zero, and a chart's
  legend does not cover its plot;
* the explorer's legend is beside the canvas, a neighbourhood's nodes all lie
  inside the canvas after its layout settles, and a node keeps its colour
  between the whole graph and a neighbourhood, and has that colour in the walk
  view of the same index;
* a walk view (15 nodes) fits the screen: its drawing inside it, the node
  panel beside it.

The checks live in ``gallery_checks.py``; ``test_gallery_checks_browser.py``
shows each one failing on a page with the defect it is for.

Every screenshot goes to ``test-artifacts/gallery/`` with an ``index.html``
(each widget, light and dark, 1366x768; and 1920x1080), and every problem
found to ``problems.json`` there.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

import pytest
from gallery_checks import geometry_problems

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
    cells: list[dict[str, Any]] = [{"cell_type": "code", "execution_count": None, "id": f"c{i}", "metadata": {}, "outputs": [],
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
    problems += [json.dumps(p) for p in geometry_problems(page, explorer.element_handle()) if "node name" in p["what"]]
    name = f"explorer-neighbourhood-{theme}.png"
    lab.shot(page, f"gallery/{name}")
    shots.append((name, f"explorer: a neighbourhood, {theme}"))
    explorer.locator(".agrag-explorer-button", has_text="whole graph").click()
    return problems


#: Each entity node of a walk view's drawing -> the colour its marker is filled with (plotly's data).
WALK_COLOURS = """(root) => { const plot = root.querySelector('.js-plotly-plot'), out = {};
  for (const t of (plot && plot.data) || []) {
    if (!t.customdata || !t.marker || !String(t.marker.symbol || '').startsWith('circle')) continue;
    t.customdata.forEach((id, i) => { out[id] = Array.isArray(t.marker.color) ? t.marker.color[i] : t.marker.color; });
  }
  return out; }"""


def _colours_match(page: Any, explorer: Any) -> list[str]:
    """One colour per community in every view of one index: each entity of the Christmas Carol walk view has the
    colour the explorer (the same index) paints it."""
    walk = page.locator(".agrag-graph-walk >> nth=1").first
    in_walk = walk.evaluate(WALK_COLOURS)
    painted = explorer.evaluate(EXPLORER_NODES)["nodes"]
    shared = [n for n in in_walk if n in painted]
    if len(shared) < 5:
        return [f"only {len(shared)} entities of the walk found in the explorer"]
    return [f"{n}: {in_walk[n]} in the walk view, {painted[n]['colour']} in the explorer" for n in shared
            if str(in_walk[n]).lower() != str(painted[n]["colour"]).lower()]


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
                found = geometry_problems(page, widget.element_handle())
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
                mismatched = _colours_match(page, widget)
                if mismatched:
                    problems[f"explorer and walk view colours ({theme})"] = list(mismatched)
                near = _neighbourhood(page, lab, widget, theme, shots)
                if near:
                    problems[f"explorer neighbourhood ({theme})"] = list(near)
    page.set_viewport_size({"width": 1920, "height": 1080})
    page.wait_for_timeout(1000)
    for selector, name, _tabs in WIDGETS:
        widget = page.locator(selector).first
        lab.to_top(widget)
        empty = _wait_charts(widget)
        if empty:
            problems[f"{name} (1920x1080): charts that never drew their data"] = empty
        found = geometry_problems(page, widget.element_handle())
        if found:
            problems[f"{name} (1920x1080)"] = found
        lab.to_top(widget)
        lab.shot(page, f"gallery/{name}-1920x1080.png")
        shots.append((f"{name}-1920x1080.png", f"{name}, light, 1920x1080"))
    _write_index(shots)
    (GALLERY / "problems.json").write_text(json.dumps(problems, indent=1, ensure_ascii=False), encoding="utf-8")
    assert problems == {}, json.dumps(problems, indent=1)[:12000]
