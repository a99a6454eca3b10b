"""Map a GraphML graph to our frozen values: nodes become entities, edges relations.

Reads what other tools write: LightRAG's ``graph_chunk_entity_relation.graphml``
(node attributes ``entity_id``, ``entity_type``, ``description``, ``source_id``;
edge attributes ``description``, ``keywords``, ``weight``), GraphRAG's graphml
snapshots (``type``, ``description``, ``degree``), or a ``networkx.write_graphml``
of your own. A GraphML file holds no source text: the import has no passages,
and its report says so. Entities are visible unscoped; a session scoped to
documents sees none (there are no documents).

Examples
--------
>>> import networkx as nx, tempfile, os
>>> g = nx.Graph()
>>> g.add_node("Scrooge", entity_type="PERSON", description="A miser.")
>>> g.add_node("Marley", entity_type="PERSON")
>>> g.add_edge("Scrooge", "Marley", description="Partners.", weight=2.0)
>>> path = os.path.join(tempfile.mkdtemp(), "g.graphml")
>>> nx.write_graphml(g, path)
>>> imported = read_graphml(path)
>>> [(e.name, e.label) for e in imported.store.entities()]
[('Marley', 'PERSON'), ('Scrooge', 'PERSON')]
>>> [e.description for e in imported.store.graph.edges]
['Partners.']
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agrag_lab.graph_stores.networkx import NetworkXGraphStore
from agrag_lab.importing.errors import ImportSourceError
from agrag_lab.importing.model import ImportedIndex
from agrag_lab.importing.report import Skipped
from agrag_lab.importing.validate import ImportLimits, check_bytes, check_graph
from agrag_lab.kg.model import Attributes, Edge, Entity, KnowledgeGraph, assign_entity_ids
from agrag_lab.kg.schema import GraphSchema

__all__ = ["NAME_KEYS", "NO_PASSAGES", "adjacency_order", "read_graphml"]

#: Node attributes that name an entity, first found wins (else the node id).
NAME_KEYS = ("entity_name", "name", "title", "entity_id", "label")
#: Node attributes that give its type.
LABEL_KEYS = ("entity_type", "type", "label_type", "category")
#: Edge attributes that give a relation type (else RELATED_TO).
TYPE_KEYS = ("type", "relation_type", "relationship", "label")
#: The note of an import without source text.
NO_PASSAGES = (
    "the graph names no source text: the index has entities and relations but no passages, so discover, "
    "fetch and navigate find nothing and relations are shown as paths, not assertions"
)


def _first(attrs: Mapping[str, Any], keys: tuple[str, ...]) -> str:
    for key in keys:
        value = attrs.get(key)
        if value is not None and str(value).strip():
            return str(value).strip()
    return ""


def _attributes(attrs: Mapping[str, Any], skip: set[str]) -> Attributes:
    return tuple(sorted((k, v) for k, v in attrs.items() if k not in skip and isinstance(v, (str, int, float, bool))))


def relation_type(value: str) -> str:
    """A given relation type as an identifier: ``"works for"`` -> ``WORKS_FOR`` (``RELATED_TO`` when empty).

    Examples
    --------
    >>> relation_type("works for"), relation_type("")
    ('WORKS_FOR', 'RELATED_TO')
    """
    name = re.sub(r"[^0-9A-Za-z]+", "_", value).strip("_").upper()
    return name or "RELATED_TO"


def _read(path: Path) -> Any:
    import networkx as nx  # type: ignore[import-untyped,unused-ignore]

    if not path.is_file():
        raise ImportSourceError(f"{path} is not a file; pass a .graphml file (e.g. LightRAG's graph_chunk_entity_relation.graphml)")
    try:
        return nx.read_graphml(path)
    except Exception as exc:  # networkx raises ParseError, KeyError, NetworkXError
        raise ImportSourceError(
            f"{path} cannot be read as GraphML ({type(exc).__name__}: {str(exc)[:200]}); check that it is a "
            "GraphML file (networkx.write_graphml, LightRAG, GraphRAG snapshots)"
        ) from None


def adjacency_order(g: Any) -> dict[frozenset[str], int]:
    """A place for each edge of a networkx graph such that every node's edges, by place, come in the order
    networkx lists that node's neighbours (for a graph read from a file: the order of its edges there).

    LightRAG reads a node's relations in that order, and its stable sorts keep it among equals. An edge is
    named by the set of its ends' node ids; a graph whose lists disagree (a directed graph with both
    directions of one pair) has no such order: ``{}``.

    Examples
    --------
    >>> import networkx as nx
    >>> g = nx.Graph([("b", "c"), ("a", "c"), ("a", "b")])
    >>> order = adjacency_order(g)
    >>> sorted(g.adj["c"], key=lambda n: order[frozenset(("c", n))]), sorted(g.adj["a"], key=lambda n: order[frozenset(("a", n))])
    (['b', 'a'], ['c', 'b'])
    """
    from graphlib import CycleError, TopologicalSorter

    sorter: TopologicalSorter[frozenset[str]] = TopologicalSorter()
    for node in g.nodes:
        before: tuple[frozenset[str], ...] = ()
        for other in g.adj[node]:
            edge = frozenset((str(node), str(other)))
            sorter.add(edge, *before)
            before = (edge,)
    try:
        return {edge: place for place, edge in enumerate(sorter.static_order())}
    except CycleError:
        return {}


def read_graphml(path: str | Path, *, limits: ImportLimits | None = None) -> ImportedIndex:
    """Read and map a GraphML file; nothing is written.

    Raises
    ------
    ImportSourceError
        The file is missing, not GraphML, or has no nodes.
    ImportLimitError
        The file's size (checked before it is read), its nodes, edges or a
        description are past ``limits``.
    """
    file = Path(path)
    limits = limits or ImportLimits()
    if (file.parent / "kv_store_text_chunks.json").is_file():
        raise ImportSourceError(
            f"{file} lies in a LightRAG working directory ({file.parent} holds kv_store_text_chunks.json, the "
            f"chunks' text): import the directory with its passages, `agrag-lab import lightrag {file.parent} "
            "--index DIR` (Graph.import_lightrag); a GraphML file alone imports without passages"
        )
    check_bytes((file,), limits, f"GraphML file {file}")
    g = _read(file)
    check_graph(str(file), g, limits)
    if g.number_of_nodes() == 0:
        raise ImportSourceError(f"{file} holds no nodes: there is nothing to import")
    nodes = sorted(g.nodes(data=True), key=lambda n: str(n[0]))
    names = [(_first(a, NAME_KEYS) or str(n), str(n)) for n, a in nodes]
    ids = assign_entity_ids([(name, key, 0) for name, key in names])
    by_node = {str(n): eid for (n, _), eid in zip(nodes, ids, strict=True)}
    entities = []
    for (node, attrs), (name, _), eid in zip(nodes, names, ids, strict=True):
        used = {*NAME_KEYS, *LABEL_KEYS, "description"}
        extra = dict(_attributes(attrs, used))
        extra["graphml_id"] = str(node)
        entities.append(
            Entity(eid, name, _first(attrs, LABEL_KEYS) or "Entity", description=str(attrs.get("description") or ""),
                   attributes=tuple(sorted(extra.items())))
        )
    edges: dict[tuple[str, str, str], Edge] = {}
    repeated = 0
    for u, v, attrs in g.edges(data=True):
        kind = relation_type(_first(attrs, TYPE_KEYS))
        key = (by_node[str(u)], by_node[str(v)], kind)
        if key in edges:
            repeated += 1
            continue
        edges[key] = Edge(*key, description=str(attrs.get("description") or ""),
                          attributes=_attributes(attrs, {*TYPE_KEYS, "description"}))
    labels = sorted({e.label for e in entities} | {"Entity"})
    types = sorted({k[2] for k in edges} | {"RELATED_TO"})
    graph = KnowledgeGraph.create(entities, edges.values(), schema=GraphSchema(tuple(labels), tuple(types), symmetric_relation_types=()))
    skipped = (Skipped("edges", repeated, "they repeat a (source, target, type) already imported (a multigraph)"),) if repeated else ()
    return ImportedIndex(
        str(file), "graphml", (), NetworkXGraphStore(graph), {"nodes": g.number_of_nodes(), "edges": g.number_of_edges()},
        skipped, (NO_PASSAGES,),
    )
