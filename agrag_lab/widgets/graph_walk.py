"""``GraphWalkView``: the walked subgraph of a search, or of a ``traverse`` call.

:class:`WalkGraph` is the pure-Python part: nodes of three kinds (entities,
passages, community reports) in five roles (seed entities, dense-prior
passages the PageRank walk restarts at, what the walk added, what lies only
on a path to it, reports the run added), edges labelled by relation type,
the path to each added node, community membership, and a deterministic
layout in columns: the dense prior (x = -1), the seeds (x = 0), then the
steps from them; within a column, nodes are ordered by the seed they were
reached from, then by rank, then by id. Passages are named
"title > heading #cN" (:func:`~agrag_lab.names.display_name`, the one rule), so a
passage never reads as the entity it mentions. :func:`walk_graph` reads it
from a :class:`~agrag_lab.retrieval.run.SearchRun` whose recipe walks the
graph; :func:`traverse_graph` from ``SearchEngine.traverse`` results.
:func:`walk_figure` draws it with plotly (shape and colour by kind, a legend,
relation types on hover, pan and zoom) and :class:`GraphWalkView` makes it
interactive: hovering shows a node's description, selecting one shows its
path and supporting passages.

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
>>> g.summary()
'1 seed entity · 2 entities added · 2 relations walked'
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import anywidget
import ipywidgets as w
import plotly.graph_objects as go
import traitlets

from agrag_lab.charts.palette import OKABE_ITO, ROLES, style
from agrag_lab.errors import NotFoundError, ViewArgumentError
from agrag_lab.names import name_of
from agrag_lab.retrieval.run import SearchResult, SearchRun
from agrag_lab.retrieval.trace import ItemInfo, PathStep
from agrag_lab.widgets._text import Passage, passages_html, read_passages, short
from agrag_lab.widgets.theme import themed

EdgeKey = tuple[str, str, str]
#: Colour of nodes without a community.
NO_COMMUNITY = "#999999"
#: Behind a node's name: white at 90 % in the figure; in JupyterLab, the theme's background (theme.css).
NAME_BACKGROUND = "rgba(255,255,255,0.9)"
#: Marker shape per kind of node (filled; ``-open`` for a node that is only on a path).
SHAPES = {"entity": "circle", "chunk": "square", "community": "diamond"}
#: Marker size per role.
SIZES = {"seed": 22, "prior": 14, "added": 16, "path": 13, "report": 16}
#: Fill colour per kind and role (Okabe-Ito, as every chart: entity blue, passage orange,
#: a dense-prior passage sky blue as the dense method, a report purple).
COLOURS = {"entity": ROLES["entity"], "chunk": ROLES["chunk"], "prior": ROLES["dense"], "community": ROLES["community"]}
#: Vertical distance between two nodes of one column.
SPACING = 1.0
#: The column of the dense-prior passages (left of the seeds).
PRIOR_X = -1.0
#: What each legend entry says, in legend order: (kind, role) -> text.
LEGEND = {
    ("entity", "seed"): "seed entity (the question names it)",
    ("chunk", "prior"): "dense-prior passage (a restart point)",
    ("entity", "added"): "entity the walk added",
    ("chunk", "added"): "passage the walk added",
    ("entity", "path"): "entity on a path",
    ("chunk", "path"): "passage on a path",
    ("community", "report"): "community report the run added",
}
KIND_NAMES = {"entity": "entity", "chunk": "passage", "community": "report"}
#: The edge from a member entity to the report of its community (not a relation the walk followed).
MEMBER_OF = "IN_COMMUNITY"
#: Characters of a node's name drawn beside it, at most (the whole name is in the hover and the dropdown).
NAME_WIDTH = 36
#: The plot width the names are fitted to (the cell of a notebook at 1366x768, the sidebar open).
FIT_WIDTH_PX = 900
#: Average width of a 12 px Arial character, in pixels.
CHAR_PX = 6.6
PLURALS = {"entity": "entities", "chunk": "passages", "community": "reports"}


@dataclass(frozen=True)
class WalkNode:
    """One node of the walked subgraph: an entity, a passage (chunk) or a community report.

    ``role`` is ``seed`` (a walk started here), ``prior`` (a dense-prior
    passage the PageRank walk restarted at), ``added`` (the walk proposed
    it), ``path`` (only on the way to an added node) or ``report`` (a
    community report the run added, drawn beside its member entities);
    ``rank`` is the seed's rank among the seeds, the prior passage's rank in
    the prior, or the addition's walk rank. ``prior_rank`` is a passage's
    rank in the dense prior (0: not in it). ``x`` is the column: -1 the
    dense prior, 0 the seeds, then the hops.
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
    kind: str = "entity"
    prior_rank: int = 0


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


