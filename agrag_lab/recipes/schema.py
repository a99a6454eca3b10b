"""The recipe schema: the frozen, validated dataclasses a recipe is made of.

:class:`Recipe` and its sections (:class:`GraphWalk`, :class:`CommunityExpansion`,
:class:`Rerank`, :class:`FusionSettings`), the choices each field takes, and
the checks that say what is wrong with a recipe and how to fix it. Moving a
recipe to and from TOML is :mod:`agrag_lab.recipes.toml_io`; the built-ins are
read from ``recipes/*.toml`` by :mod:`agrag_lab.recipes.builtins`.
"""


from __future__ import annotations

import abc
import dataclasses
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal

from agrag_lab.errors import RecipeError
from agrag_lab.limits import (
    MAX_CANDIDATES,
    MAX_RESULTS,
    MAX_WALK_DEPTH,
    MAX_WALK_VISITS,
    out_of_range,
    restart_problem,
)
from agrag_lab.recipes import toml_io
from agrag_lab.rrf_conventions import CONVENTIONS
from agrag_lab.walk_methods import METHODS as PAGERANK_METHODS

__all__ = [
    "DEFAULT_CROSS_ENCODER",
    "DIRECTIONS",
    "PAGERANK_METHODS",
    "PRIORS",
    "RERANK_KINDS",
    "RERANK_POOLS",
    "RERANK_PRECISIONS",
    "STRATEGIES",
    "UNNAMED",
    "WEIGHT_STEPS",
    "CommunityExpansion",
    "FusionSettings",
    "GraphWalk",
    "Recipe",
    "Rerank",
]

#: Directions a graph walk may follow relations in.
DIRECTIONS: tuple[str, ...] = ("out", "in", "both")
#: Graph-walk strategies: breadth-first search or personalised PageRank.
STRATEGIES: tuple[str, ...] = ("bfs", "ppr")
#: Passage priors of the PageRank walk: dense chunk hits, or dense + keyword (the chunk method).
PRIORS: tuple[str, ...] = ("dense", "hybrid")
#: What a PageRank walk does when the query names none of the entity hits.
UNNAMED: tuple[str, ...] = ("fallback", "prior", "skip")
#: Re-rank kinds.
RERANK_KINDS: tuple[str, ...] = ("none", "cross_encoder", "graph_distance")
#: What a cross-encoder re-rank scores: each method's first 2 x limit (with the walk's and the reports), or the
#: methods' fused first 2 x limit (with the walk's and the reports).
RERANK_POOLS: tuple[str, ...] = ("neighbourhood", "fused")
#: The precision a cross-encoder runs in (``"int8"``: an int8 copy of its ONNX graph).
RERANK_PRECISIONS: tuple[str, ...] = ("fp32", "int8")
#: Fusion sources that are steps, not methods; they may carry a weight too.
WEIGHT_STEPS: tuple[str, ...] = ("walk", "communities")
#: Default cross-encoder model for ``Rerank(kind="cross_encoder")``.
DEFAULT_CROSS_ENCODER = "cross-encoder/ms-marco-MiniLM-L-6-v2"

_Problems = dict[str, str]


# Checks shared by every section -----------------------------------------------------


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _check_int(
    problems: _Problems, key: str, value: object, minimum: int, hint: str, maximum: int | None = None
) -> None:
    problem = out_of_range(value, minimum, maximum)
    if problem is not None:
        problems[key] = f"{problem}; {hint}"


def _check_bool(problems: _Problems, key: str, value: object, hint: str) -> None:
    if not isinstance(value, bool):
        problems[key] = f"must be true or false (got {value!r}); {hint}"


def _check_choice(
    problems: _Problems, key: str, value: object, choices: tuple[str, ...], hint: str
) -> None:
    if value not in choices:
        known = ", ".join(repr(c) for c in choices)
        problems[key] = f"must be one of {known} (got {value!r}); {hint}"


def _as_tuple(value: object) -> object:
    """Lists (e.g. from TOML or JSON) become tuples; anything else is left as is."""
    return tuple(value) if isinstance(value, list) else value


