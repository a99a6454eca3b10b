"""The graph explorer's model: what part of a knowledge graph is in view, and what a click or a search shows.

Pure Python over a graph store, as the other widgets' models are (:mod:`~agrag_lab.widgets.fusion_model`,
:mod:`~agrag_lab.widgets.walk_model`): :func:`explorer_view` reads a graph and returns an
:class:`ExplorerView` (the entities in view, the relations between them, each node's colour group, size and
starting position); the starting positions place each top-level community on a disc of its own (largest
first, on a sunflower spiral), so the first frame already shows the communities. :func:`node_details` is what
a click shows (description, relations, supporting passages, community reports, claims when the index has
them); :func:`entity_table`, :func:`relation_table` and :func:`community_table` are the polars tables beside
the graph; :func:`search` finds entities in view by name; :func:`scope_request` reads what the browser asks
to show next. :class:`~agrag_lab.widgets.graph_explorer.GraphExplorer` binds them to synced state.

Examples
--------
>>> from agrag_lab.kg.model import Edge, Entity, KnowledgeGraph
>>> from agrag_lab.graph_stores.networkx import NetworkXGraphStore
>>> ents = [Entity("ent-a", "Ada", "Person", chunk_ids=("a@0123456789ab#c0",)),
...         Entity("ent-b", "Babbage", "Person", chunk_ids=("a@0123456789ab#c0",)),
...         Entity("ent-c", "London", "Place", chunk_ids=("a@0123456789ab#c1",))]
>>> kg = KnowledgeGraph.create(ents, [Edge("ent-a", "ent-b", "WORKED_WITH", ("a@0123456789ab#c0",))])
>>> view = explorer_view(NetworkXGraphStore(kg))
>>> view.ids, view.degrees, view.edges
(('ent-a', 'ent-b', 'ent-c'), (1, 1, 0), ((0, 1, 'WORKED_WITH'),))
>>> explorer_view(NetworkXGraphStore(kg), entity="ent-a").ids
('ent-a', 'ent-b')
>>> search(view, "a")
['ent-a', 'ent-b']
>>> scope_request({"kind": "entity", "id": "ent-a", "depth": 2})
{'entity': 'ent-a', 'depth': 2}
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from agrag_lab.charts.palette import GROUP_PALETTE, OTHER_GROUP, community_colour
from agrag_lab.errors import ExplorerError, NotFoundError
from agrag_lab.graph_source import GraphSource, PassageSource, StoreHolder, store_of
from agrag_lab.kg.graph_store import GraphStore
from agrag_lab.kg.model import Edge
from agrag_lab.names import display_name
from agrag_lab.widgets._communities import top_groups
from agrag_lab.widgets._text import short

#: Distinct colours for the largest groups (Okabe-Ito without black, then five more); the rest share "other".
GROUP_COLOURS: tuple[str, ...] = GROUP_PALETTE
#: Rows of each table widget (the polars tables hold every row).
TABLE_ROWS = 300
#: The largest neighbourhood drawn (entities); a hub's 2-hop neighbourhood can be the whole graph.
NEIGHBOURHOOD_LIMIT = 3000
#: Golden angle, for the sunflower placement.
_GOLDEN = math.pi * (3.0 - math.sqrt(5.0))


@dataclass(frozen=True)
class ExplorerView:
    """The entities in view and the relations between them, ready to draw.

    Node attributes are parallel tuples (index ``i`` is one node); ``edges``
    are ``(source index, target index, relation type)``. ``groups`` is each
    node's top-level community (``""`` for none) and ``group_titles`` its
    report title; ``x``/``y`` are starting positions.
    """

    title: str
    scope: Mapping[str, Any]
    ids: tuple[str, ...]
    names: tuple[str, ...]
    labels: tuple[str, ...]
    groups: tuple[str, ...]
    degrees: tuple[int, ...]
    x: tuple[float, ...]
    y: tuple[float, ...]
    edges: tuple[tuple[int, int, str], ...]
    group_titles: Mapping[str, str]
    #: Each top-level community's colour, fixed over the whole graph (the same in every view).
    group_colours: Mapping[str, str] = field(default_factory=dict)

    @property
    def colours(self) -> tuple[str, ...]:
        """Each node's colour by its top-level community: the rule of every view of the index
        (:func:`~agrag_lab.charts.palette.community_colour`), so a node has the walk view's colour here."""
        return tuple(community_colour(self.group_colours, g) for g in self.groups)

    def index(self, node_id: str) -> int:
        """Position of ``node_id`` in the node tuples."""
        try:
            return self.ids.index(node_id)
        except ValueError:
            raise NotFoundError(f"{node_id!r} is not in this view ({self.title}); show the whole graph first") from None

    def state(self) -> dict[str, Any]:
        """The view as the browser reads it: one list per attribute (compact for 10,000 nodes)."""
        types = sorted({t for _, _, t in self.edges})
        type_index = {t: i for i, t in enumerate(types)}
        return {
            "title": self.title,
            "ids": list(self.ids),
            "names": list(self.names),
            "labels": list(self.labels),
            "groups": list(self.groups),
            "degrees": list(self.degrees),
            "x": [round(v, 3) for v in self.x],
            "y": [round(v, 3) for v in self.y],
            "sources": [s for s, _, _ in self.edges],
            "targets": [t for _, t, _ in self.edges],
            "types": [type_index[t] for _, _, t in self.edges],
            "type_names": types,
            "group_titles": dict(self.group_titles),
            "group_colours": dict(self.group_colours),
            # the browser draws these (coloured by community), and the palette and grey of "colour: label"
            "colours": list(self.colours),
            "palette": list(GROUP_PALETTE),
            "other_colour": OTHER_GROUP,
            "scope": dict(self.scope),
        }


