"""The walk model: the walked subgraph of a search, or of a ``traverse`` call, as pure data.

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

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from agrag_lab.errors import NotFoundError, ViewArgumentError
from agrag_lab.graph_source import GraphSource, ItemShower, store_of
from agrag_lab.kg.graph_store import GraphStore
from agrag_lab.names import name_of, text_after_name
from agrag_lab.retrieval.run import SearchResult, SearchRun
from agrag_lab.retrieval.trace import ItemInfo, PathStep
from agrag_lab.widgets._communities import top_groups
from agrag_lab.widgets._text import short

EdgeKey = tuple[str, str, str]
#: Vertical distance between two nodes of one column.
SPACING = 1.0
#: The column of the dense-prior passages (left of the seeds).
PRIOR_X = -1.0
KIND_NAMES = {"entity": "entity", "chunk": "passage", "community": "report"}
#: The edge from a member entity to the report of its community (not a relation the walk followed).
MEMBER_OF = "IN_COMMUNITY"
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
    #: Each community's colour, keyed by its id over the whole graph (empty: ranked within this walk).
    colours: Mapping[str, str] = field(default_factory=dict)
    #: What the graph says of a relation walked: its builder's weight and description (GraphRAG's), by edge key.
    relation_notes: Mapping[EdgeKey, str] = field(default_factory=dict)

    def with_relation_notes(self, store: GraphStore) -> WalkGraph:
        """This graph with each walked relation's weight and description read from ``store``."""
        notes: dict[EdgeKey, str] = {}
        wanted = {e.key for e in self.edges}
        for node in {e.source for e in self.edges}:
            for edge in store.neighbours(node):
                for key in ((edge.source, edge.type, edge.target), (edge.target, edge.type, edge.source)):
                    if key in wanted and key not in notes:
                        weight = dict(edge.attributes).get("weight")
                        parts = [f"weight {weight}" if weight is not None else "",
                                 f"{edge.weight} passage{'s' if edge.weight != 1 else ''}",
                                 short(edge.description or "", 240)]
                        notes[key] = " · ".join(p for p in parts if p)
        return replace(self, relation_notes=notes)

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
        colours: Mapping[str, str] | None = None,
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
            # a prior passage the walk proposed itself (no path) stays in the prior column, drawn as a prior
            # passage (the "added by the walk" symbol there read as a step the walk took)
            itself = not keys and node in prior_rank
            role[node] = "prior" if itself else "added"
            hop[node] = 0 if itself else node_hop
            seed_of[node] = node if itself else origin
            rank[node] = prior_rank[node] if itself else position
            column[node] = PRIOR_X if itself else float(max(node_hop, 1))
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
            text = descriptions.get(node, text_after_name(item.kind, item.title, item.text) if item else "")
            nodes.append(WalkNode(
                id=node, title=node_title(node, item), label=(item.label or "") if item else "",
                hop=hop[node], role=role[node], seed=seed_of[node], rank=rank[node], community=community,
                community_title=community_titles.get(community, community or "") if community else "",
                description=text,
                chunk_ids=(tuple(item.chunk_ids) or ((node,) if kind == "chunk" else ())) if item else (),
                x=place[node][0], y=place[node][1], kind=kind, prior_rank=prior_rank.get(node, 0),
            ))
        edge_list = tuple(WalkEdge(a, r, b, tuple(dict.fromkeys(ends))) for (a, r, b), ends in edges.items())
        return cls(tuple(nodes), edge_list, tuple(seeds), paths, title, tuple(prior), dict(colours or {}))

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


def _store_extras(
    store: GraphStore, ids: Sequence[str]
) -> tuple[dict[str, tuple[str, ...]], dict[str, str], dict[str, str], dict[str, str]]:
    """Top-level communities, their titles and colours (as the explorer's), and entity descriptions, from a store."""
    group_of, titles, colours = top_groups(store)
    found: dict[str, tuple[str, ...]] = {node: (group_of[node],) for node in ids if node in group_of}
    descriptions: dict[str, str] = {}
    for node in ids:
        entity = store.entity(node)
        if entity is not None and entity.description:
            descriptions[node] = entity.description
    return found, titles, descriptions, colours


