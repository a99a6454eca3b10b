"""The LIGHTRAG_* recipes run with the keywords LightRAG was given, and what they selected, named as LightRAG names it.

Shared by the parity tests of the working directories ``make peers`` writes (``tests/fixtures/peers/lightrag/``
searched with re-embedded vectors, ``lightrag_dim/`` through the builder's endpoint with its stored vectors).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from agrag_lab import Graph, recipes
from agrag_lab.retrieval.methods import REGISTRY
from agrag_lab.retrieval.methods.keyword_graph import KeywordGraph
from agrag_lab.retrieval.query_keywords import Keywords
from agrag_lab.retrieval.trace import MethodTrace

MODES = {"local": "LIGHTRAG_LOCAL", "global": "LIGHTRAG_GLOBAL", "hybrid": "LIGHTRAG_HYBRID", "mix": "LIGHTRAG_MIX"}


@dataclass(frozen=True)
class Selection:
    """One run's entities, relations (ends in order) and passages, by LightRAG's names and chunk ids."""

    entities: list[str]
    relations: list[list[str]]
    chunks: list[str]


def recorded_runs(graph: Graph, parity: Mapping[str, Any]) -> dict[tuple[str, str], MethodTrace]:
    """Each question of a parity file in each mode, with LightRAG's own keywords (the method's keyword function
    swapped for one that answers the recorded keywords)."""

    def recorded(query: str, names: Sequence[str]) -> Keywords:
        words = next(q["keywords"] for q in parity["questions"].values() if q["query"] == query)
        return Keywords(tuple(words["low_level_keywords"]), tuple(words["high_level_keywords"]), "recorded")

    engine = graph.engine()
    out: dict[tuple[str, str], MethodTrace] = {}
    for mode, recipe_name in MODES.items():
        recipe = recipes.get(recipe_name)
        (name,) = recipe.methods
        saved = REGISTRY[name]
        assert isinstance(saved, KeywordGraph)
        REGISTRY[name] = KeywordGraph(name, entities=saved.entities, relations=saved.relations,
                                      passages=saved.passages, keywords=recorded)
        try:
            for qid, question in sorted(parity["questions"].items()):
                (out[qid, mode],) = engine.run(question["query"], recipe).trace.methods
        finally:
            REGISTRY[name] = saved
    return out


def selection(graph: Graph, method: MethodTrace) -> Selection:
    """What ``method`` selected, as LightRAG names it: entity names, relation ends, chunk ids."""
    names = {e.id: e.name for e in graph.graph_store.entities()}
    chunks = []
    for hit in method.hits:
        info = graph.graph_store.item_info(hit.key)
        assert info is not None and info.builder_id, hit.key
        chunks.append(info.builder_id)
    return Selection(
        [names[h.key] for h in method.legs["entities"]],
        [[names[end] for end in h.key.split("|")[:2]] for h in method.legs["relations"]],
        chunks,
    )


def peer_selection(parity: Mapping[str, Any], qid: str, mode: str) -> Selection:
    """What LightRAG's ``aquery_data`` selected for question ``qid`` in ``mode``."""
    peer = parity["questions"][qid]["modes"][mode]
    return Selection(list(peer["entities"]), [list(r) for r in peer["relationships"]], list(peer["chunks"]))


def swapped(ours: Sequence[Any], theirs: Sequence[Any]) -> set[Any]:
    """The items of two equally long lists that stand at different places (empty: the same order)."""
    return {a for a, b in zip(ours, theirs, strict=True) if a != b} | {b for a, b in zip(ours, theirs, strict=True) if a != b}