class _Section(abc.ABC):
    """Mixin for the nested recipe sections: validate on construction."""

    @abc.abstractmethod
    def _problems(self) -> _Problems:
        """Every problem of this section, keyed by field."""

    def _validate(self) -> None:
        problems = self._problems()
        if problems:
            raise RecipeError(problems, name=type(self).__name__)


# The sections ---------------------------------------------------------------------


@dataclass(frozen=True)
class GraphWalk(_Section):
    """The optional graph walk: follow relations outward from the entity hits.

    Parameters
    ----------
    enabled : bool, default False
        Run the walk (the spec's ``recipe.bfs``).
    depth : int, default 1
        Maximum hops, >= 1; 1 visits direct neighbours.
    limit : int, default 10
        Maximum neighbours the walk adds, >= 1.
    relation_types : tuple[str, ...], default ()
        Only follow these relation types; empty follows all.
    direction : {"out", "in", "both"}, default "both"
        Which way a hop follows a relation, relative to the entity.
    strategy : {"bfs", "ppr"}, default "bfs"
        ``"bfs"`` proposes the neighbour entities of the entity hits, nearest
        first. ``"ppr"`` runs a personalised PageRank over entities and
        passages (HippoRAG-style, :mod:`agrag_lab.kg.algorithms.pagerank`) from the
        entity hits the query names, plus a dense passage prior, and proposes
        the passages where the walk's probability lands; ``depth`` does not
        bound it.
    restart : float, default 0.3
        ``"ppr"`` only: the probability, in [0.01, 1]
        (:data:`~agrag_lab.limits.MIN_WALK_RESTART`), that the walk jumps back
        to a seed at each step; lower reaches further, and costs ``1 / restart``.
    prior_weight : float, default 0.3
        ``"ppr"`` only: weight, >= 0, of the dense passage prior against the
        seed entities (which weigh 1 together); 0 walks from the entities alone.
    prior : {"dense", "hybrid"}, default "dense"
        ``"ppr"`` only: where the passage prior comes from. ``"dense"``: the
        query's nearest chunks; ``"hybrid"``: the chunk method's RRF of its
        dense and keyword legs, so passages that share the query's rare words
        (names, terms) take part in the walk too.
    unnamed : {"fallback", "prior", "skip"}, default "fallback"
        ``"ppr"`` only: what the walk does when the query names none of the
        entity hits. ``"fallback"`` seeds it with the top three entity hits;
        ``"prior"`` walks from the passage prior alone; ``"skip"`` proposes
        nothing, so the search is the methods' fusion alone.
    pagerank : {"push", "power"}, default "push"
        ``"ppr"`` only: how the walk's probabilities are computed. ``"push"``:
        forward push (:func:`~agrag_lab.kg.algorithms.pagerank.push_pagerank`), whose
        work is bounded by the neighbourhood of the restart points, not by the
        graph; each score is the PageRank probability from below, short of it
        by at most 1e-6 per step of the passage. ``"power"``: the power
        iteration over the whole graph (the stationary distribution to within
        1e-9; its cost grows with the graph).

    Examples
    --------
    >>> GraphWalk(enabled=True, depth=2, relation_types=["WORKED_WITH"]).relation_types
    ('WORKED_WITH',)
    """

    enabled: bool = False
    depth: int = 1
    limit: int = 10
    relation_types: tuple[str, ...] = ()
    direction: Literal["out", "in", "both"] = "both"
    strategy: Literal["bfs", "ppr"] = "bfs"
    restart: float = 0.3
    prior_weight: float = 0.3
    prior: Literal["dense", "hybrid"] = "dense"
    unnamed: Literal["fallback", "prior", "skip"] = "fallback"
    pagerank: Literal["push", "power"] = "push"

    def __post_init__(self) -> None:
        object.__setattr__(self, "relation_types", _as_tuple(self.relation_types))
        for name, value in (("restart", self.restart), ("prior_weight", self.prior_weight)):
            if isinstance(value, int) and not isinstance(value, bool):
                object.__setattr__(self, name, float(value))
        self._validate()

    def _problems(self) -> _Problems:
        p: _Problems = {}
        _check_bool(p, "enabled", self.enabled, "true runs the graph walk after fusion")
        _check_int(p, "depth", self.depth, 1, "a depth of 1 visits direct neighbours", MAX_WALK_DEPTH)
        _check_int(p, "limit", self.limit, 1, "it is the most neighbours the walk adds", MAX_RESULTS)
        types = self.relation_types
        if not isinstance(types, tuple) or not all(
            isinstance(t, str) and t for t in types
        ):
            p["relation_types"] = (
                f"must be a list of non-empty relation type names (got {types!r}); "
                "an empty list follows every relation type"
            )
        elif len(set(types)) != len(types):
            p["relation_types"] = f"names a relation type twice (got {list(types)!r})"
        _check_choice(
            p,
            "direction",
            self.direction,
            DIRECTIONS,
            "'both' follows relations either way",
        )
        _check_choice(
            p,
            "strategy",
            self.strategy,
            STRATEGIES,
            "'bfs' walks hop by hop, 'ppr' ranks passages by personalised PageRank",
        )
        restart = restart_problem(self.restart)
        if restart is not None:
            p["restart"] = (
                f"{restart}; it is the chance the PageRank walk jumps back to a seed at each step "
                "(its work grows as 1/restart), 0.3 is a good start"
            )
        if not (_is_number(self.prior_weight) and 0.0 <= self.prior_weight < float("inf")):
            p["prior_weight"] = (
                f"must be a finite number >= 0 (got {self.prior_weight!r}); it weighs the dense passage "
                "prior of the PageRank walk, 0 walks from the entities alone"
            )
        _check_choice(
            p, "prior", self.prior, PRIORS, "'dense' seeds the walk with the nearest chunks, 'hybrid' with dense + keyword"
        )
        _check_choice(
            p, "unnamed", self.unnamed, UNNAMED,
            "'fallback' seeds the walk with the top entity hits, 'prior' walks from the passages, 'skip' does not walk",
        )
        _check_choice(
            p, "pagerank", self.pagerank, PAGERANK_METHODS,
            "'push' is local (its cost does not grow with the graph), 'power' iterates over the whole graph",
        )
        return p