def node_title(key: str, item: ItemInfo | None) -> str:
    """How a node is named: an entity or report by its title, a passage as "title > heading #cN"."""
    if item is None:
        return key
    if item.kind == "chunk":
        return name_of(item, key)
    return item.title or key


@dataclass(frozen=True)
class WalkGraph:
    """Seeds, the dense prior, reached nodes, the relations between them, and a deterministic layout."""

    nodes: tuple[WalkNode, ...]
    edges: tuple[WalkEdge, ...]
    seeds: tuple[str, ...]
    paths: Mapping[str, tuple[EdgeKey, ...]] = field(default_factory=dict)
    title: str = "graph walk"
    prior: tuple[str, ...] = ()

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
        prior: Sequence[str] = (),
        reports: Sequence[tuple[str, Sequence[str]]] = (),
    ) -> WalkGraph:
        """Assemble the graph from seeds and ``(node, hop, origin, path)`` of each reached node.

        ``reached`` must be in rank order (best first); its position is the
        rank. ``prior`` are the dense-prior passages (PageRank walk): those a
        path starts from, or that the walk added with no path, are drawn in
        their own column left of the seeds. ``reports`` are ``(community,
        member entities)`` of the reports the run added; a report is drawn
        right of the walk when one of its members is drawn.
        """
        community_titles = community_titles or {}
        descriptions = descriptions or {}
        prior_rank = {p: i for i, p in enumerate(prior, 1)}
        hop: dict[str, int] = {s: 0 for s in seeds}
        role: dict[str, str] = {s: "seed" for s in seeds}
        seed_of: dict[str, str] = {s: s for s in seeds}
        rank: dict[str, int] = {s: i for i, s in enumerate(seeds, 1)}
        column: dict[str, float] = {s: 0.0 for s in seeds}
        edges: dict[EdgeKey, list[str]] = {}
        paths: dict[str, tuple[EdgeKey, ...]] = {}
        for position, (node, node_hop, origin, path) in enumerate(reached, 1):
            if role.get(node) == "seed":
                continue
            keys = tuple((s.source, s.relation, s.target) for s in path)
            if origin in prior_rank and origin not in role:
                role[origin], hop[origin], seed_of[origin] = "prior", 0, origin
                rank[origin], column[origin] = prior_rank[origin], PRIOR_X
            role[node] = "added"
            hop[node] = node_hop
            seed_of[node] = origin
            rank[node] = position
            # a prior passage the walk proposed itself (no path) stays in the prior column
            column[node] = PRIOR_X if (not keys and node in prior_rank) else float(max(node_hop, 1))
            paths[node] = keys
            for step_index, (a, relation, b) in enumerate(keys):
                edges.setdefault((a, relation, b), []).append(node)
                for end, end_hop in ((a, step_index), (b, step_index + 1)):
                    if end not in role:
                        role[end], hop[end], seed_of[end], rank[end] = "path", end_hop, origin, position
                        column[end] = float(end_hop)
                    elif role[end] == "path" and end_hop < hop[end]:
                        hop[end], column[end] = end_hop, float(end_hop)
        # a seed is drawn when the walk went somewhere from it (or when no seed did)
        used = {seed_of[n] for n in role if role[n] not in ("seed", "prior")} | {
            n for path in paths.values() for step in path for n in (step[0], step[2])
        }
        if used:
            for s in seeds:
                if s not in used and role.get(s) == "seed":
                    del role[s]
        drawn_entities = {n for n in role if (info.get(n) is None or info[n].kind == "entity")}
        last = max((column[n] for n in role), default=0.0)
        report_members: dict[str, tuple[str, ...]] = {}
        for report, members in reports:
            inside = tuple(m for m in members if m in drawn_entities)
            if inside and report not in role:
                role[report], hop[report], seed_of[report] = "report", 0, ""
                rank[report], column[report] = len(report_members) + 1, last + 1.0
                report_members[report] = inside
        for report, inside in report_members.items():
            for member in inside:
                edges.setdefault((member, MEMBER_OF, report), [])
        seed_index = {s: i for i, s in enumerate(seeds)}
        by_column: dict[float, list[str]] = {}
        for node in role:
            by_column.setdefault(column[node], []).append(node)
        place: dict[str, tuple[float, float]] = {}
        for x, members in by_column.items():
            members.sort(key=lambda n: (seed_index.get(seed_of[n], len(seeds)), rank[n], n))
            middle = (len(members) - 1) / 2
            for i, n in enumerate(members):
                place[n] = (x, (middle - i) * SPACING)
        nodes = []
        for node in sorted(role, key=lambda n: (place[n][0], -place[n][1], n)):
            item = info.get(node)
            kind = item.kind if item is not None else "entity"
            groups = list(memberships.get(node, ()))
            community = groups[0] if groups else None
            text = descriptions.get(node, item.text if item else "")
            nodes.append(WalkNode(
                id=node, title=node_title(node, item), label=(item.label or "") if item else "",
                hop=hop[node], role=role[node], seed=seed_of[node], rank=rank[node], community=community,
                community_title=community_titles.get(community, community or "") if community else "",
                description=text,
                chunk_ids=(tuple(item.chunk_ids) or ((node,) if kind == "chunk" else ())) if item else (),
                x=place[node][0], y=place[node][1], kind=kind, prior_rank=prior_rank.get(node, 0),
            ))
        edge_list = tuple(WalkEdge(a, r, b, tuple(dict.fromkeys(ends))) for (a, r, b), ends in edges.items())
        return cls(tuple(nodes), edge_list, tuple(seeds), paths, title, tuple(prior))

    def node(self, node_id: str) -> WalkNode:
        """One node by id."""
        for n in self.nodes:
            if n.id == node_id:
                return n
        raise NotFoundError(f"{node_id!r} is not in this walk; it has {len(self.nodes)} nodes")

    def path_to(self, node_id: str) -> tuple[EdgeKey, ...]:
        """The relations walked from the seed (or prior passage) to ``node_id`` (empty for a start)."""
        if node_id in self.paths:
            return self.paths[node_id]
        node = self.node(node_id)
        if node.role == "path":
            for path in self.paths.values():
                for i, (_, _, b) in enumerate(path):
                    if b == node_id:
                        return path[: i + 1]
        return ()

    def path_text(self, node_id: str) -> str:
        """The path to ``node_id`` in names and relation types, e.g. ``"Ada -[WROTE]-> Note G"``."""
        path = self.path_to(node_id)
        if not path:
            node = self.node(node_id)
            return {"seed": "(a seed: the walk starts here)", "prior": "(a dense-prior passage: the walk restarts here)",
                    "report": "(a report of a community its members belong to)"}.get(
                node.role, "(a dense-prior passage the walk proposed itself)" if node.x == PRIOR_X
                else "(no path within the walk's depth)")
        names = {n.id: n.title for n in self.nodes}
        return " ".join([names.get(path[0][0], path[0][0])] + [f"-[{r}]-> {names.get(b, b)}" for _, r, b in path])

    @property
    def drawn_seeds(self) -> tuple[str, ...]:
        """The seeds drawn: those the walk went somewhere from (all of them when none did)."""
        return tuple(n.id for n in self.nodes if n.role == "seed")

    @property
    def added(self) -> tuple[str, ...]:
        """The nodes the walk added, in walk rank order."""
        return tuple(n.id for n in sorted((n for n in self.nodes if n.role == "added"), key=lambda n: n.rank))

    @property
    def communities(self) -> tuple[str, ...]:
        """Communities of the nodes, in order of first appearance."""
        return tuple(dict.fromkeys(n.community for n in self.nodes if n.community))

    def counts(self) -> dict[tuple[str, str], int]:
        """How many nodes of each ``(kind, role)`` are drawn."""
        out: dict[tuple[str, str], int] = {}
        for n in self.nodes:
            out[(n.kind, n.role)] = out.get((n.kind, n.role), 0) + 1
        return out

    def summary(self) -> str:
        """The header: each kind counted, e.g. ``"1 seed entity · 7 passages and 3 entities added · ..."``."""
        c = self.counts()
        def n(count: int, one: str, many: str) -> str:
            return f"{count} {one if count == 1 else many}"
        parts = [n(len(self.drawn_seeds), "seed entity", "seed entities")]
        added = [n(c.get((k, "added"), 0), KIND_NAMES[k], PLURALS[k]) for k in ("chunk", "entity")
                 if c.get((k, "added"), 0)]
        parts.append((" and ".join(added) or "nothing") + " added")
        if self.prior:
            drawn = sum(1 for x in self.nodes if x.x == PRIOR_X)
            parts.append(f"{drawn} of {len(self.prior)} dense-prior passages drawn" if drawn else
                         f"{len(self.prior)} dense-prior passages (no path starts there, none drawn)")
        on_path = [n(c.get((k, "path"), 0), KIND_NAMES[k], PLURALS[k]) for k in ("entity", "chunk")
                   if c.get((k, "path"), 0)]
        if on_path:
            parts.append(" and ".join(on_path) + " on the paths")
        if c.get(("community", "report")):
            parts.append(n(c[("community", "report")], "report", "reports"))
        walked = sum(1 for e in self.edges if e.relation != MEMBER_OF)
        parts.append(n(walked, "relation walked", "relations walked"))
        return " · ".join(parts)


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
    reports = [(c.community, c.entities) for c in run.trace.outcome.communities or ()]
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
        descriptions=descriptions, prior=walk.prior, reports=reports,
        title=(
            f"{name}: PageRank walk for {short(run.trace.query, 44)!r} (its best passages; {_direction(walk.direction)})"
            if walk.strategy == "ppr"
            else f"{name}: walk for {short(run.trace.query, 44)!r} (depth {walk.depth}; {_direction(walk.direction)})"
        ),
    )