def walk_graph(run: SearchRun, *, graph: GraphSource | None = None) -> WalkGraph:
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
    colours: dict[str, str] = {}
    store = store_of(graph) if graph is not None else None
    if store is not None:
        found, more_titles, descriptions, colours = _store_extras(store, ids)
        if colours:  # the store's top-level communities (else the run's own memberships stay)
            memberships = found
        titles = {**titles, **more_titles}
    name = run.trace.recipe.get("name", "recipe")
    built = WalkGraph.build(
        seeds=walk.seeds, reached=reached, info=run.trace.items, memberships=memberships, community_titles=titles,
        descriptions=descriptions, prior=walk.prior, reports=reports, colours=colours,
        title=(
            f"{name}: PageRank walk for {short(run.trace.query, 44)!r} (its best passages; {_direction(walk.direction)})"
            if walk.strategy == "ppr"
            else f"{name}: walk for {short(run.trace.query, 44)!r} (depth {walk.depth}; {_direction(walk.direction)})"
        ),
    )
    return built.with_relation_notes(store) if store is not None else built


def _direction(direction: str) -> str:
    return {"both": "relations followed both ways", "out": "relations followed forward",
            "in": "relations followed backward"}.get(direction, direction)


def traverse_graph(
    seed: SearchResult,
    results: Sequence[SearchResult],
    store: GraphSource,
    *,
    relation_type: str | None = None,
    direction: str = "both",
    depth: int | None = None,
) -> WalkGraph:
    """The subgraph of a ``SearchEngine.traverse(seed, ...)`` call.

    Each entity ``traverse`` returns carries its ``hop`` and its ``path`` (the
    relations followed from the seed); the graph is drawn from them alone.
    ``relation_type``, ``direction`` and ``depth`` (default: the deepest hop)
    only name the call in the title. ``store`` adds names, communities and
    descriptions.

    Raises
    ------
    ViewArgumentError
        If an entity result has no hop (it did not come from ``traverse``).
    """
    graph = store_of(store)
    entities = [r for r in results if r.kind == "entity" and r.id != seed.id]
    unwalked = [r.title for r in entities if r.hop is None]
    if unwalked:
        raise ViewArgumentError(
            f"{len(unwalked)} entity result(s) carry no hop (e.g. {unwalked[0]!r}): GraphWalkView(results, seed=...) "
            "draws the results of engine.traverse(seed, ...); show a search run as GraphWalkView(run)")
    reached_depth = max((int(r.hop or 1) for r in entities), default=0)
    # the title states what was drawn: the depth reached, and why a walk asked to go deeper stopped
    drawn = f"{len(entities)} entities within {reached_depth} hop{'s' if reached_depth != 1 else ''}"
    if depth is not None and reached_depth < depth:
        drawn += f" (asked for depth {depth}: the result limit or the graph's edge stopped it)"
    reached = [(r.id, int(r.hop or 1), seed.id, tuple(r.path)) for r in entities]
    ids = list(dict.fromkeys([seed.id, *(e for e, *_ in reached), *(s.target for *_, p in reached for s in p)]))
    info: dict[str, ItemInfo] = {}
    for node in ids:
        item = graph.item_info(node) if isinstance(graph, ItemShower) else None
        if item is not None:
            info[node] = item
    memberships, titles, descriptions, colours = _store_extras(graph, ids)
    how = f"{relation_type} " if relation_type else ""
    return WalkGraph.build(
        seeds=[seed.id], reached=reached, info=info, memberships=memberships, community_titles=titles,
        descriptions=descriptions, colours=colours, title=f"traverse from {seed.title}: {how}{drawn}; {_direction(direction)}",
    ).with_relation_notes(graph)