@dataclass(frozen=True)
class CommunityExpansion(_Section):
    """The optional community step: add reports of communities overlapping the entities.

    Parameters
    ----------
    enabled : bool, default False
        Add community reports.
    top_k : int, default 3
        Maximum reports to add, >= 1.

    Examples
    --------
    >>> CommunityExpansion(enabled=True).top_k
    3
    """

    enabled: bool = False
    top_k: int = 3

    def __post_init__(self) -> None:
        self._validate()

    def _problems(self) -> _Problems:
        p: _Problems = {}
        _check_bool(p, "enabled", self.enabled, "true adds community reports")
        _check_int(p, "top_k", self.top_k, 1, "it is the most community reports added", MAX_RESULTS)
        return p


@dataclass(frozen=True)
class Rerank(_Section):
    """The optional re-rank step.

    Parameters
    ----------
    kind : {"none", "cross_encoder", "graph_distance"}, default "none"
        ``"cross_encoder"`` scores (query, text) pairs with ``model``;
        ``"graph_distance"`` orders by hops to the top entity hits (offline).
    model : str or None, default None
        The cross-encoder (a sentence-transformers name or path); required
        for ``"cross_encoder"``, ignored otherwise.
    community_slots : int, default 3
        Places kept for community reports after a cross-encoder re-rank, >= 0.
    pool : {"fused", "neighbourhood"}, default "fused"
        What the cross-encoder scores
        (:func:`~agrag_lab.retrieval.steps.rerank.scoring_pool`): the first
        ``2 x limit`` of the methods' fusion (``"fused"``), or each method's
        first ``2 x limit`` hits (``"neighbourhood"``);
        the walk's first ``2 x limit`` additions and the community reports
        either way.
    precision : {"fp32", "int8"}, default "fp32"
        ``"int8"`` runs an int8 copy of the cross-encoder's ONNX graph (faster
        on CPU, scores within a small bound of fp32's); needs a local model folder.

    Examples
    --------
    >>> Rerank("cross_encoder")
    Traceback (most recent call last):
    ...
    agrag_lab.errors.RecipeError: Rerank is invalid (1 problem(s)):
      - model: a cross_encoder re-rank needs a model name or path (got None), e.g. 'cross-encoder/ms-marco-MiniLM-L-6-v2'
    """

    kind: Literal["none", "cross_encoder", "graph_distance"] = "none"
    model: str | None = None
    community_slots: int = 3
    pool: Literal["neighbourhood", "fused"] = "fused"
    precision: Literal["fp32", "int8"] = "fp32"

    def __post_init__(self) -> None:
        self._validate()

    def _problems(self) -> _Problems:
        p: _Problems = {}
        _check_choice(
            p,
            "kind",
            self.kind,
            RERANK_KINDS,
            "'graph_distance' re-ranks offline, 'cross_encoder' needs a model",
        )
        if self.model is not None and (
            not isinstance(self.model, str) or not self.model
        ):
            p["model"] = (
                f"must be a model name or path, or left out (got {self.model!r})"
            )
        elif self.kind == "cross_encoder" and self.model is None:
            p["model"] = (
                f"a cross_encoder re-rank needs a model name or path (got None), "
                f"e.g. {DEFAULT_CROSS_ENCODER!r}"
            )
        _check_int(
            p,
            "community_slots",
            self.community_slots,
            0,
            "it is how many community reports a cross-encoder re-rank keeps",
            MAX_RESULTS,
        )
        _check_choice(p, "pool", self.pool, RERANK_POOLS, "it is what the cross-encoder scores")
        _check_choice(
            p, "precision", self.precision, RERANK_PRECISIONS, "'int8' runs an int8 copy of the model's ONNX graph"
        )
        return p