def _store(graph: GraphSource) -> GraphStore:
    """The graph store of ``graph`` (a ``Graph``, a ``SearchEngine`` or a store; in process or served)."""
    if not isinstance(graph, StoreHolder | GraphStore):
        raise ExplorerError(
            f"GraphExplorer needs a Graph, a SearchEngine or a graph store, not {type(graph).__name__}; "
            "open an index with Graph.open(path) and pass it"
        )
    return store_of(graph)


def _adjacency(relations: Sequence[Edge]) -> dict[str, set[str]]:
    """Each entity -> the entities related to it either way (no self), over ``relations``."""
    around: dict[str, set[str]] = {}
    for edge in relations:
        if edge.source != edge.target:
            around.setdefault(edge.source, set()).add(edge.target)
            around.setdefault(edge.target, set()).add(edge.source)
    return around


def _neighbourhood(around: Mapping[str, set[str]], entity: str, depth: int) -> list[str]:
    seen = {entity: 0}
    frontier = [entity]
    for hop in range(1, depth + 1):
        nxt = []
        for node in frontier:
            for other in sorted(around.get(node, ())):
                if other not in seen:
                    seen[other] = hop
                    nxt.append(other)
                    if len(seen) >= NEIGHBOURHOOD_LIMIT:
                        return list(seen)
        frontier = nxt
    return list(seen)


