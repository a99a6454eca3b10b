"""Recipes: named, validated, TOML-serialisable retrieval configurations.

A :class:`Recipe` says which methods a search runs and which optional steps
follow (graph walk, community reports, re-rank), how the lists are fused and
where the results are cut. It is plain data: frozen, comparable, hashable,
and it reads and writes TOML (``recipes/*.toml``).

The package is split by concern: :mod:`~agrag_lab.recipes.schema` (the
dataclasses and their checks), :mod:`~agrag_lab.recipes.toml_io` (TOML text
and files) and :mod:`~agrag_lab.recipes.builtins` (the built-ins, read from
``recipes/*.toml``, their only home; :func:`get`, :func:`peers`).

The six built-ins follow the spec's table:

==================  ==============  ========================================  =======
Recipe              Methods         Extra steps                               Results
==================  ==============  ========================================  =======
``ENTITY``          entity          none                                      10
``CHUNK``           chunk           none                                      10
``HYBRID``          entity, chunk   none                                      10
``HYBRID_RERANKED`` entity, chunk   community reports, cross-encoder re-rank  10
``GRAPH_EXPAND``    entity          graph walk, community reports             20
``THEMATIC``        community       none                                      5
==================  ==============  ========================================  =======

Method names are not checked here: the engine raises
:class:`~agrag_lab.errors.UnknownRecipeMethodError` when it meets one that is
not in its registry, as the spec requires.

Examples
--------
>>> from agrag_lab import recipes
>>> r = recipes.get("hybrid")
>>> r.methods, r.limit
(('entity', 'chunk'), 10)
>>> deeper = r.replace(**{"walk.enabled": True, "walk.depth": 2})
>>> deeper.bfs, deeper.walk.depth
(True, 2)
>>> recipes.Recipe.from_toml(deeper.to_toml()) == deeper
True
>>> recipes.Recipe(name="", methods=(), limit=0)
Traceback (most recent call last):
...
agrag_lab.errors.RecipeError: recipe is invalid (3 problem(s)):
  - name: must be a non-empty string (got ''); it names the recipe in traces and files
  - methods: must list at least one method, e.g. ['entity', 'chunk']
  - limit: must be an integer >= 1 (got 0); it is how many results the search returns
"""

from __future__ import annotations

from agrag_lab.recipes.builtins import (
    BUILTINS,
    CHUNK,
    ENTITY,
    GRAPH_EXPAND,
    GRAPH_HYBRID,
    HYBRID,
    HYBRID_RERANKED,
    PEERS_DIR,
    RECIPES,
    RECOMMENDED,
    THEMATIC,
    get,
    names,
    peers,
)
from agrag_lab.recipes.schema import (
    DEFAULT_CROSS_ENCODER,
    DIRECTIONS,
    PAGERANK_METHODS,
    PRIORS,
    RERANK_KINDS,
    RERANK_POOLS,
    RERANK_PRECISIONS,
    STRATEGIES,
    UNNAMED,
    WEIGHT_STEPS,
    CommunityExpansion,
    FusionSettings,
    GraphWalk,
    Recipe,
    Rerank,
)

__all__ = [
    "BUILTINS",
    "CHUNK",
    "DEFAULT_CROSS_ENCODER",
    "DIRECTIONS",
    "ENTITY",
    "GRAPH_EXPAND",
    "GRAPH_HYBRID",
    "HYBRID",
    "HYBRID_RERANKED",
    "PAGERANK_METHODS",
    "PEERS_DIR",
    "PRIORS",
    "RECIPES",
    "RECOMMENDED",
    "RERANK_KINDS",
    "RERANK_POOLS",
    "RERANK_PRECISIONS",
    "STRATEGIES",
    "THEMATIC",
    "UNNAMED",
    "WEIGHT_STEPS",
    "CommunityExpansion",
    "FusionSettings",
    "GraphWalk",
    "Recipe",
    "Rerank",
    "get",
    "names",
    "peers",
]