def _empty_weights() -> Mapping[str, float]:
    return MappingProxyType({})


@dataclass(frozen=True)
class FusionSettings(_Section):
    """How the ranked lists are fused (see :mod:`agrag_lab.retrieval.fusion`).

    Parameters
    ----------
    k : float or None, default None
        The RRF constant, > 0; ``None`` uses ``RetrievalSettings.rrf_k``
        (``RETRIEVAL_RRF_K``, default 60).
    weights : Mapping[str, float], default {}
        Weight per source (a method, ``"walk"`` or ``"communities"``), finite
        and >= 0; a missing source weighs 1.0. Stored read-only.
    convention : str, default "paper"
        A key of :data:`agrag_lab.rrf_conventions.CONVENTIONS`.

    Examples
    --------
    >>> FusionSettings(weights={"chunk": 2}).weights["chunk"]
    2.0
    >>> FusionSettings(k=0, convention="elastic")
    Traceback (most recent call last):
    ...
    agrag_lab.errors.RecipeError: FusionSettings is invalid (2 problem(s)):
      - k: must be a finite number > 0 (got 0), or left out to use RETRIEVAL_RRF_K (default 60)
      - convention: must be one of 'paper', 'ranx', 'llamaindex', 'haystack', 'pyterrier' (got 'elastic'); 'paper' is Cormack et al. 2009
    """

    k: float | None = None
    weights: Mapping[str, float] = field(default_factory=_empty_weights, hash=False)
    convention: str = "paper"

    def __post_init__(self) -> None:
        self._validate()
        if self.k is not None:
            object.__setattr__(self, "k", float(self.k))
        weights = {key: float(value) for key, value in self.weights.items()}
        object.__setattr__(self, "weights", MappingProxyType(weights))

    def __hash__(self) -> int:
        return hash((self.k, self.convention, frozenset(self.weights.items())))

    def _problems(self) -> _Problems:
        p: _Problems = {}
        if self.k is not None and (
            not _is_number(self.k) or not math.isfinite(self.k) or self.k <= 0
        ):
            p["k"] = (
                f"must be a finite number > 0 (got {self.k!r}), or left out to use "
                "RETRIEVAL_RRF_K (default 60)"
            )
        if not isinstance(self.weights, Mapping):
            p["weights"] = f"must be a table of source = weight (got {self.weights!r})"
        else:
            for key, value in self.weights.items():
                if not isinstance(key, str) or not key:
                    p["weights"] = f"keys must be source names (got {key!r})"
                elif not _is_number(value) or not math.isfinite(value) or value < 0:
                    p[f"weights.{key}"] = (
                        f"must be a finite number >= 0 (got {value!r}); 1.0 is neutral, "
                        "0 silences the source"
                    )
        _check_choice(
            p,
            "convention",
            self.convention,
            tuple(CONVENTIONS),
            "'paper' is Cormack et al. 2009",
        )
        return p


