"""The facets of the asked relation records only (``relation_facets_of``): the whole build's, record for record."""

from __future__ import annotations

from agrag_lab import Graph
from agrag_lab.index.records import _ENTITY_FACETS, relation_facets, relation_facets_of


def test_the_asked_facets_are_the_whole_builds_and_only_their_owners_are_read(workshop_graph: Graph) -> None:
    store = workshop_graph.graph_store
    whole = relation_facets(store)
    assert len(whole) > 20  # the workshop's rule graph has typed relations to state
    owners = sorted({rid.split("#r")[0] for rid in whole})
    asked = [rid for rid in whole if rid.startswith(owners[0] + "#r")]
    _ENTITY_FACETS.pop(store, None)
    assert relation_facets_of(store, asked) == {rid: whole[rid] for rid in asked}
    assert set(_ENTITY_FACETS[store]) == {owners[0]}  # one entity's facets enumerated, not the index's
    # every record, in any order; ids that state no relation are left out
    last = max((rid for rid in whole if rid.startswith(owners[-1] + "#r")), key=lambda r: int(r.split("#r")[1]))
    beyond = f"{owners[-1]}#r{int(last.split('#r')[1]) + 1}"
    odd = [owners[1], beyond, f"{owners[1]}#r01", f"{owners[1]}#rx", "ent-nobody#r0", "#r0"]
    assert relation_facets_of(store, [*reversed(whole), *odd]) == whole
    assert relation_facets_of(store, odd) == {}
