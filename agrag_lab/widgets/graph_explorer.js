// agrag_lab GraphExplorer: draws the synced view with sigma.js (WebGL) over graphology.
// Python holds the state (view, selected, details, scope); this file only draws it, searches names,
// runs the ForceAtlas2 layout in a web worker and reports its timings. It is appended to the vendored
// bundle (vendor/graph-explorer-vendor.js), which defines `agragGraphVendor`.
const { Sigma, Graph, FA2Layout, forceAtlas2 } = agragGraphVendor;

// Colours come from Python (charts/palette.py, the one rule of every view of an index): by community, each
// node's colour is in view.colours; by label, the largest labels take view.palette in turn, the rest
// view.other_colour. They are fixed colours, the same in the light and the dark theme and in the walk view.

// Above this many nodes the layout runs on a copy and is drawn once, when it stops.
const LIVE_LAYOUT_NODES = 3000;

function themeColours(el) {
  const css = getComputedStyle(el);
  const read = (name, fallback) => (css.getPropertyValue(name) || "").trim() || fallback;
  return {
    background: read("--jp-layout-color0", "#ffffff"),
    panel: read("--jp-layout-color1", "#ffffff"),
    text: read("--jp-ui-font-color0", "#000000"),
    label: read("--jp-content-font-color1", "#212121"),
    muted: read("--jp-ui-font-color2", "#616161"),
    edge: read("--jp-border-color2", "#e0e0e0"),
    other: read("--jp-layout-color4", "#9e9e9e"),
    accent: read("--jp-brand-color1", "#1976d2"),
    font: read("--jp-ui-font-family", "Arial, sans-serif"),
  };
}

function mix(a, b, t) {
  // a, b: "#rrggbb" (or any CSS colour sigma accepts; non-hex falls back to b)
  const hex = (c) => /^#[0-9a-f]{6}$/i.test(c) ? [1, 3, 5].map((i) => parseInt(c.slice(i, i + 2), 16)) : null;
  const x = hex(a), y = hex(b);
  if (!x || !y) return b;
  const m = x.map((v, i) => Math.round(v * (1 - t) + y[i] * t));
  return "#" + m.map((v) => v.toString(16).padStart(2, "0")).join("");
}

function toHex(colour, el) {
  // CSS variables may hold rgb()/named colours; let the browser resolve them to rgb, then to hex
  const probe = document.createElement("span");
  probe.style.color = colour;
  el.appendChild(probe);
  const rgb = getComputedStyle(probe).color;
  probe.remove();
  const m = rgb.match(/\d+(\.\d+)?/g);
  if (!m) return colour;
  return "#" + m.slice(0, 3).map((v) => Math.round(+v).toString(16).padStart(2, "0")).join("");
}

function groupColours(view, colourBy) {
  const values = colourBy === "label" ? view.labels : view.groups;
  const counts = new Map();
  for (const v of values) if (v) counts.set(v, (counts.get(v) || 0) + 1);
  const ranked = [...counts.keys()].sort((a, b) => counts.get(b) - counts.get(a) || (a < b ? -1 : 1));
  const colour = new Map();
  const palette = view.palette || [];
  if (colourBy === "label") {
    ranked.slice(0, palette.length).forEach((g, i) => colour.set(g, palette[i]));
  } else {
    // a community's colour is keyed by its id over the whole graph (Python): the same in every view
    values.forEach((g, i) => { if (g && view.colours) colour.set(g, view.colours[i]); });
  }
  return { values, colour, ranked, counts, other: view.other_colour || "#9E9E9E", max: palette.length };
}