def _direction(direction: str) -> str:
    return {"both": "relations followed both ways", "out": "relations followed forward",
            "in": "relations followed backward"}.get(direction, direction)


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
        descriptions=descriptions, title=f"traverse from {seed.title}: {how}depth {walk_depth}; {_direction(direction)}",
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


def name_width(columns: int) -> int:
    """Characters of a name that fit between two columns of a :data:`FIT_WIDTH_PX` wide plot.

    Examples
    --------
    >>> name_width(3), name_width(7)
    (36, 14)
    """
    per_column = FIT_WIDTH_PX / (max(columns, 1) - 0.45 + 0.85)
    return max(12, min(NAME_WIDTH, int((per_column - 24) / CHAR_PX)))


def short_name(title: str, width: int = NAME_WIDTH) -> str:
    """``title`` cut to ``width`` characters, keeping a passage's ``#cN`` (it tells passages apart).

    Examples
    --------
    >>> short_name("Charles Babbage > Friends and correspondents #c8", 28)
    'Charles Babbage > Frien… #c8'
    """
    head, sep, tail = title.rpartition(" #")
    if sep and tail[:1] == "c" and tail[1:].isdigit() and len(title) > width:
        return short(head, max(8, width - len(tail) - 2)) + " #" + tail
    return short(title, width)


