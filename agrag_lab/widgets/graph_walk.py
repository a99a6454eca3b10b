"""``GraphWalkView``: the walked subgraph of a search, or of a ``traverse`` call.

:class:`WalkGraph` is the pure-Python part: nodes (seeds, added entities and
the entities on the paths between them), edges labelled by relation type,
the path to each added entity, community membership, and a deterministic
layout: a node's x is its hop from the seeds, its y its place within that
hop (ordered by the seed it was reached from, then by rank, then by id).
:func:`walk_graph` reads it from a :class:`~agrag_lab.retrieval.run.SearchRun`
whose recipe walks the graph; :func:`traverse_graph` from
``SearchEngine.traverse`` results. :func:`walk_figure` draws it with plotly
and :class:`GraphWalkView` makes it interactive: hovering shows a node's
description, selecting one shows its path and supporting passages.

Examples
--------
>>> from agrag_lab.retrieval.trace import PathStep
>>> g = WalkGraph.build(
...     seeds=["a"], reached=[("b", 1, "a", (PathStep("a", "WROTE", "b"),)),
...                           ("c", 2, "a", (PathStep("a", "WROTE", "b"), PathStep("b", "CITES", "c")))],
...     info={}, memberships={})
>>> [(n.id, n.hop, n.role, n.x, n.y) for n in g.nodes]
[('a', 0, 'seed', 0.0, 0.0), ('b', 1, 'added', 1.0, 0.0), ('c', 2, 'added', 2.0, 0.0)]
>>> [e.relation for e in g.edges]
['WROTE', 'CITES']
>>> g.path_to("c")
(('a', 'WROTE', 'b'), ('b', 'CITES', 'c'))
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import ipywidgets as w
import plotly.graph_objects as go
import traitlets

from agrag_lab.charts.palette import OKABE_ITO, style
from agrag_lab.errors import NotFoundError, ViewArgumentError
from agrag_lab.retrieval.run import SearchResult, SearchRun
from agrag_lab.retrieval.trace import ItemInfo, PathStep
from agrag_lab.widgets._text import Passage, passages_html, read_passages, short

EdgeKey = tuple[str, str, str]
#: Colour of nodes without a community.
NO_COMMUNITY = "#999999"
#: Marker symbol and size per role.
SYMBOLS = {"seed": ("star", 20), "added": ("circle", 15), "path": ("circle-open", 13)}
#: Vertical distance between two nodes of one hop.
SPACING = 1.0
#: Width of the widget's figure in pixels (a plotly widget does not follow its container).
FIGURE_WIDTH = 1000
#: Where an edge's relation label sits, from its source (0) to its target (1).
LABEL_AT = 0.7


@dataclass(frozen=True)
class WalkNode:
    """One entity of the walked subgraph.

    ``role`` is ``seed`` (a walk started here), ``added`` (the walk proposed
    it) or ``path`` (only on the way to an added entity); ``rank`` is the
    seed's rank among the seeds or the addition's walk rank.
    """

    id: str
    title: str
    label: str
    hop: int
    role: str
    seed: str
    rank: int
    community: str | None
    community_title: str
    description: str
    chunk_ids: tuple[str, ...]
    x: float = 0.0
    y: float = 0.0


@dataclass(frozen=True)
class WalkEdge:
    """One relation walked: ``source -[relation]-> target`` in walk order, and the paths using it."""

    source: str
    relation: str
    target: str
    paths_to: tuple[str, ...] = ()

    @property
    def key(self) -> EdgeKey:
        return (self.source, self.relation, self.target)


@dataclass(frozen=True)
class WalkGraph:
    """Seeds, reached entities, the relations between them, and a deterministic layout."""

    nodes: tuple[WalkNode, ...]
    edges: tuple[WalkEdge, ...]
    seeds: tuple[str, ...]
    paths: Mapping[str, tuple[EdgeKey, ...]] = field(default_factory=dict)
    title: str = "graph walk"

    @classmethod
    def build(
        cls,
        *,
        seeds: Sequence[str],
        reached: Iterable[tuple[str, int, str, Sequence[PathStep]]],
        info: Mapping[str, ItemInfo],
        memberships: Mapping[str, Sequence[str]],
        community_titles: Mapping[str, str] | None = None,
        descriptions: Mapping[str, str] | None = None,
        title: str = "graph walk",
    ) -> WalkGraph:
        """Assemble the graph from seeds and ``(entity, hop, seed, path)`` of each reached entity.

        ``reached`` must be in rank order (best first); its position is the rank.
        """
        community_titles = community_titles or {}
        descriptions = descriptions or {}
        hop: dict[str, int] = {s: 0 for s in seeds}
        role: dict[str, str] = {s: "seed" for s in seeds}
        seed_of: dict[str, str] = {s: s for s in seeds}
        rank: dict[str, int] = {s: i for i, s in enumerate(seeds, 1)}
        edges: dict[EdgeKey, list[str]] = {}
        paths: dict[str, tuple[EdgeKey, ...]] = {}
        for position, (entity, entity_hop, seed, path) in enumerate(reached, 1):
            if entity in role and role[entity] == "seed":
                continue
            role[entity] = "added"
            hop[entity] = entity_hop
            seed_of[entity] = seed
            rank[entity] = position
            keys = tuple((s.source, s.relation, s.target) for s in path)
            paths[entity] = keys
            for step_index, (a, relation, b) in enumerate(keys):
                edges.setdefault((a, relation, b), []).append(entity)
                for node, node_hop in ((a, step_index), (b, step_index + 1)):
                    if node not in role:
                        role[node] = "path"
                        hop[node] = node_hop
                        seed_of[node] = seed
                        rank[node] = position
                    elif role[node] == "path":
                        hop[node] = min(hop[node], node_hop)
        # a seed is drawn when the walk went somewhere from it (or when no seed did)
        used = {seed_of[n] for n in role if role[n] != "seed"} | {
            n for path in paths.values() for step in path for n in (step[0], step[2])
        }
        if used:
            for s in seeds:
                if s not in used and role.get(s) == "seed":
                    del role[s]
        seed_index = {s: i for i, s in enumerate(seeds)}
        by_hop: dict[int, list[str]] = {}
        for node in role:
            by_hop.setdefault(hop[node], []).append(node)
        place: dict[str, tuple[float, float]] = {}
        for h, members in by_hop.items():
            members.sort(key=lambda n: (seed_index.get(seed_of[n], len(seeds)), rank[n], n))
            middle = (len(members) - 1) / 2
            for i, n in enumerate(members):
                place[n] = (float(h), (middle - i) * SPACING)
        nodes = []
        for node in sorted(role, key=lambda n: (hop[n], place[n][1] * -1, n)):
            item = info.get(node)
            groups = list(memberships.get(node, ()))
            community = groups[0] if groups else None
            nodes.append(WalkNode(
                id=node, title=item.title if item else node, label=(item.label or "") if item else "",
                hop=hop[node], role=role[node], seed=seed_of[node], rank=rank[node], community=community,
                community_title=community_titles.get(community, community or "") if community else "",
                description=descriptions.get(node, item.text if item else ""),
                chunk_ids=(tuple(item.chunk_ids) or ((node,) if item.kind == "chunk" else ())) if item else (),
                x=place[node][0], y=place[node][1],
            ))
        edge_list = tuple(WalkEdge(a, r, b, tuple(dict.fromkeys(ends))) for (a, r, b), ends in edges.items())
        return cls(tuple(nodes), edge_list, tuple(seeds), paths, title)

    def node(self, node_id: str) -> WalkNode:
        """One node by id."""
        for n in self.nodes:
            if n.id == node_id:
                return n
        raise NotFoundError(f"{node_id!r} is not in this walk; it has {len(self.nodes)} nodes")

    def path_to(self, node_id: str) -> tuple[EdgeKey, ...]:
        """The relations walked from the seed to ``node_id`` (empty for a seed)."""
        if node_id in self.paths:
            return self.paths[node_id]
        node = self.node(node_id)
        if node.role == "path":
            for path in self.paths.values():
                for i, (_, _, b) in enumerate(path):
                    if b == node_id:
                        return path[: i + 1]
        return ()

    @property
    def drawn_seeds(self) -> tuple[str, ...]:
        """The seeds drawn: those the walk went somewhere from (all of them when none did)."""
        return tuple(n.id for n in self.nodes if n.role == "seed")

    @property
    def added(self) -> tuple[str, ...]:
        """The entities the walk added, in walk rank order."""
        return tuple(n.id for n in sorted((n for n in self.nodes if n.role == "added"), key=lambda n: n.rank))

    @property
    def communities(self) -> tuple[str, ...]:
        """Communities of the nodes, in order of first appearance."""
        return tuple(dict.fromkeys(n.community for n in self.nodes if n.community))


def _lineage(store: Any, community: str) -> list[str]:
    """``community`` and its ancestors, leaf first."""
    out = [community]
    seen = {community}
    while hasattr(store, "community"):
        found = store.community(out[-1])
        parent = getattr(found, "parent", None)
        if not parent or parent in seen:
            break
        out.append(parent)
        seen.add(parent)
    return out


def coarsen(memberships: Mapping[str, Sequence[str]], store: Any, most: int = len(OKABE_ITO) - 1) -> dict[str, tuple[str, ...]]:
    """Each node's community at the finest level that keeps at most ``most`` colours.

    Leaf communities are often too many to tell apart by colour; this walks
    up the hierarchy (through ``store.community(id).parent``) until the nodes
    fall into at most ``most`` communities.
    """
    lineages = {node: _lineage(store, groups[0]) for node, groups in memberships.items() if groups}
    depth = max((len(x) for x in lineages.values()), default=0)
    for up in range(depth):
        chosen = {node: line[min(up, len(line) - 1)] for node, line in lineages.items()}
        if len(set(chosen.values())) <= most or up == depth - 1:
            return {node: (c,) for node, c in chosen.items()}
    return {node: tuple(groups) for node, groups in memberships.items()}


def _store_extras(
    store: Any, ids: Sequence[str], memberships: Mapping[str, Sequence[str]] | None = None
) -> tuple[dict[str, tuple[str, ...]], dict[str, str], dict[str, str]]:
    """Memberships (coarsened for colour), community titles and entity descriptions read from a graph store."""
    found: dict[str, tuple[str, ...]] = {k: tuple(v) for k, v in (memberships or {}).items()}
    missing = [i for i in ids if i not in found]
    if missing and hasattr(store, "memberships"):
        found.update(store.memberships(missing))
    found = coarsen(found, store)
    titles: dict[str, str] = {}
    for groups in found.values():
        for c in groups:
            if c not in titles and hasattr(store, "report"):
                report = store.report(c)
                titles[c] = report.title if report is not None else c
    descriptions: dict[str, str] = {}
    if hasattr(store, "entity"):
        for node in ids:
            entity = store.entity(node)
            if entity is not None and entity.description:
                descriptions[node] = entity.description
    return found, titles, descriptions


def walk_graph(run: SearchRun, *, graph: Any | None = None) -> WalkGraph:
    """The walk of ``run`` (its recipe must enable ``walk``).

    Parameters
    ----------
    run : SearchRun
        A run whose trace holds a walk step.
    graph : Graph or graph store, optional
        Adds community membership (when the run did not capture it), report
        titles and entity descriptions.

    Raises
    ------
    ViewArgumentError
        The run did not walk the graph.
    """
    walk = run.trace.outcome.walk
    if walk is None:
        raise ViewArgumentError(
            f"recipe {run.trace.recipe.get('name')!r} did not walk the graph; use one with walk.enabled "
            "(e.g. GRAPH_EXPAND, or recipe.replace(**{'walk.enabled': True}))"
        )
    reached = [(a.entity, a.hop, a.seed, a.path) for a in walk.additions]
    ids = list(dict.fromkeys([*walk.seeds, *(a.entity for a in walk.additions),
                              *(s.target for a in walk.additions for s in a.path)]))
    memberships: dict[str, tuple[str, ...]] = dict(run.trace.context.memberships)
    titles = {k: i.title for k, i in run.trace.items.items() if i.kind == "community"}
    descriptions: dict[str, str] = {}
    store = getattr(graph, "graph_store", graph)
    if store is not None:
        memberships, more_titles, descriptions = _store_extras(
            store, ids, {k: v for k, v in memberships.items() if k in ids}
        )
        titles = {**titles, **more_titles}
    name = run.trace.recipe.get("name", "recipe")
    return WalkGraph.build(
        seeds=walk.seeds, reached=reached, info=run.trace.items, memberships=memberships, community_titles=titles,
        descriptions=descriptions,
        title=(
            f"{name}: PageRank walk for {short(run.trace.query, 44)!r} (best passages, {walk.direction})"
            if walk.strategy == "ppr"
            else f"{name}: walk for {short(run.trace.query, 44)!r} (depth {walk.depth}, {walk.direction})"
        ),
    )


def traverse_graph(
    seed: SearchResult,
    results: Sequence[SearchResult],
    store: Any,
    *,
    relation_type: str | None = None,
    direction: str = "both",
    depth: int | None = None,
) -> WalkGraph:
    """The subgraph of a ``SearchEngine.traverse(seed, ...)`` call.

    ``traverse`` returns the reached entities without their paths; the paths
    are read again from ``store`` with the same settings (give the same
    ``relation_type`` and ``direction``; ``depth`` defaults to the deepest hop
    in ``results``, read from their scores ``1 / (1 + hop)``).
    """
    store = getattr(store, "graph_store", store)
    entities = [r for r in results if r.kind == "entity"]
    hops = {r.id: max(1, round(1.0 / r.score - 1.0)) if r.score > 0 else 1 for r in entities}
    walk_depth = depth if depth is not None else max(hops.values(), default=1)
    reach = store.reach(
        seed.id, depth=walk_depth, limit=max(1, len(entities)),
        relation_types=(relation_type,) if relation_type else None, direction=direction, filters=None,
    )
    wanted = {r.id for r in entities}
    reached = [(r.entity, r.hop, seed.id, r.path) for r in reach if r.entity in wanted]
    ids = list(dict.fromkeys([seed.id, *(e for e, *_ in reached), *(s.target for *_, p in reached for s in p)]))
    info: dict[str, ItemInfo] = {}
    for node in ids:
        item = store.item_info(node) if hasattr(store, "item_info") else None
        if item is not None:
            info[node] = item
    memberships, titles, descriptions = _store_extras(store, ids)
    how = f"{relation_type} " if relation_type else ""
    return WalkGraph.build(
        seeds=[seed.id], reached=reached, info=info, memberships=memberships, community_titles=titles,
        descriptions=descriptions, title=f"traverse from {seed.title}: {how}depth {walk_depth}, {direction}",
    )


# -- drawing ----------------------------------------------------------------------------------


def _wrap(text: str, width: int = 60, limit: int = 320) -> str:
    text = short(text, limit)
    lines, line = [], ""
    for word in text.split():
        if len(line) + len(word) + 1 > width and line:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}".strip()
    lines.append(line)
    return "<br>".join(html.escape(x) for x in lines)


def community_colours(graph: WalkGraph) -> dict[str | None, str]:
    """A colour per community: the largest ones get the Okabe-Ito colours, the rest share grey.

    Communities are ranked by how many nodes they hold, then by first
    appearance; with more communities than colours, the smallest share
    :data:`NO_COMMUNITY` grey (the hover text still names each one).
    """
    palette = OKABE_ITO[1:]
    counts: dict[str, int] = {}
    for n in graph.nodes:
        if n.community:
            counts[n.community] = counts.get(n.community, 0) + 1
    ranked = sorted(counts, key=lambda c: (-counts[c], graph.communities.index(c)))
    room = len(palette) if len(ranked) <= len(palette) else len(palette) - 1
    colours: dict[str | None, str] = {c: palette[i] for i, c in enumerate(ranked[:room])}
    for c in ranked[room:]:
        colours[c] = NO_COMMUNITY
    colours[None] = NO_COMMUNITY
    return colours


def walk_figure(graph: WalkGraph, *, highlight: str | None = None) -> go.Figure:
    """Draw the walk: hops left to right, seeds as stars, colour = community.

    Trace order (the widget relies on it): 0 edges, 1 highlighted path,
    2 edge labels, then one node trace per community.
    """
    fig = go.Figure()
    pos = {n.id: (n.x, n.y) for n in graph.nodes}
    names = {n.id: n.title for n in graph.nodes}
    ex: list[float | None] = []
    ey: list[float | None] = []
    mx, my, mtext, mhover = [], [], [], []
    for e in graph.edges:
        (x0, y0), (x1, y1) = pos[e.source], pos[e.target]
        ex += [x0, x1, None]
        ey += [y0, y1, None]
        mx.append(x0 + LABEL_AT * (x1 - x0))  # nearer the target: edges fan out from a seed
        my.append(y0 + LABEL_AT * (y1 - y0))
        mtext.append(e.relation)
        mhover.append(html.escape(f"{names.get(e.source, e.source)} -[{e.relation}]-> {names.get(e.target, e.target)}"))
    fig.add_trace(go.Scatter(x=ex, y=ey, mode="lines", line={"color": "#BBBBBB", "width": 1.5},
                             hoverinfo="skip", name="relations", showlegend=False))
    hx, hy = _path_xy(graph, highlight, pos)
    fig.add_trace(go.Scatter(x=hx, y=hy, mode="lines", line={"color": "#D55E00", "width": 4},
                             hoverinfo="skip", name="path to the selected node", showlegend=bool(hx)))
    fig.add_trace(go.Scatter(x=mx, y=my, mode="text", text=mtext, textfont={"size": 11, "color": "#555555"},
                             hovertext=mhover, hoverinfo="text", name="relation types", showlegend=False))
    colours = community_colours(graph)
    groups: dict[str | None, list[Any]] = {}
    for n in graph.nodes:
        shared = colours[n.community] == NO_COMMUNITY
        groups.setdefault(None if shared else n.community, []).append(n)
    ordered = [c for c in colours if c is not None and c in groups] + ([None] if None in groups else [])
    for community in ordered:
        members = groups[community]
        title = members[0].community_title if community else "other or no community"
        fig.add_trace(go.Scatter(
            x=[n.x for n in members], y=[n.y for n in members], mode="markers+text",
            text=[short(n.title, 26) for n in members],
            textposition=["middle left" if n.role == "seed" else "middle right" for n in members],
            cliponaxis=False,
            marker={"color": colours[community], "size": [SYMBOLS[n.role][1] for n in members],
                    "symbol": [SYMBOLS[n.role][0] for n in members], "line": {"width": 1.5, "color": "#333333"}},
            customdata=[n.id for n in members],
            hovertext=[
                f"<b>{html.escape(n.title)}</b> ({html.escape(n.label or 'entity')})<br>"
                f"{n.role}{'' if n.role == 'seed' else f', hop {n.hop} from {html.escape(_title(graph, n.seed))}'}"
                f"<br>community: {html.escape(n.community_title or 'none')}<br>{_wrap(n.description)}"
                for n in members
            ],
            hoverinfo="text", name=short(title, 36),
        ))
    max_hop = max((n.hop for n in graph.nodes), default=0)
    rows = max((sum(1 for n in graph.nodes if n.hop == h) for h in range(max_hop + 1)), default=1)
    style(
        fig, graph.title, height=max(420, 160 + 34 * rows),
        legend={"orientation": "v", "x": 1.02, "xanchor": "left", "y": 1.0, "yanchor": "top",
                "title": {"text": "community<br>★ seed · ● added · ○ on a path"}},
        margin={"l": 20, "r": 20, "t": 70, "b": 50},
        xaxis={"title": "hops from the seeds", "tickvals": list(range(max_hop + 1)),
               "ticktext": ["seeds", *[f"hop {h}" for h in range(1, max_hop + 1)]], "zeroline": False,
               "showgrid": False, "range": [-1.1, max_hop + 1.1]},
        yaxis={"visible": False, "range": [min(n.y for n in graph.nodes) - 1, max(n.y for n in graph.nodes) + 1]}
        if graph.nodes else {"visible": False},
        hovermode="closest",
    )
    return fig


def _title(graph: WalkGraph, node_id: str) -> str:
    for n in graph.nodes:
        if n.id == node_id:
            return n.title
    return node_id


def _path_xy(
    graph: WalkGraph, node_id: str | None, pos: Mapping[str, tuple[float, float]]
) -> tuple[list[float | None], list[float | None]]:
    xs: list[float | None] = []
    ys: list[float | None] = []
    if not node_id:
        return xs, ys
    for a, _, b in graph.path_to(node_id):
        xs += [pos[a][0], pos[b][0], None]
        ys += [pos[a][1], pos[b][1], None]
    return xs, ys


# -- the widget ---------------------------------------------------------------------------------


class GraphWalkView(w.VBox):  # type: ignore[misc]
    """The walk as a graph: seeds, hops, relation types, communities; select a node to read its support.

    Parameters
    ----------
    source : SearchRun, WalkGraph, or list of SearchResult
        A run whose recipe walks the graph, a prepared :class:`WalkGraph`, or
        the results of ``engine.traverse(seed, ...)`` (then give ``seed`` and ``graph``).
    graph : Graph, SearchEngine or graph store, optional
        Adds communities, report titles and descriptions; required for traverse results.
    session : EvidenceSession or Graph, optional
        Where the supporting passages are fetched from (default: ``graph``).
    seed : SearchResult, optional
        The entity a traverse started from.
    relation_type, direction, depth
        The traverse call's settings (to recover its paths).

    Traits
    ------
    selected : str
        The selected node id (a click on a node, or the dropdown, sets it).
    """

    selected = traitlets.Unicode("")

    def __init__(
        self,
        source: SearchRun | WalkGraph | Sequence[SearchResult],
        *,
        graph: Any | None = None,
        session: Any | None = None,
        seed: SearchResult | None = None,
        relation_type: str | None = None,
        direction: str = "both",
        depth: int | None = None,
    ) -> None:
        if isinstance(source, WalkGraph):
            self.graph = source
        elif isinstance(source, SearchRun):
            self.graph = walk_graph(source, graph=graph)
        else:
            if seed is None or graph is None:
                raise ViewArgumentError("traverse results need the seed they started from and the graph: "
                                 "GraphWalkView(results, seed=seed, graph=graph)")
            self.graph = traverse_graph(seed, list(source), graph, relation_type=relation_type,
                                        direction=direction, depth=depth)
        self.session = session if session is not None else (graph if hasattr(graph, "chunk_info") else None)
        self.figure = go.FigureWidget(walk_figure(self.graph))
        self.figure.layout.width = FIGURE_WIDTH
        self.node_dropdown = w.Dropdown(
            options=[("(select a node)", "")] + [(f"{n.title} [{n.role}, hop {n.hop}]", n.id) for n in self.graph.nodes],
            description="node", layout=w.Layout(width="36em"),
        )
        self.info = w.HTML()
        self.passages = w.HTML()
        summary = (
            f"{len(self.graph.seeds)} seed(s) ({len(self.graph.drawn_seeds)} led somewhere and are drawn), "
            f"{len(self.graph.added)} entities added, "
            f"{len(self.graph.edges)} relations walked, {len(self.graph.communities)} communities"
        )
        super().__init__(children=[w.HTML(f"<b>Graph walk</b> — {html.escape(summary)}"), self.figure,
                                   self.node_dropdown, self.info, self.passages])
        self.add_class("agrag-graph-walk")
        traitlets.link((self.node_dropdown, "value"), (self, "selected"))
        for trace in self.figure.data[3:]:
            trace.on_click(self._on_click)
        self.observe(self._on_selected, names="selected")

    def _on_click(self, trace: Any, points: Any, _selector: Any) -> None:
        if points.point_inds:
            self.selected = str(trace.customdata[points.point_inds[0]])

    def _on_selected(self, change: dict[str, Any]) -> None:
        node_id = change["new"]
        pos = {n.id: (n.x, n.y) for n in self.graph.nodes}
        xs, ys = _path_xy(self.graph, node_id or None, pos)
        with self.figure.batch_update():
            self.figure.data[1].x, self.figure.data[1].y = xs, ys
            self.figure.data[1].showlegend = bool(xs)
        if not node_id:
            self.info.value = ""
            self.passages.value = ""
            return
        node = self.graph.node(node_id)
        path = " ".join(
            [html.escape(_title(self.graph, p[0][0]))] + [f"-[{r}]-> {html.escape(_title(self.graph, b))}"
                                                         for _, r, b in p]
        ) if (p := self.graph.path_to(node_id)) else "(a seed)"
        self.info.value = (
            f"<div class='agrag-node'><b>{html.escape(node.title)}</b> ({html.escape(node.label or 'entity')}), "
            f"{node.role}, hop {node.hop}; community: {html.escape(node.community_title or 'none')}<br>"
            f"path: {path}<br><span style='color:#555'>{html.escape(short(node.description, 400))}</span></div>"
        )
        self.passages.value = passages_html(self.supporting_passages(node_id)) or "<i>no supporting passages</i>"

    def supporting_passages(self, node_id: str, limit: int = 3) -> list[Passage]:
        """Up to ``limit`` passages that support ``node_id``, read from the session or graph."""
        node = self.graph.node(node_id)
        return read_passages(self.session, list(node.chunk_ids[:limit]))
