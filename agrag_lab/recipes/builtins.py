"""The built-in recipes, read from ``recipes/*.toml`` (their only home), and finding a recipe by name.

The six built-ins follow the spec's table; ``GRAPH_HYBRID`` is the one the
README recommends for multi-hop work. Each is written once, as a TOML file
in the checkout's ``recipes/`` folder (shipped inside the package by a wheel
build: :data:`RECIPES_DIR`), and read here when the package is
imported (a file that is missing or invalid fails the import with a
:class:`~agrag_lab.errors.RecipeError` that names it).

``GRAPH_EXPAND``'s walk weighs double, so its ten passages lead and the
entities and reports follow: the passages carry the multi-hop evidence
(MuSiQue-100 Recall@5 .734 against .571 at weight 1; see BENCHMARKS.md).

Examples
--------
>>> GRAPH_EXPAND.fusion.weights["walk"]
2.0
>>> sorted(BUILTINS) == sorted(p.stem.upper() for p in RECIPES_DIR.glob("*.toml") if p.stem != "graph_hybrid")
True
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from functools import lru_cache
from importlib import resources
from pathlib import Path
from types import MappingProxyType

from agrag_lab.errors import RecipeError
from agrag_lab.recipes.schema import Recipe

__all__ = [
    "BUILTINS",
    "CHUNK",
    "ENTITY",
    "GRAPH_EXPAND",
    "GRAPH_HYBRID",
    "HYBRID",
    "HYBRID_RERANKED",
    "PEERS_DIR",
    "RECIPES",
    "RECIPES_DIR",
    "RECOMMENDED",
    "THEMATIC",
    "get",
    "peers",
]



def _recipes_dir() -> Path:
    """The ``recipes/`` folder: shipped in the package (``files/``, a wheel's), else the checkout's (editable)."""
    shipped = resources.files(__package__) / "files"
    if isinstance(shipped, Path) and shipped.is_dir():
        return shipped
    checkout = Path(__file__).resolve().parents[2] / "recipes"
    if checkout.is_dir():
        return checkout
    raise RecipeError(
        {"recipes": f"neither {shipped} (an installed package's) nor {checkout} (a checkout's) is a folder; "
         "reinstall agrag_lab, or run from a checkout with its recipes/ folder"},
        "the built-in recipes' folder",
    )


#: The ``recipes/`` folder: one TOML file per built-in (and the recommended one), the examples and the peer
#: recipes. In a checkout, its ``recipes/``; in a wheel or a non-editable install, the copy the build put in
#: the package (``agrag_lab/recipes/files/``, found with :mod:`importlib.resources`).
RECIPES_DIR = _recipes_dir()


def _builtin(name: str) -> Recipe:
    """The built-in recipe of ``recipes/<name>.toml``."""
    return Recipe.load(RECIPES_DIR / f"{name.lower()}.toml")


#: Entities whose embedding is closest to the query.
ENTITY = _builtin("ENTITY")
#: Passages of source text, each with the headings above it.
CHUNK = _builtin("CHUNK")
#: Entities and passages, fused by RRF.
HYBRID = _builtin("HYBRID")
#: Entities and passages fused by RRF, plus community reports, re-ranked by a cross-encoder.
HYBRID_RERANKED = _builtin("HYBRID_RERANKED")
#: A personalised-PageRank walk from the entity hits the query names, its passages first (double weight).
GRAPH_EXPAND = _builtin("GRAPH_EXPAND")
#: Community reports: the main themes of the corpus.
THEMATIC = _builtin("THEMATIC")

#: The spec's built-in recipes, by name. Read-only.
BUILTINS: Mapping[str, Recipe] = MappingProxyType(
    {
        r.name: r
        for r in (ENTITY, CHUNK, HYBRID, HYBRID_RERANKED, GRAPH_EXPAND, THEMATIC)
    }
)

#: The recommended recipe for multi-hop work (issue 16). A personalised-PageRank walk
#: from the entities the query names, which also restarts at the query's nearest
#: passages (its prior), is fused by RRF with the passages' own dense ranks (weight 1)
#: and keyword ranks (weight 0.75); the walk weighs 2, and the small RRF constant
#: (k = 5) lets the top ranks of each list count. When the query names no entity the
#: graph knows, there is no walk (``walk.unnamed = "skip"``): the ranking is plain
#: dense + keyword. Entity search runs only to find the seeds (weight 0). It keeps 30
#: passages, so that ten documents come out where several passages of one document
#: rank high (the baselines read 100). Chosen on MuSiQue-100, the workshop questions
#: and SciFact, confirmed on GraphRAG-Bench Medical, which the choice did not see: see
#: BENCHMARKS.md, "Retrieval on four kinds of question".
GRAPH_HYBRID = _builtin("GRAPH_HYBRID")
#: The recipe the README recommends for multi-hop questions.
RECOMMENDED = GRAPH_HYBRID
#: Every recipe :func:`get` knows by name: the built-ins and the recommended one.
RECIPES: Mapping[str, Recipe] = MappingProxyType({**BUILTINS, RECOMMENDED.name: RECOMMENDED})


#: Where the peer recipes live (GraphRAG, LightRAG, HippoRAG 2 retrieval as recipes; docs/peers/).
PEERS_DIR = RECIPES_DIR / "peers"


def peers() -> dict[str, Recipe]:
    """The peer recipes of ``recipes/peers/*.toml``, by name (empty where the folder is absent).

    Examples
    --------
    >>> sorted(peers())[:2]
    ['GRAPHRAG_BASIC', 'GRAPHRAG_GLOBAL']
    """
    if not PEERS_DIR.is_dir():
        return {}
    found = (Recipe.load(p) for p in sorted(PEERS_DIR.glob("*.toml")))
    return {r.name: r for r in found}


@lru_cache(maxsize=1)
def names() -> tuple[str, ...]:
    """Every recipe :func:`get` knows by name: the built-ins, the recommended one, then the peer recipes.

    This is the one list of names a front end offers (the CLI's ``--recipe``, the ``search`` tool).

    Examples
    --------
    >>> names()[:3], "LIGHTRAG_MIX" in names()
    (('ENTITY', 'CHUNK', 'HYBRID'), True)
    """
    return (*RECIPES, *(name for name in peers() if name not in RECIPES))


def get(name: str | os.PathLike[str]) -> Recipe:
    """Return a built-in recipe by name (any case), or load one from a ``.toml`` path.

    Raises
    ------
    RecipeError
        ``name`` is neither a built-in nor a readable ``.toml`` file describing a
        valid recipe; the message lists the built-ins.

    Examples
    --------
    >>> get("graph_expand").walk.depth
    2
    >>> get("fast")
    Traceback (most recent call last):
    ...
    agrag_lab.errors.RecipeError: recipe 'fast' is invalid (1 problem(s)):
      - name: unknown recipe 'fast'; use one of ENTITY, CHUNK, HYBRID, HYBRID_RERANKED, GRAPH_EXPAND, THEMATIC, GRAPH_HYBRID, a peer recipe, or a path to a .toml file
    """
    if isinstance(name, str) and name.upper() in RECIPES:
        return RECIPES[name.upper()]
    if isinstance(name, str) and not name.lower().endswith(".toml") and name.upper() in (known_peers := peers()):
        return known_peers[name.upper()]
    path = Path(name)
    if path.suffix.lower() == ".toml" or path.is_file():
        return Recipe.load(path)
    known = ", ".join(RECIPES)
    problem = f"unknown recipe {str(name)!r}; use one of {known}, a peer recipe, or a path to a .toml file"
    if path.is_dir():
        inside = sorted(p.name for p in path.glob("*.toml"))[:5]
        problem = f"{str(name)!r} is a folder; pass one .toml file in it" + (
            f" (it holds {', '.join(inside)})" if inside else " (it holds none)")
    raise RecipeError({"name": problem}, name=f"recipe {str(name)!r}")