def node_style(node: WalkNode) -> tuple[str, str, int]:
    """``(symbol, colour, size)`` of a node: shape by kind, colour by kind (a prior passage as the dense method)."""
    symbol = SHAPES.get(node.kind, "circle") + ("-open" if node.role == "path" else "")
    colour = COLOURS["prior"] if node.role == "prior" else COLOURS.get(node.kind, COLOURS["entity"])
    return symbol, colour, SIZES.get(node.role, 14)


def _hover(graph: WalkGraph, n: WalkNode) -> str:
    kind = KIND_NAMES.get(n.kind, n.kind)
    where = {
        "seed": "seed: the walk starts here",
        "prior": f"dense-prior passage #{n.rank}: the walk restarts here",
        "added": f"added by the walk, #{n.rank}" + (f", {n.hop} steps from {html.escape(_title(graph, n.seed))}"
                                                    if n.hop else ""),
        "path": f"on the path, {n.hop} steps from {html.escape(_title(graph, n.seed))}",
        "report": "report the run added; its members here: " + ", ".join(
            html.escape(_title(graph, e.source)) for e in graph.edges if e.relation == MEMBER_OF and e.target == n.id),
    }.get(n.role, n.role)
    also = f"<br>also dense-prior hit #{n.prior_rank}" if n.prior_rank and n.role != "prior" else ""
    label = f" · {html.escape(n.label)}" if n.label else ""
    community = f"<br>community: {html.escape(n.community_title)}" if n.community_title else ""
    return f"<b>{html.escape(n.title)}</b> ({kind}{label})<br>{where}{also}{community}<br>{_wrap(n.description)}"


