"""The subgraph a search used, read from its trace: :func:`used_subgraph`.

"Which graph elements were used to answer?" is answered from the ledger alone
(nothing is searched again): the walk's seeds, every path it walked with the
walk rank and score of the item it led to, the community reports added with
the entities they were added for, the results with their rank and fused score,
and the passages an answer cited. Each node says why it is there in
``roles`` (``seed``, ``walked``, ``path``, ``report``, ``result``, ``cited``).
The export formats of :mod:`agrag_lab.kg.export_formats` then write it.

Entities are described from the graph when it is given (the same properties
as a whole-graph export), else from what the trace shows of them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from agrag_lab.kg.export import (
    IN_COMMUNITY,
    MENTIONS,
    ExportEdge,
    ExportNode,
    NodeKind,
    PropertyValue,
    Subgraph,
    entity_node,
    props_of,
    relation_edge,
)
from agrag_lab.kg.model import KnowledgeGraph
from agrag_lab.retrieval.trace import ItemInfo, PathStep, SearchTrace

__all__ = ["used_subgraph"]


@dataclass
class _Collect:
    """Nodes and edges as they are found (each node's roles and figures merged)."""

    graph: KnowledgeGraph | None
    items: Mapping[str, ItemInfo]
    roles: dict[str, list[str]] = field(default_factory=dict)
    figures: dict[str, dict[str, PropertyValue]] = field(default_factory=dict)
    kinds: dict[str, NodeKind] = field(default_factory=dict)
    edges: dict[tuple[str, str, str], ExportEdge] = field(default_factory=dict)

    def add(self, key: str, role: str, kind: NodeKind | None = None, figures: Mapping[str, PropertyValue] | None = None,
            ) -> None:
        roles = self.roles.setdefault(key, [])
        if role not in roles:
            roles.append(role)
        for name, value in (figures or {}).items():
            self.figures.setdefault(key, {}).setdefault(name, value)
        self.kinds.setdefault(key, kind or self._kind(key))

    def _kind(self, key: str) -> NodeKind:
        if key in self.items:
            return self.items[key].kind
        if self.graph is not None and self.graph.entity(key) is not None:
            return "entity"
        return "chunk" if "#" in key else "entity"

    def step(self, step: PathStep, figures: Mapping[str, PropertyValue]) -> None:
        """A walked step: the relation as the graph holds it (either way round), else as the walk named it."""
        for end in (step.source, step.target):
            self.add(end, "path")
        key = (step.source, step.target, step.relation)
        if key in self.edges:
            return
        edge = None
        if self.graph is not None:
            edge = self.graph.edge_index.get(key) or self.graph.edge_index.get((step.target, step.source, step.relation))
        extra = {"walked": True, **figures}
        self.edges[key] = (relation_edge(edge, extra) if edge is not None
                           else ExportEdge(step.source, step.target, step.relation,
                                           props_of({"type": step.relation, **extra})))

    def node(self, key: str) -> ExportNode:
        extra: dict[str, PropertyValue | None] = {"roles": tuple(self.roles[key]), **self.figures.get(key, {})}
        kind = self.kinds[key]
        entity = self.graph.entity(key) if self.graph is not None and kind == "entity" else None
        if entity is not None:
            return entity_node(entity, extra)
        info = self.items.get(key)
        values: dict[str, PropertyValue | None] = {"kind": kind}
        if info is not None:
            values |= {"name": info.name, "title": info.title, "text": info.text, "document_id": info.document_id,
                       "heading_path": info.heading_path, "label": info.label, "builder_id": info.builder_id}
        labels = {"entity": (info.label,) if info is not None and info.label else (), "chunk": ("Chunk",),
                  "community": ("Community",)}[kind]
        return ExportNode(key, kind, tuple(labels), props_of({**values, **extra}))


def used_subgraph(
    trace: SearchTrace,
    graph: KnowledgeGraph | None = None,
    cited: Iterable[str] = (),
) -> Subgraph:
    """The nodes and edges a search used (see the module's docstring).

    Parameters
    ----------
    trace : SearchTrace
        A run's trace (``SearchRun.trace``).
    graph : KnowledgeGraph, optional
        The graph it searched, to describe entities and relations fully.
    cited : iterable of str
        Ids of the passages (or other items) an answer cited: added with the role ``cited``.

    Examples
    --------
    >>> from agrag_lab.retrieval.fusion import rrf
    >>> from agrag_lab.retrieval.trace import CutTrace, GraphContext, Outcome, WalkAddition, WalkTrace
    >>> fused = rrf({}, k=60)
    >>> walk = WalkTrace(("a",), (WalkAddition("b", 1, 1, "a", 1, (PathStep("a", "KNOWS", "b"),), 0.5),),
    ...                  1, 5, (), "both", "bfs")
    >>> out = Outcome(fused, fused, walk, None, None, CutTrace(10, 0, ()), ("b",), {"b": 0.02})
    >>> sub = used_subgraph(SearchTrace("q", {}, {}, (), GraphContext(), {}, out, 0.1))
    >>> [(n.id, n.get("roles")) for n in sub.nodes]
    [('a', ('seed', 'path')), ('b', ('path', 'walked', 'result'))]
    >>> [(e.source, e.type, e.target, e.get("path_rank"), e.get("walked")) for e in sub.edges]
    [('a', 'KNOWS', 'b', 1, True)]
    """
    found = _Collect(graph, trace.items)
    out = trace.outcome
    if out.walk is not None:
        for rank, seed in enumerate(out.walk.seeds, 1):
            found.add(seed, "seed", figures={"seed_rank": rank})
        for add in out.walk.additions:
            for step in add.path:
                found.step(step, {"path_to": add.entity, "path_rank": add.rank})
            figures: dict[str, PropertyValue] = {"walk_rank": add.rank, "hop": add.hop}
            if add.seed:
                figures["walk_seed"] = add.seed
            if add.score:
                figures["walk_score"] = add.score
            found.add(add.entity, "walked", figures=figures)
    for c in out.communities or ():
        found.add(c.community, "report", "community", {"report_rank": c.rank, "overlap": c.overlap})
        for entity in c.entities:
            found.add(entity, "report_entity")
            found.edges.setdefault((entity, c.community, IN_COMMUNITY), ExportEdge(
                entity, c.community, IN_COMMUNITY, (("type", IN_COMMUNITY),)))
    for rank, key in enumerate(out.order, 1):
        found.add(key, "result", figures={"rank": rank, "score": float(out.scores[key])})
    for key in cited:
        found.add(key, "cited")
    for chunk, entities in trace.context.mentions.items():
        if chunk in found.roles:
            for entity in entities:
                if entity in found.roles:
                    found.edges.setdefault((chunk, entity, MENTIONS), ExportEdge(chunk, entity, MENTIONS,
                                                                                 (("type", MENTIONS),)))
    nodes = [found.node(key) for key in found.roles]
    return Subgraph.create(f"what the search {trace.query!r} used", nodes, found.edges.values(),
                           {"query": trace.query, "recipe": str(trace.recipe.get("name", ""))})
