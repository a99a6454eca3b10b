"""The gallery's geometry checks catch the defects they are for: small real pages, drawn by Chromium.

Each page shows one defect the workbench's views had (a column cut without an
ellipsis, two chart labels that read alike, numbers scrolled out of sight, a
walk view taller than the screen, plotly's modebar over a title) beside the
same markup done right; the
check that :mod:`gallery_checks` (the gallery test's own) runs must report
the first and not the second. The tables carry the table widget's own
stylesheet and the charts are drawn by plotly.js, as in JupyterLab.
No JupyterLab is started: the pages are set directly.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import plotly
import pytest
from gallery_checks import geometry_problems, of_kind

from agrag_lab.widgets import table as table_widget

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"]
TABLE_CSS = (Path(table_widget.__file__).parent / "table.css").read_text(encoding="utf-8")
PLOTLY_JS = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"


@pytest.fixture(scope="module")
def bare_page() -> Iterator[Any]:
    """A page of Debian's Chromium at 1366x768, with no server behind it."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        page = chromium.new_page(viewport={"width": 1366, "height": 768})
        yield page
        chromium.close()


def _show(page: Any, body: str, *, plotly_js: bool = False) -> None:
    page.set_content(f"<!doctype html><meta charset='utf-8'><style>{TABLE_CSS}</style>"
                     f"<body style='margin:0;font-family:Arial'>{body}</body>")
    if plotly_js:
        page.add_script_tag(path=str(PLOTLY_JS))


def _problems(page: Any, selector: str) -> list[dict[str, Any]]:
    return geometry_problems(page, page.query_selector(selector))


def _table(name: str, cells: list[tuple[str, str, bool]], *, width: int = 1000, head: str = "") -> str:
    """A table as the table widget draws it: ``cells`` are (column, text, right-aligned)."""
    right_aligned = " style='text-align: right'"
    tds = "".join(f"<td data-column='{c}'{right_aligned if right else ''}>{t}</td>" for c, t, right in cells)
    return (f"<div class='agrag-table' data-name='{name}'><div class='agrag-table-scroll' style='max-width:{width}px'>"
            f"<table><thead><tr>{head}</tr></thead><tbody><tr>{tds}</tr></tbody></table></div></div>")


def test_a_column_cut_without_an_ellipsis_is_reported(bare_page: Any) -> None:
    # the mean-overlap table across two indexes: "GRAPH_HYBRID @ carol" cut to "GRAPH_HYBRID @ c", no ellipsis
    name = "GRAPH_HYBRID @ carol-christmas"
    # a header as wide as its column allows, its overflow hidden (a table cell ignores max-width: a block inside it)
    cut = "<th><div style='width:8em;overflow:hidden;white-space:nowrap;text-overflow:clip'>{}</div></th>"
    _show(bare_page, "<div id='old'>" + _table("mean-overlap", [("a", "CHUNK", False), ("rbo", "0.512", True)],
                                               head=cut.format(name) + "<th>rbo</th>") + "</div>"
          + "<div id='new'>" + _table("mean-overlap", [("a", "CHUNK", False), ("rbo", "0.512", True)],
                                      head=f"<th title='{name}'><div style='width:8em;overflow:hidden;white-space:nowrap;"
                                           f"text-overflow:ellipsis'>{name}</div></th><th>rbo</th>") + "</div>")
    old = of_kind(_problems(bare_page, "#old"), "clipped")
    assert [p["text"] for p in old] == [name], json.dumps(old)
    assert of_kind(_problems(bare_page, "#new"), "clipped") == []


def test_a_column_cut_by_the_table_edge_is_reported(bare_page: Any) -> None:
    # the mean overlap across two indexes: the second recipe column half in view, its names cut at the scroller's edge
    first, second = ("a", "GRAPH_HYBRID @ graphrag", False), ("b", "LIGHTRAG_HYBRID @ lightrag", False)
    numbers = [("rbo", "0.512", True), ("jaccard", "0.250", True)]
    head = "<th>recipe a</th><th>recipe b</th><th>RBO</th><th>Jaccard</th>"
    _show(bare_page, "<div id='old'>" + _table("mean-overlap", [first, second, *numbers], width=300, head=head) + "</div>"
          + "<div id='new'>" + _table("mean-overlap", [first, second, *numbers], width=700, head=head) + "</div>")
    old = of_kind(_problems(bare_page, "#old"), "clipped")
    assert [p["text"] for p in old] == ["recipe b"], json.dumps(old)
    assert of_kind(_problems(bare_page, "#new"), "clipped") == []


def _bar_chart(page: Any, div: str, labels: list[str]) -> None:
    page.evaluate("""([div, labels]) => Plotly.newPlot(div, [{type: 'bar', orientation: 'h', x: [3, 2],
        y: [0, 1]}], {width: 700, height: 320, margin: {l: 260}, yaxis: {tickvals: [0, 1], ticktext: labels}})""",
                  [div, labels])