def walk_figure(graph: WalkGraph, *, highlight: str | None = None) -> go.Figure:
    """Draw the walk: the dense prior, the seeds, then hops left to right; shape and colour by kind.

    Relation types are shown when the pointer rests on an edge's middle
    (never as text over the drawing, so they cannot cover a node's name).
    Trace order (the widget relies on it): 0 edges, 1 highlighted path,
    2 edge hover points, then one node trace per legend entry
    (:data:`LEGEND` order).
    """
    fig = go.Figure()
    pos = {n.id: (n.x, n.y) for n in graph.nodes}
    names = {n.id: n.title for n in graph.nodes}
    ex: list[float | None] = []
    ey: list[float | None] = []
    mx, my, mtext = [], [], []
    for e in graph.edges:
        if e.relation == MEMBER_OF:  # drawn only when the report is selected: a long line would cross the walk
            continue
        (x0, y0), (x1, y1) = pos[e.source], pos[e.target]
        ex += [x0, x1, None]
        ey += [y0, y1, None]
        mx.append((x0 + x1) / 2)
        my.append((y0 + y1) / 2)
        mtext.append(f"{html.escape(names.get(e.source, e.source))} <b>-[{html.escape(e.relation)}]-&gt;</b> "
                     f"{html.escape(names.get(e.target, e.target))}")
    fig.add_trace(go.Scatter(x=ex, y=ey, mode="lines", line={"color": "#9E9E9E", "width": 1.5},
                             hoverinfo="skip", name="relations", showlegend=False))
    hx, hy = _path_xy(graph, highlight, pos)
    fig.add_trace(go.Scatter(x=hx, y=hy, mode="lines", line={"color": ROLES["loss"], "width": 4},
                             hoverinfo="skip", name="path to the selected node", showlegend=bool(hx)))
    fig.add_trace(go.Scatter(
        x=mx, y=my, mode="markers", marker={"size": 12, "color": "rgba(0,0,0,0)", "symbol": "circle"},
        hovertext=mtext, hoverinfo="text", name="relation (hover an edge's middle)", showlegend=False,
        meta="edge-labels",
    ))
    groups: dict[tuple[str, str], list[WalkNode]] = {}
    for n in graph.nodes:
        groups.setdefault((n.kind, n.role), []).append(n)
    for key in [*LEGEND, *(k for k in groups if k not in LEGEND)]:
        members = groups.get(key)
        if not members:
            continue
        symbol, colour, size = node_style(members[0])
        fig.add_trace(go.Scatter(
            x=[n.x for n in members], y=[n.y for n in members], mode="markers",
            cliponaxis=False,
            marker={"color": colour, "size": size, "symbol": symbol,
                    "line": {"width": 3 if key[1] == "seed" else 2, "color": colour if key[1] == "path" else "#333333"}},
            customdata=[n.id for n in members],
            hovertext=[_hover(graph, n) for n in members],
            hoverinfo="text", name=LEGEND.get(key, f"{KIND_NAMES.get(key[0], key[0])}: {key[1]}"),
        ))
    columns = sorted({n.x for n in graph.nodes})
    width = name_width(len(columns))
    for n in graph.nodes:  # names right of their node, on a background: an edge passing behind never hides one
        fig.add_annotation(
            x=n.x, y=n.y, text=html.escape(short_name(n.title, width)), showarrow=False,
            xanchor="left", xshift=12, font={"size": 12},
            # the page's background, 90 % opaque (theme.css gives it and the text the theme's colours)
            bgcolor=NAME_BACKGROUND, borderpad=1, name=f"node:{n.id}",
        )
    rows = max((sum(1 for n in graph.nodes if n.x == x) for x in columns), default=1)
    ticks = []
    for x in columns:
        if x == PRIOR_X:
            ticks.append("dense prior")
        elif x == 0:
            ticks.append("seeds")
        elif any(n.x == x and n.role == "report" for n in graph.nodes):
            ticks.append("reports")
        else:
            ticks.append(f"{int(x)} step{'s' if x > 1 else ''}")
    lo, hi = (columns[0], columns[-1]) if columns else (0.0, 1.0)
    # the title's parenthesis on a second, smaller line: one line ran past the figure's edge at 1366x768
    head, paren, rest = html.escape(graph.title).partition(" (")
    title = f"{head}<br><sup>{paren.strip()}{rest}</sup>" if paren else head
    style(
        fig, title, height=max(460, 190 + 30 * rows),
        legend={"title": {"text": "shape: kind · hollow: only on a path"}},
        margin={"l": 10, "r": 10, "t": 90, "b": 110},
        xaxis={"title": None, "tickvals": columns, "ticktext": ticks, "side": "top", "zeroline": False,
               "showgrid": True, "range": [lo - 0.45, hi + 0.85]},
        yaxis={"visible": False, "range": [min(n.y for n in graph.nodes) - 0.8, max(n.y for n in graph.nodes) + 0.8]}
        if graph.nodes else {"visible": False},
        hovermode="closest", dragmode="pan", autosize=True,
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
    steps = graph.path_to(node_id) or tuple(e.key for e in graph.edges if e.relation == MEMBER_OF and e.target == node_id)
    for a, _, b in steps:
        xs += [pos[a][0], pos[b][0], None]
        ys += [pos[a][1], pos[b][1], None]
    return xs, ys


# -- the widget ---------------------------------------------------------------------------------


class FitWidth(anywidget.AnyWidget):
    """Makes the plotly figures of the enclosing ``.agrag-graph-walk`` take the whole width of the cell.

    A ``FigureWidget`` is drawn before JupyterLab has laid its output out, so
    plotly falls back to 700 px; it follows its container only on a window
    resize (``responsive``). This invisible widget watches the view's width
    and tells plotly when it changes.
    """

    _esm = """
    function render({ el }) {
      el.style.display = "none";
      let last = 0, observer = null;
      const nudge = () => {
        const box = el.closest(".agrag-graph-walk");
        const plot = box && box.querySelector(".js-plotly-plot");
        if (!plot || !plot._fullLayout || !(plot.data && plot.data.length)) { setTimeout(nudge, 200); return; }
        const width = box.getBoundingClientRect().width;
        if (width && Math.abs(width - last) > 2) { last = width; window.dispatchEvent(new Event("resize")); }
      };
      const start = () => {
        const box = el.closest(".agrag-graph-walk");
        if (!box) { requestAnimationFrame(start); return; }
        observer = new ResizeObserver(() => setTimeout(nudge, 50));
        observer.observe(box);
        setTimeout(nudge, 100);
      };
      start();
      return () => observer && observer.disconnect();
    }
    export default { render };
    """


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
        # the whole width of the cell, scroll to zoom, drag to pan
        self.figure._config = {"responsive": True, "scrollZoom": True, "displaylogo": False}
        self.node_dropdown = w.Dropdown(
            options=[("(select a node)", "")] + [
                (f"{n.title} [{KIND_NAMES.get(n.kind, n.kind)}, {n.role}]", n.id) for n in self.graph.nodes
            ],
            description="node", layout=w.Layout(width="40em"),
        )
        self.info = w.HTML()
        self.passages = w.HTML()
        self.header = w.HTML(
            f"<div class='agrag-walk-header'><b>Graph walk</b> — {html.escape(self.graph.summary())}</div>"
        )
        super().__init__(children=[self.header, self.figure, FitWidth(), self.node_dropdown, self.info, self.passages],
                         layout=w.Layout(width="100%"))
        themed(self, "agrag-graph-walk")
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
        kind = KIND_NAMES.get(node.kind, node.kind) + (f", {node.label}" if node.label else "")
        self.info.value = (
            f"<div class='agrag-node'><b>{html.escape(node.title)}</b> ({html.escape(kind)}), {node.role}"
            f"{f', {node.hop} steps' if node.hop else ''}; community: {html.escape(node.community_title or 'none')}<br>"
            f"path: {html.escape(self.graph.path_text(node_id))}<br>"
            f"<span class='agrag-muted'>{html.escape(short(node.description, 400))}</span></div>"
        )
        shown = passages_html(self.supporting_passages(node_id))
        self.passages.value = shown or "<i class='agrag-muted'>no supporting passages</i>"

    def supporting_passages(self, node_id: str, limit: int = 3) -> list[Passage]:
        """Up to ``limit`` passages that support ``node_id``, read from the session or graph."""
        node = self.graph.node(node_id)
        return read_passages(self.session, list(node.chunk_ids[:limit]))