function el_(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

function render({ model, el }) {
  const started = performance.now();
  const root = el_("div", "agrag-explorer");
  const bar = el_("div", "agrag-explorer-bar");
  const title = el_("div", "agrag-explorer-title");
  const searchBox = el_("div", "agrag-explorer-search");
  const search = el_("input");
  search.type = "search";
  search.placeholder = "search an entity by name";
  search.setAttribute("aria-label", "search an entity by name");
  const matches = el_("div", "agrag-explorer-matches");
  searchBox.append(search, matches);
  const colourSelect = el_("select");
  colourSelect.setAttribute("aria-label", "colour by");
  for (const [v, t] of [["community", "colour: community"], ["label", "colour: label"]]) {
    const o = el_("option", "", t);
    o.value = v;
    colourSelect.appendChild(o);
  }
  const whole = el_("button", "agrag-explorer-button", "whole graph");
  const status = el_("div", "agrag-explorer-status");
  bar.append(title, searchBox, colourSelect, whole, status);
  const main = el_("div", "agrag-explorer-main");
  const stage = el_("div", "agrag-explorer-stage");
  const canvas = el_("div", "agrag-explorer-canvas");
  const legend = el_("div", "agrag-explorer-legend");
  // the legend is a strip above the canvas and the details (it folds to its heading): it never covers a node,
  // and the details start level with the canvas (with a tall legend above the canvas only, a person looking
  // at the whole canvas at 1366x768 had the clicked node's name above the window)
  stage.append(canvas);
  const details = el_("div", "agrag-explorer-details");
  main.append(stage, details);
  root.append(bar, legend, main);
  el.appendChild(root);

  let renderer = null, layout = null, graph = null, view = null, colours = null, theme = null;
  let neighbours = new Set(), layoutTimer = null, hovered = null, built = false;
  // the legend folds to its heading (a click on it) so that it hides no node labels; the choice is kept per widget
  let legendOpen = true;
  const timings = {};

  function report(name, value) {
    timings[name] = Math.round(value);
    root.dataset[name.replace(/_(\w)/g, (_, c) => c.toUpperCase())] = String(Math.round(value));
    model.set("timings", { ...timings });
    model.save_changes();
  }

  function nodeColour(i) {
    if (model.get("colour_by") !== "label" && view.colours) return view.colours[i];
    return colours.colour.get(colours.values[i]) || colours.other;
  }

  function drawLegend() {
    legend.replaceChildren();
    const colourBy = model.get("colour_by");
    const head = el_("button", "agrag-explorer-legend-head",
      `${legendOpen ? "▾" : "▸"} ${colourBy === "label" ? "label" : "top-level community"}`);
    head.title = legendOpen ? "fold the legend" : "show the legend";
    head.setAttribute("aria-expanded", String(legendOpen));
    head.addEventListener("click", () => { legendOpen = !legendOpen; drawLegend(); });
    legend.appendChild(head);
    legend.classList.toggle("agrag-explorer-legend-folded", !legendOpen);
    if (!legendOpen) return;
    const titles = view.group_titles || {};
    const listed = colours.ranked.filter((g) => colours.colour.get(g)
      && colours.colour.get(g).toLowerCase() !== colours.other.toLowerCase()).slice(0, colours.max);
    for (const g of listed) {
      const row = el_("div", "agrag-explorer-legend-row");
      const dot = el_("span", "agrag-explorer-dot");
      dot.style.background = colours.colour.get(g);
      const name = colourBy === "label" ? g : (titles[g] || g);
      row.append(dot, el_("span", "", `${name.length > 34 ? name.slice(0, 33) + "…" : name} (${colours.counts.get(g)})`));
      row.title = name;
      legend.appendChild(row);
    }
    const rest = colours.ranked.length - listed.length;
    const none = colours.values.filter((v) => !v).length;
    if (rest > 0 || none > 0) {
      const row = el_("div", "agrag-explorer-legend-row");
      const dot = el_("span", "agrag-explorer-dot");
      dot.style.background = colours.other;
      row.append(dot, el_("span", "", rest > 0 ? `${rest} other group${rest > 1 ? "s" : ""}${none ? " or none" : ""}` : "none"));
      legend.appendChild(row);
    }
    legend.appendChild(el_("div", "agrag-explorer-legend-note", "size: degree · scroll to zoom · drag to pan"));
  }

  function drawHover(context, data, settings) {
    // the hovered node's label on a themed box (sigma's default box is always white)
    const size = settings.labelSize, font = settings.labelFont, weight = settings.labelWeight;
    context.font = `${weight} ${size}px ${font}`;
    const label = data.label || "";
    const width = context.measureText(label).width + 8;
    // right of the node, or left of it where the right edge of the canvas would cut the name
    const room = renderer ? renderer.getDimensions().width : Infinity;
    const left = data.x + data.size + 2 + width <= room ? data.x + data.size + 2 : data.x - data.size - 2 - width;
    context.fillStyle = theme.panel;
    context.strokeStyle = theme.accent;
    context.lineWidth = 1;
    context.beginPath();
    context.rect(left, data.y - size / 2 - 4, width, size + 8);
    context.fill();
    context.stroke();
    context.beginPath();
    context.arc(data.x, data.y, data.size + 2, 0, Math.PI * 2);
    context.stroke();
    context.fillStyle = theme.label;
    context.fillText(label, left + 4, data.y + size / 3);
  }

  // Node names: sigma picks the candidates (its label grid, the size threshold, the forced ones); this places
  // them. A name goes right of its node, else left of it; one that would leave the canvas or cover a name
  // already placed is not drawn (sigma's own drawer let names run off the right edge and print over each
  // other in a dense centre). The selected node and its neighbours are placed first, then by node size.
  // The boxes drawn last are kept on the canvas element (``__labels``, viewport pixels) for the browser test.
  let candidates = [];
  function collectLabel(context, data, settings) {
    if (data.label) candidates.push({ context, data, settings });
  }

  function placeLabels() {
    const placed = [];
    if (!renderer) return;
    const { width, height } = renderer.getDimensions();
    const rank = (d) => (d.highlighted ? 2 : 0) + (d.forceLabel ? 1 : 0);
    candidates.sort((a, b) => rank(b.data) - rank(a.data) || b.data.size - a.data.size
      || (a.data.key < b.data.key ? -1 : 1));
    const pad = 2;
    for (const { context, data, settings } of candidates) {
      const size = settings.labelSize;
      context.font = `${settings.labelWeight} ${size}px ${settings.labelFont}`;
      const w = context.measureText(data.label).width;
      const top = data.y - size / 2 - 2, bottom = data.y + size / 2 + 2;
      const options = [data.x + data.size + 3, data.x - data.size - 3 - w];
      let left = null;
      for (const x of options) {
        const box = { left: x - 1, right: x + w + 1, top, bottom };
        if (box.left < 0 || box.right > width || box.top < 0 || box.bottom > height) continue;
        if (placed.some((p) => box.left < p.right + pad && p.left < box.right + pad
          && box.top < p.bottom && p.top < box.bottom)) continue;
        left = x;
        placed.push({ ...box, key: data.key, label: data.label });
        break;
      }
      if (left === null) continue;
      // a halo of the canvas's background keeps the name readable where edges cross it
      context.lineJoin = "round";
      context.lineWidth = 3;
      context.strokeStyle = theme.background;
      context.strokeText(data.label, left, data.y + size / 3);
      context.fillStyle = theme.label;
      context.fillText(data.label, left, data.y + size / 3);
    }
    candidates = [];
    canvas.__labels = placed;
  }

  function build() {
    const t0 = built ? performance.now() : started;  // the first view counts from render()
    built = true;
    view = model.get("view");
    if (layout) { layout.kill(); layout = null; }
    if (layoutTimer) { clearTimeout(layoutTimer); layoutTimer = null; }
    if (renderer) { renderer.kill(); renderer = null; }
    theme = themeColours(el);
    theme.raw = theme.background;
    for (const k of ["background", "panel", "text", "label", "muted", "edge", "other", "accent"]) theme[k] = toHex(theme[k], el);
    root.style.setProperty("--agrag-explorer-bg", theme.background);
    title.textContent = view.title || "";
    if (!view.ids || !view.ids.length) {
      canvas.replaceChildren(el_("div", "agrag-explorer-empty", "no entity to show"));
      root.dataset.layoutDone = "1";
      return;
    }
    canvas.replaceChildren();
    colours = groupColours(view, model.get("colour_by"));
    graph = new Graph({ type: "undirected", multi: false, allowSelfLoops: false });
    const maxDegree = Math.max(1, ...view.degrees);
    const n = view.ids.length;
    for (let i = 0; i < n; i++) {
      graph.addNode(view.ids[i], {
        x: view.x[i], y: view.y[i], label: view.names[i], index: i,
        size: 2 + 12 * Math.sqrt(view.degrees[i] / maxDegree) * (n > 2000 ? 1 : 1.4),
        color: nodeColour(i),
      });
    }
    for (let k = 0; k < view.sources.length; k++) {
      const s = view.ids[view.sources[k]], t = view.ids[view.targets[k]];
      if (!graph.hasEdge(s, t)) graph.addEdge(s, t, { relation: view.type_names[view.types[k]], size: n > 2000 ? 0.5 : 1 });
    }
    canvas.style.height = model.get("height");
    renderer = new Sigma(graph, canvas, {
      labelFont: theme.font, labelColor: { color: theme.label }, labelSize: 13, labelWeight: "normal",
      defaultEdgeColor: theme.edge, labelRenderedSizeThreshold: n > 2000 ? 9 : 5, labelDensity: 0.6,
      hideEdgesOnMove: n > 5000, zIndex: true, defaultDrawNodeHover: drawHover, allowInvalidContainer: true,
      nodeReducer: reduceNode, edgeReducer: reduceEdge,
      // room at the canvas's edges for the names of the outermost nodes (30 px cut "THE DEAD M…" at the right)
      stagePadding: 70, defaultDrawNodeLabel: collectLabel,
    });
    renderer.on("beforeRender", () => { candidates = []; });
    renderer.on("afterRender", placeLabels);
    canvas.__sigma = renderer;  // for the browser test: node positions on screen
    // sigma drew its first frame inside the constructor; it is on screen at the next animation frame,
    // and the page answers input once the main thread is free after it (a macrotask later)
    const drawn = renderer;
    requestAnimationFrame(() => {
      if (renderer !== drawn) return;  // another view replaced this one meanwhile
      report("first_frame", performance.now() - t0);
      const channel = new MessageChannel();
      channel.port1.onmessage = () => {
        if (renderer !== drawn) return;
        report("interactive", performance.now() - t0);
        startLayout(n);  // only now: the first frame and the first input come before the layout's work
      };
      channel.port2.postMessage(0);
    });
    renderer.on("clickNode", ({ node }) => choose(node, false));
    renderer.on("clickStage", () => { matches.replaceChildren(); });
    renderer.on("enterNode", ({ node }) => { hovered = node; canvas.style.cursor = "pointer"; });
    renderer.on("leaveNode", () => { hovered = null; canvas.style.cursor = "default"; });
    drawLegend();
    if (model.get("selected")) highlight(model.get("selected"), true);
  }

  function startLayout(n) {
    const seconds = model.get("layout_seconds");
    if (seconds > 0 && graph.size > 0) {
      // ForceAtlas2 in a web worker. A small graph moves as it settles; a large one is laid out on a
      // copy and drawn once at the end, so the page stays responsive (no redraw per iteration).
      const live = n <= LIVE_LAYOUT_NODES;
      const target = live ? graph : graph.copy();
      const layoutStart = performance.now();
      status.textContent = "laying out…";
      layout = new FA2Layout(target, {
        settings: { ...forceAtlas2.inferSettings(target), barnesHutOptimize: n > 500, adjustSizes: false },
      });
      layout.start();
      layoutTimer = setTimeout(() => {
        layout.stop();
        if (!live) {
          graph.updateEachNodeAttributes((node, attrs) => {
            attrs.x = target.getNodeAttribute(node, "x");
            attrs.y = target.getNodeAttribute(node, "y");
            return attrs;
          }, { attributes: ["x", "y"] });
        }
        layout.kill();
        layout = null;
        status.textContent = "";
        report("layout", performance.now() - layoutStart);
        root.dataset.layoutDone = "1";
        fitAfterLayout();
      }, seconds * 1000);
    } else {
      root.dataset.layoutDone = "1";
    }
  }

  function fitAfterLayout() {
    // a neighbourhood is shown whole once its layout settled (zooming onto its centre lost the neighbours);
    // elsewhere a searched or clicked node stays in focus
    const sel = model.get("selected");
    const scope = view.scope || {};
    if (scope.kind === "entity" || !sel || !graph.hasNode(sel)) {
      renderer.refresh();
      renderer.getCamera().animatedReset({ duration: 300 });
      setTimeout(() => { root.dataset.fitted = "1"; }, 350);
    } else {
      focus(sel);
    }
  }

  function reduceNode(node, data) {
    const sel = model.get("selected");
    if (!sel || !graph.hasNode(sel)) return data;
    if (node === sel) return { ...data, highlighted: true, zIndex: 2, size: data.size + 3, forceLabel: true };
    if (neighbours.has(node)) return { ...data, zIndex: 1, forceLabel: neighbours.size <= 30 };
    return { ...data, color: mix(data.color, theme.background, 0.8), label: "", zIndex: 0 };
  }

  function reduceEdge(edge, data) {
    const sel = model.get("selected");
    if (!sel || !graph.hasNode(sel)) return data;
    const [s, t] = graph.extremities(edge);
    if (s === sel || t === sel) return { ...data, color: theme.accent, size: 1.5, zIndex: 1 };
    return { ...data, hidden: true };
  }

  function focus(node) {
    const d = renderer.getNodeDisplayData(node);
    if (d) renderer.getCamera().animate({ x: d.x, y: d.y, ratio: Math.min(renderer.getCamera().ratio, 0.35) }, { duration: 400 });
  }

  function highlight(node, quiet) {
    if ((view && view.scope || {}).kind === "entity" && view.scope.id === node) quiet = true;  // the centre: keep it all in sight
    neighbours = new Set(node && graph && graph.hasNode(node) ? graph.neighbors(node) : []);
    if (renderer) renderer.refresh({ skipIndexation: true });
    if (node && graph && graph.hasNode(node) && !quiet) focus(node);
    root.dataset.selected = node || "";
  }

  function choose(node, move) {
    matches.replaceChildren();
    model.set("selected", node);
    model.save_changes();
    highlight(node, !move);
  }

  function drawMatches() {
    const text = search.value.trim().toLowerCase();
    matches.replaceChildren();
    if (!text || !view || !view.names) return [];
    const found = [];
    for (let i = 0; i < view.names.length; i++) {
      const name = view.names[i].toLowerCase();
      if (name.includes(text)) found.push(i);
    }
    found.sort((a, b) => (view.names[b].toLowerCase().startsWith(text) - view.names[a].toLowerCase().startsWith(text))
      || view.degrees[b] - view.degrees[a] || a - b);
    for (const i of found.slice(0, 8)) {
      const item = el_("button", "agrag-explorer-match");
      item.append(el_("span", "", view.names[i]), el_("span", "agrag-explorer-match-meta", ` ${view.labels[i]} · ${view.degrees[i]} relations`));
      item.dataset.id = view.ids[i];
      item.addEventListener("click", () => { search.value = view.names[i]; choose(view.ids[i], true); });
      matches.appendChild(item);
    }
    if (!found.length) matches.appendChild(el_("div", "agrag-explorer-nomatch", "no entity of this view has that name"));
    return found;
  }

  search.addEventListener("input", drawMatches);
  search.addEventListener("keydown", (event) => {
    if (event.key === "Enter") {
      const found = drawMatches();
      if (found.length) { search.value = view.names[found[0]]; choose(view.ids[found[0]], true); }
    } else if (event.key === "Escape") { matches.replaceChildren(); }
  });
  colourSelect.value = model.get("colour_by");
  colourSelect.addEventListener("change", () => { model.set("colour_by", colourSelect.value); model.save_changes(); });
  whole.addEventListener("click", () => ask({ kind: "all" }));

  function ask(scope) {
    model.set("scope", { ...scope, at: Date.now() });
    model.save_changes();
  }

  function drawDetails() {
    const d = model.get("details") || {};
    details.replaceChildren();
    if (!d.id) {
      details.appendChild(el_("div", "agrag-explorer-hint", "Click a node, or search a name, to read its description, relations, supporting passages and community reports."));
      return;
    }
    details.appendChild(el_("h3", "agrag-explorer-name", d.name));
    details.appendChild(el_("div", "agrag-explorer-meta",
      `${d.label} · ${d.degree} related entities · mentioned in ${d.passage_count} passage${d.passage_count === 1 ? "" : "s"}`));
    if (d.aliases && d.aliases.length) details.appendChild(el_("div", "agrag-explorer-meta", "also: " + d.aliases.slice(0, 6).join(", ")));
    if (d.description) {
      // a GraphRAG description runs to thousands of characters: its start here, the whole in the hover
      const text = d.description.length > 600 ? d.description.slice(0, 599) + "…" : d.description;
      const p = el_("p", "agrag-explorer-description", text);
      if (text !== d.description) p.title = d.description.slice(0, 4000);
      details.appendChild(p);
    }
    const actions = el_("div", "agrag-explorer-actions");
    const near = el_("button", "agrag-explorer-button", "show its neighbourhood");
    near.addEventListener("click", () => ask({ kind: "entity", id: d.id, depth: 1 }));
    actions.appendChild(near);
    if (d.reports && d.reports.length) {
      const leaf = d.reports[d.reports.length - 1];
      const comm = el_("button", "agrag-explorer-button", "show its community");
      comm.title = leaf.title;
      comm.addEventListener("click", () => ask({ kind: "community", id: leaf.id }));
      actions.appendChild(comm);
    }
    details.appendChild(actions);
    const section = (name, count) => details.appendChild(el_("div", "agrag-explorer-section", count === undefined ? name : `${name} (${count})`));
    if (d.relations && d.relations.length) {
      section("relations", d.relation_count);
      if (d.relation_count > d.relations.length)
        details.appendChild(el_("div", "agrag-explorer-meta", `the ${d.relations.length} strongest; every one is in explorer.relations`));
      const list = el_("ul", "agrag-explorer-list");
      for (const r of d.relations) {
        const li = el_("li");
        const other = el_("a", "agrag-explorer-link", r.other_name);
        other.href = "#";
        other.addEventListener("click", (e) => { e.preventDefault(); if (graph.hasNode(r.other)) choose(r.other, true); else ask({ kind: "entity", id: r.other, depth: 1 }); });
        li.append(el_("span", "agrag-explorer-relation", r.outgoing ? `${r.type} → ` : `← ${r.type} `), other);
        const weight = r.weight !== null && r.weight !== undefined ? `weight ${+r.weight.toFixed(2)}` : "";
        const support = `${r.support} passage${r.support === 1 ? "" : "s"}`;
        li.append(el_("span", "agrag-explorer-relation", ` · ${weight ? weight + " · " : ""}${support}`));
        if (r.description) {  // its start here, the whole in the hover: the panel stays a few screens tall
          li.title = r.description;
          const text = r.description.length > 90 ? r.description.slice(0, 89) + "…" : r.description;
          li.append(el_("div", "agrag-explorer-relation-text", text));
        }
        list.appendChild(li);
      }
      details.appendChild(list);
    }
    section("supporting passages", d.passage_count);
    for (const p of d.passages || []) {  // folded to its name, as the reports: a click opens its text
      const block = el_("details", "agrag-explorer-passage");
      block.dataset.id = p.id;
      block.append(el_("summary", "agrag-explorer-passage-name", p.name), el_("div", "agrag-explorer-passage-text", p.text));
      block.title = p.id;
      details.appendChild(block);
    }
    if (d.reports && d.reports.length) {
      section("community reports", d.reports.length);
      for (const r of d.reports) {  // folded to its title: a click opens its summary
        const block = el_("details", "agrag-explorer-report");
        block.dataset.id = r.id;
        block.append(el_("summary", "agrag-explorer-passage-name", `${r.title} (level ${r.level}, ${r.size} members)`),
          el_("div", "agrag-explorer-passage-text", r.summary));
        details.appendChild(block);
      }
    }
    if (d.has_claims) {
      section("claims", d.claims.length);
      if (d.claims.length > 5) details.appendChild(el_("div", "agrag-explorer-meta", "the first 5"));
      for (const c of d.claims.slice(0, 5)) {
        const block = el_("details", "agrag-explorer-claim");
        block.dataset.chunk = c.chunk_id;
        block.append(el_("summary", "agrag-explorer-passage-name", `${c.type}${c.status ? ` · ${c.status}` : ""}`),
          el_("div", "agrag-explorer-passage-text", c.text));
        details.appendChild(block);
      }
    }
    details.scrollTop = 0;
  }

  model.on("change:view", () => { delete root.dataset.layoutDone; build(); });
  model.on("change:details", drawDetails);
  model.on("change:selected", () => highlight(model.get("selected"), false));
  model.on("change:colour_by", () => {
    colourSelect.value = model.get("colour_by");
    colours = groupColours(view, model.get("colour_by"));
    graph.forEachNode((node, attrs) => graph.setNodeAttribute(node, "color", nodeColour(attrs.index)));
    drawLegend();
  });
  // drawn before JupyterLab laid the output out (no width yet), or resized since: fit the canvas again.
  // Only when the size differs from the one sigma drew at: a ResizeObserver also fires once when it starts
  // observing, and that redraw of the whole graph cost as much as the first frame (issue 17's profile).
  const resizer = new ResizeObserver((entries) => {
    if (!renderer) return;
    const box = entries[entries.length - 1].contentRect, drawn = renderer.getDimensions();
    if (Math.round(box.width) === Math.round(drawn.width) && Math.round(box.height) === Math.round(drawn.height)) return;
    renderer.resize();
    renderer.refresh({ skipIndexation: true });
  });
  resizer.observe(canvas);
  // JupyterLab's theme switch changes the --jp-* variables: redraw with the new colours
  const observer = new MutationObserver(() => {
    const next = themeColours(el);
    if (theme && next.background !== theme.raw && view) { build(); }
  });
  observer.observe(document.body, { attributes: true, attributeFilter: ["data-jp-theme-name", "data-jp-theme-light"] });
  build();
  drawDetails();
  return () => {
    observer.disconnect();
    resizer.disconnect();
    if (layout) layout.kill();
    if (layoutTimer) clearTimeout(layoutTimer);
    if (renderer) renderer.kill();
  };
}

export default { render };