def community_layout(groups: Sequence[str], degrees: Sequence[int]) -> tuple[list[float], list[float]]:
    """Starting positions: one sunflower disc per group, the largest group first, discs on a spiral.

    Within a disc the best-connected nodes sit in the middle. Deterministic
    and linear in the number of nodes, so 10,000 entities are placed at once.

    Examples
    --------
    >>> xs, ys = community_layout(["a", "a", "b"], [2, 1, 1])
    >>> (round(xs[0], 3), round(ys[0], 3))
    (0.0, 0.0)
    """
    members: dict[str, list[int]] = {}
    for i, g in enumerate(groups):
        members.setdefault(g or f"\0{i}", []).append(i)
    order = sorted(members, key=lambda g: (-len(members[g]), g))
    xs = [0.0] * len(groups)
    ys = [0.0] * len(groups)
    placed_area = 0.0
    for k, g in enumerate(order):
        nodes = sorted(members[g], key=lambda i: (-degrees[i], i))
        radius = math.sqrt(len(nodes))
        if k == 0:
            cx = cy = 0.0
        else:  # the next disc goes just outside the area already used, at the golden angle
            distance = math.sqrt(placed_area) + radius + 1.0
            cx, cy = distance * math.cos(k * _GOLDEN), distance * math.sin(k * _GOLDEN)
        placed_area += (radius + 1.0) ** 2 * 1.3
        for j, i in enumerate(nodes):
            r = math.sqrt(j)
            xs[i] = cx + r * math.cos(j * _GOLDEN)
            ys[i] = cy + r * math.sin(j * _GOLDEN)
    return xs, ys


def explorer_view(
    graph: GraphSource,
    *,
    community: str | None = None,
    document: str | None = None,
    entity: str | None = None,
    depth: int = 1,
) -> ExplorerView:
    """The entities to draw: the whole graph, one community, one document's entities, or a neighbourhood.

    Parameters
    ----------
    graph : Graph, SearchEngine or graph store
        The index (built here or imported from GraphRAG).
    community : str, optional
        A community id: its members.
    document : str, optional
        A document id: the entities its current passages mention.
    entity : str, optional
        An entity id: it and the entities within ``depth`` relations of it
        (at most :data:`NEIGHBOURHOOD_LIMIT`).
    depth : int
        Hops of the neighbourhood (1 or more).

    Raises
    ------
    ExplorerError
        More than one of ``community``, ``document``, ``entity`` was given, or ``depth`` < 1.
    NotFoundError
        The community, document or entity is not in the graph.
    """
    store = _store(graph)
    relations = store.relations()  # every visible relation, by key: what is drawn
    asked = [(k, v) for k, v in (("community", community), ("document", document), ("entity", entity)) if v]
    if len(asked) > 1:
        raise ExplorerError(f"show one of community, document or entity at a time (got {dict(asked)})")
    if depth < 1:
        raise ExplorerError(f"depth must be at least 1 (got {depth})")
    current = {e.id: e for e in store.entities()}  # what the store shows (a GraphML import has no passages)
    scope: dict[str, Any] = {"kind": "all"}
    if community:
        found = store.community(community)
        if found is None:
            raise NotFoundError(f"no community {community!r} in this graph; see GraphExplorer.communities for the ids")
        wanted = [m for m in found.members if m in current]
        report = store.report(community)
        title = f"community {report.title if report is not None else community} (level {found.level})"
        scope = {"kind": "community", "id": community}
    elif document:
        wanted = [eid for eid, e in current.items() if document in e.document_ids]
        if not wanted:
            raise NotFoundError(f"no entity is mentioned by a current passage of document {document!r}; check the id")
        title = f"document {document}"
        scope = {"kind": "document", "id": document}
    elif entity:
        if entity not in current:
            raise NotFoundError(f"no current entity {entity!r}; find one with GraphExplorer.search(name)")
        wanted = _neighbourhood(_adjacency(relations), entity, depth)
        title = f"{current[entity].name} and its {'neighbours' if depth == 1 else f'{depth}-hop neighbourhood'}"
        scope = {"kind": "entity", "id": entity, "depth": depth}
    else:
        wanted = sorted(current)
        title = "the whole graph"
    ids = tuple(sorted(e for e in dict.fromkeys(wanted) if e in current))
    position = {e: i for i, e in enumerate(ids)}
    edges: dict[tuple[int, int], str] = {}
    for edge in relations:
        if edge.source in position and edge.target in position and edge.source != edge.target:
            a, b = position[edge.source], position[edge.target]
            edges.setdefault((min(a, b), max(a, b)), edge.type)  # drawn undirected: one line per pair
    degree = [0] * len(ids)
    for s, t in edges:
        degree[s] += 1
        degree[t] += 1
    group_of, titles, colours = top_groups(store)
    groups = tuple(group_of.get(e, "") for e in ids)
    xs, ys = community_layout(groups, degree)
    return ExplorerView(
        title=f"{title}: {len(ids):,} entities, {len(edges):,} relations",
        scope=scope,
        ids=ids,
        names=tuple(current[e].name for e in ids),
        labels=tuple(current[e].label for e in ids),
        groups=groups,
        degrees=tuple(degree),
        x=tuple(xs),
        y=tuple(ys),
        edges=tuple((s, t, r) for (s, t), r in edges.items()),
        group_titles={g: titles.get(g, g) for g in dict.fromkeys(groups) if g},
        group_colours={g: colours[g] for g in dict.fromkeys(groups) if g in colours},
    )