def test_two_equal_labels_of_a_chart_are_reported(bare_page: Any) -> None:
    # a rank-shift chart of an imported index: two passages of one document, both named by their cut first words
    _show(bare_page, "<div id='old'><div id='old-chart'></div></div><div id='new'><div id='new-chart'></div></div>",
          plotly_js=True)
    _bar_chart(bare_page, "old-chart", ["a-christmas-carol.txt: 'Marley was dead'…"] * 2)
    _bar_chart(bare_page, "new-chart", ["a-christmas-carol.txt: 'Marley was dead'… #c0", "a-christmas-carol.txt: 'Marley was dead'… #c1"])
    old = of_kind(_problems(bare_page, "#old"), "equal labels")
    assert len(old) == 1 and old[0]["text"].startswith("a-christmas-carol.txt"), json.dumps(old)
    assert of_kind(_problems(bare_page, "#new"), "equal labels") == []


def test_a_number_out_of_sight_is_reported(bare_page: Any) -> None:
    # ten recipes across two indexes: the names fill the width, every number is scrolled out of sight
    wide = [("a", "GRAPH_HYBRID @ graphrag", False), ("b", "LIGHTRAG_HYBRID @ lightrag " * 3, False),
            ("c", "GRAPH_EXPAND @ graphrag " * 3, False), ("rbo", "0.512", True), ("jaccard", "0.250", True)]
    _show(bare_page, "<div id='old'>" + _table("mean-overlap", wide, width=600) + "</div>"
          + "<div id='new'>" + _table("mean-overlap", [wide[0], wide[3], wide[4]], width=600) + "</div>")
    old = of_kind(_problems(bare_page, "#old"), "number off-screen")
    assert [p["column"] for p in old] == ["rbo"], json.dumps(old)
    assert of_kind(_problems(bare_page, "#old"), "key column") == []  # the item stays in view: only numbers are lost
    assert of_kind(_problems(bare_page, "#new"), "number off-screen") == []


def _walk(page: Any, div: str, height: int) -> None:
    page.evaluate("""([div, height]) => Plotly.newPlot(div, [{type: 'scatter', mode: 'markers', x: [0, 1], y: [0, 1]}],
        {height: height, margin: {t: 20, b: 20}})""", [div, height])


def test_a_walk_view_taller_than_the_screen_is_reported(bare_page: Any) -> None:
    # the old view: a 1,000 px drawing with the node selector under it; the new: 560 px, the panel beside it
    panel = "<div class='agrag-walk-panel' style='{}'><select><option>(select a node)</option></select></div>"
    _show(bare_page,
          "<div id='old' class='agrag-graph-walk'><div id='old-plot' style='width:900px'></div>"
          + panel.format("width:300px") + "</div>"
          "<div id='new' class='agrag-graph-walk' style='display:flex'><div id='new-plot' style='width:900px'></div>"
          + panel.format("width:300px") + "</div>", plotly_js=True)
    _walk(bare_page, "old-plot", 1000)
    _walk(bare_page, "new-plot", 560)
    old = _problems(bare_page, "#old")
    assert of_kind(old, "walk off-screen") and of_kind(old, "walk panel"), json.dumps(old)
    bare_page.evaluate("() => document.querySelector('#new').scrollIntoView({block: 'start'})")
    new = _problems(bare_page, "#new")
    assert of_kind(new, "walk off-screen") == [] and of_kind(new, "walk panel") == [], json.dumps(new)


def test_a_modebar_over_the_title_is_reported(bare_page: Any) -> None:
    # the walk view of a traverse, drawn by walk_figure in its 620 px column: its title was drawn in the band where
    # plotly shows its buttons (y 0.98 of the figure, no padding, a 90 px top margin), and the buttons covered its end
    from agrag_lab.widgets.walk_figure import FIT_WIDTH_PX, walk_figure
    from agrag_lab.widgets.walk_model import WalkEdge, WalkGraph, WalkNode

    def node(name: str, hop: int, y: float) -> WalkNode:
        return WalkNode(id=name, title=name, label="PERSON", hop=hop, role="seed" if hop == 0 else "added", seed="SCROOGE",
                        rank=1, community=None, community_title="", description="", chunk_ids=(), x=hop, y=y)

    reached = ["BOB CRATCHIT", "JACOB MARLEY", "GHOST OF CHRISTMAS PRESENT", "TINY TIM"]
    graph = WalkGraph(
        nodes=(node("SCROOGE", 0, 0.0), *(node(n, 1, float(i)) for i, n in enumerate(reached))),
        edges=tuple(WalkEdge("SCROOGE", "RELATED_TO", n) for n in reached), seeds=("SCROOGE",),
        title="traverse from SCROOGE: 4 entities within 1 hop (asked for depth 2: the graph's edge stopped it); "
              "relations followed both ways",
    )
    new = json.loads(walk_figure(graph).to_json())
    old = json.loads(walk_figure(graph).to_json())
    old["layout"]["title"].update(y=0.98, pad={"t": 0})
    old["layout"]["margin"]["t"] = 90
    _show(bare_page, f"<div id='old'><div id='old-plot' style='width:{FIT_WIDTH_PX}px'></div></div>"
                     f"<div id='new'><div id='new-plot' style='width:{FIT_WIDTH_PX}px'></div></div>", plotly_js=True)
    for div, fig in (("old-plot", old), ("new-plot", new)):
        bare_page.evaluate("([div, fig]) => Plotly.newPlot(div, fig.data, fig.layout, {displaylogo: false})", [div, fig])
    found = of_kind(_problems(bare_page, "#old"), "modebar")
    assert [p["text"] for p in found] == [graph.title.partition(" (")[0]], json.dumps(found)
    assert of_kind(_problems(bare_page, "#new"), "modebar") == []