# The recipe -----------------------------------------------------------------------

_SECTIONS: dict[str, type[GraphWalk | CommunityExpansion | Rerank | FusionSettings]] = {
    "walk": GraphWalk,
    "communities": CommunityExpansion,
    "rerank": Rerank,
    "fusion": FusionSettings,
}


def _build_section(attr: str, value: object) -> tuple[object, _Problems]:
    """Turn a table into its section object, collecting problems keyed ``attr.field``."""
    cls = _SECTIONS[attr]
    if isinstance(value, cls):
        return value, {}
    if not isinstance(value, Mapping):
        return cls(), {attr: f"must be a {cls.__name__} or a table (got {value!r})"}
    known = {f.name for f in dataclasses.fields(cls)}
    problems = {
        f"{attr}.{key}": f"unknown field; known fields are {', '.join(sorted(known))}"
        for key in value
        if key not in known
    }
    try:
        built: object = cls(**{key: v for key, v in value.items() if key in known})
    except RecipeError as error:
        problems.update({f"{attr}.{key}": hint for key, hint in error.problems.items()})
        return cls(), problems
    return built, problems


@dataclass(frozen=True)
class Recipe:
    """A named retrieval configuration.

    Parameters
    ----------
    name : str
        Non-empty; names the recipe in traces and files.
    methods : tuple[str, ...]
        At least one method (``"entity"``, ``"chunk"``, ``"community"``, ...),
        no duplicates. Unknown names fail at search time, not here.
    limit : int, default 10
        How many results the search returns, >= 1.
    candidates : int, default 50
        How many hits each method returns before fusion, >= 1 (it may be
        smaller than ``limit``).
    walk : GraphWalk
        The optional graph walk; ``walk.enabled`` is the spec's ``bfs``.
    communities : CommunityExpansion
        The optional community-report step.
    rerank : Rerank
        The optional re-rank step.
    fusion : FusionSettings
        RRF constant, weights and convention.
    description : str
        Free text for people.

    Lists become tuples and sections may be given as tables (mappings), so
    ``Recipe(**tomllib.loads(text))`` works. Every problem is reported at once.

    Raises
    ------
    RecipeError
        The recipe is invalid; ``problems`` maps each field (dotted, e.g.
        ``"walk.depth"``) to a hint saying how to fix it.

    Examples
    --------
    >>> r = Recipe("MINE", ["chunk"], walk={"enabled": True})
    >>> r.methods, r.bfs
    (('chunk',), True)
    >>> Recipe("BAD", ["entity", "entity"], walk={"depth": 0}, rerank={"kind": "cross_encoder"})
    Traceback (most recent call last):
    ...
    agrag_lab.errors.RecipeError: BAD is invalid (3 problem(s)):
      - methods: lists 'entity' more than once; each method votes once, so list it once
      - walk.depth: must be an integer >= 1 (got 0); a depth of 1 visits direct neighbours
      - rerank.model: a cross_encoder re-rank needs a model name or path (got None), e.g. 'cross-encoder/ms-marco-MiniLM-L-6-v2'
    """

    name: str
    methods: tuple[str, ...]
    limit: int = 10
    candidates: int = 50
    walk: GraphWalk = field(default_factory=GraphWalk)
    communities: CommunityExpansion = field(default_factory=CommunityExpansion)
    rerank: Rerank = field(default_factory=Rerank)
    fusion: FusionSettings = field(default_factory=FusionSettings)
    description: str = ""

    def __post_init__(self) -> None:
        problems: _Problems = {}
        object.__setattr__(self, "methods", _as_tuple(self.methods))
        name, methods = self.name, self.methods
        if not isinstance(name, str) or not name.strip():
            problems["name"] = (
                f"must be a non-empty string (got {name!r}); it names the recipe in "
                "traces and files"
            )
        if not isinstance(methods, tuple) or not methods:
            problems["methods"] = (
                "must list at least one method, e.g. ['entity', 'chunk']"
            )
        elif not all(isinstance(m, str) and m for m in methods):
            problems["methods"] = (
                f"must be method names, i.e. non-empty strings (got {list(methods)!r})"
            )
        else:
            twice = sorted({m for m in methods if methods.count(m) > 1})
            if twice:
                names = ", ".join(repr(m) for m in twice)
                problems["methods"] = (
                    f"lists {names} more than once; each method votes once, so list it once"
                )
        _check_int(
            problems, "limit", self.limit, 1, "it is how many results the search returns", MAX_RESULTS
        )
        _check_int(
            problems, "candidates", self.candidates, 1,
            "it is how many hits each method returns before fusion", MAX_CANDIDATES,
        )
        for attr in _SECTIONS:
            section, section_problems = _build_section(attr, getattr(self, attr))
            object.__setattr__(self, attr, section)
            problems.update(section_problems)
        walk = self.walk
        if (
            walk.enabled
            and "candidates" not in problems
            and self.candidates * walk.limit > MAX_WALK_VISITS
        ):
            problems["walk.limit"] = (
                f"candidates x walk.limit must be at most {MAX_WALK_VISITS} (got {self.candidates} x "
                f"{walk.limit}); every entity hit seeds the walk, lower candidates or walk.limit"
            )
        if isinstance(methods, tuple) and all(isinstance(m, str) for m in methods):
            allowed = (*methods, *WEIGHT_STEPS)
            for key in self.fusion.weights:
                if key not in allowed:
                    known = ", ".join(repr(a) for a in allowed)
                    problems[f"fusion.weights.{key}"] = (
                        f"{key!r} is not a source of this recipe; weight one of {known}"
                    )
        if not isinstance(self.description, str):
            problems["description"] = f"must be a string (got {self.description!r})"
        if problems:
            label = name if isinstance(name, str) and name.strip() else "recipe"
            raise RecipeError(problems, name=label)

    # -- conveniences ---------------------------------------------------------------

    @property
    def bfs(self) -> bool:
        """Whether the graph walk runs (the spec's name for ``walk.enabled``)."""
        return self.walk.enabled

    def replace(self, **changes: Any) -> Recipe:
        """Return a copy with ``changes`` applied; keys may be dotted (``"walk.depth"``).

        Examples
        --------
        >>> r = Recipe("X", ("entity",))
        >>> r.replace(limit=5, **{"rerank.kind": "graph_distance"}).rerank.kind
        'graph_distance'
        >>> r.replace(**{"walk.depht": 2})
        Traceback (most recent call last):
        ...
        agrag_lab.errors.RecipeError: X is invalid (1 problem(s)):
          - walk.depht: unknown field; known fields are depth, direction, enabled, limit, pagerank, prior, prior_weight, relation_types, restart, strategy, unnamed
        """
        top: dict[str, Any] = {}
        nested: dict[str, dict[str, Any]] = {}
        problems: _Problems = {}
        fields = {f.name for f in dataclasses.fields(self)}
        for key, value in changes.items():
            head, dot, rest = key.partition(".")
            if head not in fields:
                problems[key] = (
                    f"unknown field; known fields are {', '.join(sorted(fields))}"
                )
            elif dot and head not in _SECTIONS:
                problems[key] = f"{head!r} has no sub-fields; set it directly"
            elif dot:
                nested.setdefault(head, {})[rest] = value
            else:
                top[key] = value
        for head, sub in nested.items():
            base = top.get(head, getattr(self, head))
            table = _section_to_dict(base) if isinstance(base, _Section) else dict(base)
            table.update(sub)
            top[head] = table
        if problems:
            raise RecipeError(problems, name=self.name)
        return dataclasses.replace(self, **top)

    # -- dict and TOML --------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """Return plain, JSON-serialisable data (tuples become lists; ``None`` is kept).

        Examples
        --------
        >>> Recipe("X", ("chunk",)).to_dict()["walk"]["relation_types"]
        []
        """
        return {
            "name": self.name,
            "description": self.description,
            "methods": list(self.methods),
            "limit": self.limit,
            "candidates": self.candidates,
            **{attr: _section_to_dict(getattr(self, attr)) for attr in _SECTIONS},
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Recipe:
        """Build a recipe from :meth:`to_dict` data (missing fields take defaults).

        Raises
        ------
        RecipeError
            Unknown fields, missing ``name``/``methods``, or invalid values (all at once).

        Examples
        --------
        >>> Recipe.from_dict({"name": "X", "methods": ["chunk"], "limit": 3}).limit
        3
        """
        if not isinstance(data, Mapping):
            raise RecipeError(
                {"recipe": f"must be a table (got {type(data).__name__})"}
            )
        known = [f.name for f in dataclasses.fields(cls)]
        problems = {
            str(key): f"unknown field; known fields are {', '.join(known)}"
            for key in data
            if key not in known
        }
        for required in ("name", "methods"):
            if required not in data:
                problems[required] = "is required"
        values = {key: value for key, value in data.items() if key in known}
        label = data.get("name") if isinstance(data.get("name"), str) else None
        try:
            recipe = cls(**{"name": "", "methods": (), **values})
        except RecipeError as error:
            merged = {**error.problems, **problems}
            raise RecipeError(merged, name=label or "recipe") from None
        if problems:
            raise RecipeError(problems, name=label or "recipe")
        return recipe

    def to_toml(self) -> str:
        """Return the recipe as TOML; ``None`` values are left out (TOML has no null).

        Examples
        --------
        >>> print(Recipe("X", ("chunk",), limit=3).to_toml().splitlines()[1:5])
        ['name = "X"', 'description = ""', 'methods = [', '    "chunk",']
        """
        data = self.to_dict()
        for attr in _SECTIONS:
            data[attr] = {
                key: value for key, value in data[attr].items() if value is not None
            }
        return toml_io.dumps(data)

    @classmethod
    def from_toml(cls, text: str) -> Recipe:
        """Parse a recipe from TOML text.

        Raises
        ------
        RecipeError
            The text is not valid TOML, is larger than
            :data:`~agrag_lab.limits.MAX_RECIPE_BYTES`, nests tables or arrays
            deeper than :data:`~agrag_lab.limits.MAX_RECIPE_NESTING`, or the
            recipe it describes is invalid.

        Examples
        --------
        >>> Recipe.from_toml('name = "X"\\nmethods = ["chunk"]\\n[walk]\\nenabled = true').bfs
        True
        >>> Recipe.from_toml("a = " + "[" * 5000 + "]" * 5000)
        Traceback (most recent call last):
        ...
        agrag_lab.errors.RecipeError: recipe is invalid (1 problem(s)):
          - toml: nests tables or arrays deeper than 10 levels; a recipe needs 2 (e.g. [fusion.weights])
        """
        return cls.from_dict(toml_io.loads(text))

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the recipe as TOML to ``path`` (parents are created) and return the path."""
        return toml_io.write(path, self.to_toml())

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Recipe:
        """Read a recipe from a TOML file.

        Raises
        ------
        RecipeError
            The file is missing or unreadable, not TOML, or describes an invalid recipe.
        """
        target = Path(path)
        text = toml_io.read(target)
        try:
            return cls.from_toml(text)
        except RecipeError as error:
            raise RecipeError(
                error.problems, name=f"recipe file {str(target)!r}"
            ) from None


def _section_to_dict(section: Any) -> dict[str, Any]:
    data = {f.name: getattr(section, f.name) for f in dataclasses.fields(section)}
    for key, value in data.items():
        if isinstance(value, tuple):
            data[key] = list(value)
        elif isinstance(value, Mapping):
            data[key] = dict(value)
    return data