def _chunk_name(graph: GraphSource, key: str) -> tuple[str, str]:
    info = graph.chunk_info(key) if isinstance(graph, PassageSource) else None
    if info is None:
        return key, ""
    name = display_name("chunk", info.title, key=key, heading_path=tuple(info.heading_path), text=info.text)
    return name, info.text


def _relation_weight(edge: Edge) -> float | None:
    """The weight its builder gave a relation (GraphRAG's ``weight``), ``None`` when it has none."""
    value = dict(edge.attributes).get("weight")
    try:
        return float(value) if value is not None else None
    except (TypeError, ValueError):
        return None


def node_details(graph: GraphSource, node_id: str, *, passages: int = 3, relations: int = 12) -> dict[str, Any]:
    """What a click on ``node_id`` shows: description, relations, passages, reports and claims.

    Claims are an imported GraphRAG index's covariates (``Entity.claims``);
    ``has_claims`` says whether the index holds any.

    Parameters
    ----------
    graph : Graph or graph store
        A :class:`~agrag_lab.graph.Graph` also gives the passages' text and names.
    node_id : str
        An entity id.
    passages, relations : int
        How many supporting passages and relations to list.
    """
    store = _store(graph)
    entity = store.entity(node_id)
    if entity is None:
        raise NotFoundError(f"no current entity {node_id!r} in this graph; find one with GraphExplorer.search(name)")
    every = store.neighbours(node_id)
    names = {e.id: e.name for e in (store.entity(other) for other in {x.other(node_id) for x in every})
             if e is not None}
    rels: list[dict[str, Any]] = []
    for edge in every:
        other = edge.other(node_id)
        rels.append({
            "type": edge.type, "outgoing": edge.source == node_id, "other": other,
            "other_name": names.get(other, other), "support": edge.weight,
            "weight": _relation_weight(edge),
            "description": short(edge.description or "", 200),
        })
    # the strongest first: the builder's weight (GraphRAG's), else the passages that support it
    rels.sort(key=lambda r: (-float(r["weight"] if r["weight"] is not None else r["support"]),
                             -int(r["support"]), str(r["other_name"])))
    shown = []
    for key in entity.chunk_ids[:passages]:
        name, text = _chunk_name(graph, key)
        shown.append({"id": key, "name": name, "text": short(text, 360)})
    reports: list[dict[str, Any]] = []
    for overlap in store.communities_of([node_id]):
        report = store.report(overlap.community.id)
        if report is not None:
            reports.append({"id": report.community_id, "level": report.level, "title": report.title,
                            "summary": short(report.summary, 360), "size": overlap.community.size})
    reports.sort(key=lambda r: (int(r["level"]), str(r["id"])))
    has_claims = any(e.claims for e in store.entities())  # an imported GraphRAG index with covariates
    claims = [
        {"type": c.type, "text": short(c.description, 240), "status": c.status, "chunk_id": c.chunk_id}
        for c in entity.claims
    ]
    return {
        "id": node_id, "name": entity.name, "label": entity.label, "aliases": list(entity.aliases),
        "description": entity.description, "degree": len({e.other(node_id) for e in every} - {node_id}),
        "passage_count": entity.mention_count, "relations": rels[:relations], "relation_count": len(rels),
        "passages": shown, "reports": reports, "claims": claims, "has_claims": has_claims,
    }


