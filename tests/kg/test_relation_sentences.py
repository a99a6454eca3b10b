"""relation_sentences gives a hub entity's first relations without sorting all of them (issue 30).

The heap must give exactly what the full stable sort gave: checked against that
sort, written out here, for every entity of the workshop graph.
"""

from __future__ import annotations

from agrag_lab import Graph
from agrag_lab.kg.graph_store import GraphStore
from agrag_lab.kg.model import Edge
from agrag_lab.kg.records import RELATIONS_IN_TEXT, relation_sentences


def _by_full_sort(store: GraphStore, entity_id: str, limit: int, typed_only: bool) -> list[tuple[str, Edge]]:
    edges = sorted(store.neighbours(entity_id), key=lambda e: (e.type == "RELATED_TO", -e.weight, e.key))
    out: list[tuple[str, Edge]] = []
    seen: set[tuple[str, str]] = set()
    for edge in edges:
        other_id = edge.other(entity_id)
        other = store.entity(other_id)
        key = ("RELATED_TO" if edge.type == "RELATED_TO" else edge.type, other_id)
        if other is None or key in seen or (edge.type == "RELATED_TO" and (typed_only or ("typed", other_id) in seen)):
            continue
        seen.update({key, ("typed", other_id)})
        own = store.entity(entity_id)
        name = own.name if own is not None else entity_id
        source, target = (name, other.name) if edge.source == entity_id else (other.name, name)
        out.append((f"{source} {edge.type.lower().replace('_', ' ')} {target}.", edge))
        if len(out) == limit:
            break
    return out


def test_the_heap_gives_what_the_full_sort_gave(workshop_graph: Graph) -> None:
    store = workshop_graph.graph_store
    hubs = 0
    for entity in store.entities():
        degree = len(store.neighbours(entity.id))
        hubs += degree > RELATIONS_IN_TEXT
        for limit in (1, 3, RELATIONS_IN_TEXT):
            for typed_only in (False, True):
                assert relation_sentences(store, entity.id, limit, typed_only=typed_only) == _by_full_sort(
                    store, entity.id, limit, typed_only
                ), (entity.id, limit, typed_only)
    assert hubs, "no entity has more relations than are said: the heap was never cut short"
