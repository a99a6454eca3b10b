"""GraphExplorer's render time in the real browser (issue 17).

The explorer's own module (the vendored sigma.js bundle plus
``graph_explorer.js``) is loaded into headless Debian Chromium (``--disable-gpu``:
WebGL through SwiftShader) with the synced state Python would send, through a
minimal stand-in for the anywidget model (``get``/``set``/``on``); JupyterLab and
the kernel are left out so the figure is the drawing alone. Measured, per graph:

* Python: :func:`~agrag_lab.widgets.graph_explorer.explorer_view` (view,
  starting layout; the graph store already loaded) and the JSON size of the
  synced state;
* browser: time from ``render()`` to sigma's first drawn frame, to
  interactive (the main thread free again after that frame), and the time of
  one redraw (``refresh``) once the ForceAtlas2 worker has stopped;
* the plain baseline, in the same page and run: one frame of the same nodes
  and edges drawn with the canvas 2D API by a bare loop (no library, no
  labels, no hit-testing).

Run: ``python -m benchmarks.graph_explorer --index PATH [--graphrag DIR]``;
``benchmarks/run.py`` calls :func:`bench` with the MuSiQue index.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from agrag_lab import Graph
from agrag_lab.widgets.graph_explorer import ExplorerCanvas, explorer_view

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]
#: The Christmas Carol GraphRAG output (v3 tables) the import tests use.
GRAPHRAG = Path(__file__).resolve().parents[1] / "datasets" / "msgraphrag_christmas_carol" / "v3"
REPEATS = 3

RENDER = """async ([code, state]) => {
  const handlers = {};
  window.__state = state;
  const model = {
    get: (k) => window.__state[k],
    set: (k, v) => { window.__state[k] = v; (handlers['change:' + k] || []).forEach(f => f()); },
    on: (e, f) => { (handlers[e] = handlers[e] || []).push(f); },
    save_changes: () => {},
  };
  const url = URL.createObjectURL(new Blob([code], {type: 'text/javascript'}));
  const module = await import(url);
  module.default.render({model, el: document.getElementById('host')});
}"""

REDRAW = """() => {
  const r = document.querySelector('.agrag-explorer-canvas').__sigma;
  const times = [];
  for (let i = 0; i < 5; i++) { const t = performance.now(); r.refresh(); times.push(performance.now() - t); }
  return times.reduce((a, b) => a + b) / times.length;
}"""

#: One frame of the same graph drawn by a bare canvas 2D loop: the plain baseline.
BASELINE = """(state) => new Promise((done) => {
  const t0 = performance.now();
  const canvas = document.createElement('canvas');
  canvas.width = 1000; canvas.height = 560;
  document.body.appendChild(canvas);
  const ctx = canvas.getContext('2d');
  const xs = state.x, ys = state.y;
  let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
  for (let i = 0; i < xs.length; i++) { x0 = Math.min(x0, xs[i]); x1 = Math.max(x1, xs[i]); y0 = Math.min(y0, ys[i]); y1 = Math.max(y1, ys[i]); }
  const sx = (v) => 10 + (v - x0) / ((x1 - x0) || 1) * 980, sy = (v) => 10 + (v - y0) / ((y1 - y0) || 1) * 540;
  ctx.strokeStyle = '#ccc'; ctx.beginPath();
  for (let k = 0; k < state.sources.length; k++) {
    ctx.moveTo(sx(xs[state.sources[k]]), sy(ys[state.sources[k]])); ctx.lineTo(sx(xs[state.targets[k]]), sy(ys[state.targets[k]]));
  }
  ctx.stroke(); ctx.fillStyle = '#0072B2';
  for (let i = 0; i < xs.length; i++) { ctx.beginPath(); ctx.arc(sx(xs[i]), sy(ys[i]), 2, 0, 6.283); ctx.fill(); }
  requestAnimationFrame(() => done(performance.now() - t0));
})"""


def _page_html() -> str:
    css = Path(ExplorerCanvas._css).read_text(encoding="utf-8")  # the widget's own style sheet (anywidget's _css)
    return f"<!doctype html><html><head><style>{css} body{{margin:0}}</style></head><body><div id=host></div></body></html>"


def measure(graph: Any, *, layout_seconds: float = 4.0, repeats: int = REPEATS) -> dict[str, Any]:
    """Render the whole graph of ``graph`` (a Graph or a graph store) ``repeats`` times in Chromium; medians."""
    from playwright.sync_api import sync_playwright

    _ = getattr(graph, "graph_store", graph)  # loaded once per index, before any view: not part of drawing one
    started = time.perf_counter()
    view = explorer_view(graph)
    view_seconds = time.perf_counter() - started
    state = view.state()
    payload = json.dumps(state)
    model = {"view": state, "colour_by": "community", "selected": "", "details": {}, "scope": {},
             "layout_seconds": layout_seconds, "height": "560px", "timings": {}}
    code = ExplorerCanvas._esm  # the widget's own module: vendored renderer and view (anywidget's _esm)
    first, interactive, redraw, baseline = [], [], [], []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        try:
            for _ in range(repeats):
                page = browser.new_page(viewport={"width": 1366, "height": 768})
                page.set_content(_page_html())
                baseline.append(page.evaluate(BASELINE, state))
                page.evaluate(RENDER, [code, model])
                page.wait_for_function("() => window.__state.timings.interactive !== undefined", timeout=300_000)
                page.wait_for_function(
                    "() => document.querySelector('.agrag-explorer')?.dataset.layoutDone === '1'", timeout=300_000
                )
                timings = page.evaluate("() => window.__state.timings")
                first.append(timings["first_frame"])
                interactive.append(timings["interactive"])
                redraw.append(page.evaluate(REDRAW))
                page.close()
        finally:
            browser.close()
    return {
        "entities": len(view.ids), "relations": len(view.edges), "view_s": view_seconds,
        "state_mb": len(payload.encode("utf-8")) / 1e6, "first_frame_ms": statistics.median(first),
        "interactive_ms": statistics.median(interactive), "redraw_ms": statistics.median(redraw),
        "baseline_ms": statistics.median(baseline), "repeats": repeats,
    }


def _row(name: str, m: dict[str, Any]) -> str:
    ratio = m["first_frame_ms"] / m["baseline_ms"] if m["baseline_ms"] else float("nan")
    return (
        f"| {name} | {m['entities']:,} / {m['relations']:,} | {m['view_s'] * 1000:.0f} ms, {m['state_mb']:.1f} MB "
        f"| **{m['first_frame_ms']:,.0f} ms** | **{m['interactive_ms']:,.0f} ms** | {m['redraw_ms']:.0f} ms "
        f"| {m['baseline_ms']:,.0f} ms | {ratio:.1f} |"
    )


HEADER = [
    "Headless Debian Chromium `--disable-gpu` (sigma.js 3.0.3 on SwiftShader WebGL), 1366x768, the whole graph, "
    f"median of {REPEATS} renders; JupyterLab and the kernel left out (see `benchmarks/graph_explorer.py`).",
    "",
    "| graph | entities / relations | Python: view + layout, state | first frame | interactive "
    "| one redraw | baseline: bare canvas 2D frame | first frame / baseline |",
    "|---|---|---|---|---|---|---|---|",
]


def imported_graphrag(folder: Path, root: Path) -> Graph | None:
    """The GraphRAG output at ``folder`` imported into ``root`` (None when the folder is missing)."""
    if not folder.exists():
        return None
    graph = Graph.open(root / "imported")
    graph.import_graphrag(folder)
    return graph


def bench(graph: Graph, graphrag: Path = GRAPHRAG) -> list[str]:
    """The section of ``BENCHMARKS.md``: ``graph`` (the MuSiQue index) and an imported GraphRAG index."""
    lines = [*HEADER, _row("MuSiQue (ours)", measure(graph))]
    with tempfile.TemporaryDirectory() as tmp:
        imported = imported_graphrag(graphrag, Path(tmp))
        if imported is None:
            lines.append(f"| imported GraphRAG | (not measured: no GraphRAG output at {graphrag}) | | | | | | |")
        else:
            lines.append(_row(f"GraphRAG import ({graphrag.parent.name}/{graphrag.name})", measure(imported)))
            imported.close()
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--index", required=True, help="an index folder (e.g. the MuSiQue index)")
    parser.add_argument("--graphrag", default=str(GRAPHRAG), help="a GraphRAG output folder to import and draw")
    args = parser.parse_args(argv)
    graph = Graph.open(args.index, read_only=True)
    print("\n".join(bench(graph, Path(args.graphrag))))
    graph.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