def entity_table(view: ExplorerView, graph: GraphSource) -> pl.DataFrame:
    """One row per entity in view: name, label, degree, community, passages, description (by degree)."""
    store = _store(graph)
    ents = {e.id: e for e in store.entities()}
    return pl.DataFrame({
        "id": list(view.ids),
        "name": list(view.names),
        "label": list(view.labels),
        "degree": list(view.degrees),
        "community": [view.group_titles.get(g, "") for g in view.groups],
        "passages": [ents[e].mention_count for e in view.ids],
        "description": [ents[e].description for e in view.ids],
    }, schema_overrides={"degree": pl.Int64, "passages": pl.Int64}).sort(["degree", "name"], descending=[True, False])


def relation_table(view: ExplorerView) -> pl.DataFrame:
    """One row per relation in view: source, type, target (names and ids)."""
    return pl.DataFrame({
        "source": [view.names[s] for s, _, _ in view.edges],
        "type": [t for _, _, t in view.edges],
        "target": [view.names[t] for _, t, _ in view.edges],
        "source_id": [view.ids[s] for s, _, _ in view.edges],
        "target_id": [view.ids[t] for _, t, _ in view.edges],
    }, schema={"source": pl.String, "type": pl.String, "target": pl.String,
               "source_id": pl.String, "target_id": pl.String}).sort(["type", "source", "target"])


def community_table(view: ExplorerView, graph: GraphSource) -> pl.DataFrame:
    """One row per community with a member in view: level, size, members in view, report title."""
    store = _store(graph)
    in_view = set(view.ids)
    rows = []
    for c in store.communities():
        shown = sum(1 for m in c.members if m in in_view)
        if shown:
            report = store.report(c.id)
            rows.append({"id": c.id, "level": c.level, "size": c.size, "in_view": shown,
                         "title": report.title if report is not None else ""})
    schema = {"id": pl.String, "level": pl.Int64, "size": pl.Int64, "in_view": pl.Int64, "title": pl.String}
    return pl.DataFrame(rows, schema=schema).sort(["level", "in_view", "id"], descending=[False, True, False])


# -- the widget ---------------------------------------------------------------------------------


def search(view: ExplorerView, text: str, limit: int = 10) -> list[str]:
    """Entity ids in ``view`` whose name contains ``text`` (case-insensitive): names that start with it first,
    then the best connected."""
    needle = text.casefold().strip()
    found = [i for i, n in enumerate(view.names) if needle and needle in n.casefold()]
    found.sort(key=lambda i: (not view.names[i].casefold().startswith(needle), -view.degrees[i], i))
    return [view.ids[i] for i in found[:limit]]


def scope_request(asked: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The part of the graph the browser asks to show (``{"kind", "id", "depth"}``), as the keyword arguments of
    :func:`explorer_view`; ``{}`` for the whole graph, ``None`` for a request of no known kind.

    Raises
    ------
    ExplorerError
        The depth asked for is not a whole number.
    """
    asked = asked or {}
    kind, ident = asked.get("kind"), asked.get("id")
    if kind == "community":
        return {"community": ident}
    if kind == "entity":
        try:
            depth = int(asked.get("depth", 1))
        except (TypeError, ValueError) as exc:
            raise ExplorerError(f"a neighbourhood's depth must be a whole number (got {asked.get('depth')!r})") from exc
        return {"entity": ident, "depth": depth}
    if kind == "document":
        return {"document": ident}
    if kind == "all":
        return {}
    return None
