"""The gallery's geometry checks, importable: what a person needs of a view, read from the DOM in Chromium.

:func:`geometry_problems` runs :data:`GEOMETRY_JS` on one widget's root and
returns a list of problems, each saying what and where (``what`` is one of
:data:`CHECKS`). ``tests/browser/test_gallery_browser.py`` runs it on every
view of the workbench; ``tests/browser/test_gallery_checks_browser.py`` runs
it on small pages built to show each defect, so each check is shown to fail
where it should.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: What a problem's ``what`` says, by check (the ones the issue names first).
CHECKS = {
    "clipped": "text cut without an ellipsis and a title",
    "equal labels": "two labels of one chart are equal",
    "number off-screen": "a number outside the visible box",
    "key column": "key column outside the visible box",
    "walk off-screen": "walk drawing not inside the screen",
    "walk panel": "walk node panel not beside the drawing",
    "modebar": "modebar over the chart title",
}

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

  // 0. the walk view fits the screen: its drawing inside the visible box, the node panel beside it (not below)
  if (root.matches('.agrag-graph-walk')) {
    const plot = root.querySelector('.js-plotly-plot'), panel = root.querySelector('.agrag-walk-panel');
    if (plot && shown(plot)) {
      const r = plot.getBoundingClientRect(), b = visibleBox(plot);
      if (!inside(r, b, 2)) problems.push({what: 'walk drawing not inside the screen', at: round(r), box: round(b)});
      if (!panel || !shown(panel)) problems.push({what: 'walk view without its node panel'});
      else {
        const q = panel.getBoundingClientRect(), select = panel.querySelector('select');
        // beside the drawing, or below a drawing as wide as the view (a long walk needs the cell's width)
        const beside = q.left >= r.right - 2;
        if (!beside && r.width < 0.85 * root.getBoundingClientRect().width)
          problems.push({what: 'walk node panel not beside the drawing', panel: round(q), drawing: round(r)});
        if (beside && select && !inside(select.getBoundingClientRect(), visibleBox(select), 2))
          problems.push({what: 'walk node selector not inside the screen', at: round(select.getBoundingClientRect())});
      }
    }
  }

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
    // every number of the row in view beside the key column, without scrolling sideways (ten recipes, two indexes)
    for (const other of cells) {
      if (other === cell || other.style.textAlign !== 'right' || !other.textContent.trim()) continue;
      const o = other.getBoundingClientRect();
      if (o.right > b.right + 1 || o.left < b.left - 1)
        { problems.push({what: 'a number outside the visible box', table: name, column: other.dataset.column,
                         cell: round(o), box: round(b)}); break; }
    }
    // no text column cut by the table's edge: a cell or heading half in view reads as a shorter name, with no
    // ellipsis to say so (the mean overlap across two indexes read "GRAPH_HYBRID @ c")
    const head = [...table.querySelectorAll('thead th')];
    for (const other of [...head, ...cells]) {
      if (other.style.textAlign === 'right' || !other.textContent.trim()) continue;
      const o = other.getBoundingClientRect(), e = visibleBox(other);
      if ((o.left < e.right - 1 && o.right > e.right + 1) || (o.right > e.left + 1 && o.left < e.left - 1))
        { problems.push({what: 'text cut without an ellipsis and a title', table: name, text: other.textContent.trim().slice(0, 60),
                         cut: 'at the edge of the visible box', cell: round(o), box: round(e)}); break; }
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
    // plotly's modebar (its buttons, shown while the pointer is over the chart) never covers the title or subtitle
    const bar = plot.querySelector('.modebar');
    for (const t of bar ? plot.querySelectorAll('.gtitle, .gtitle-subtitle') : []) {
      const r = t.getBoundingClientRect(), m = bar.getBoundingClientRect();
      if (r.width > 0 && m.width > 0 && overlap(r, m) > 0) {
        problems.push({what: 'modebar over the chart title', chart: title, text: t.textContent.slice(0, 50),
                       title: round(r), modebar: round(m)}); break; }
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


def geometry_problems(page: Any, root: Any, key_columns: Mapping[str, str] | None = None) -> list[dict[str, Any]]:
    """The geometry problems of the widget at ``root`` (an element handle) on ``page``, as :data:`GEOMETRY_JS` finds them.

    ``key_columns`` names the item's column of each table (``data-name``); default :data:`KEY_COLUMNS`.
    """
    found: list[dict[str, Any]] = page.evaluate(GEOMETRY_JS, [root, dict(key_columns or KEY_COLUMNS)])
    return found


def of_kind(problems: list[dict[str, Any]], check: str) -> list[dict[str, Any]]:
    """The problems of one check of :data:`CHECKS` (by its short name)."""
    return [p for p in problems if p.get("what") == CHECKS[check]]
