"""The recipe editor's model: every field of a recipe as raw values, validated as you type (pure Python).

:class:`RecipeEditorModel` holds the raw value of every field (valid or
not), the problems :class:`~agrag_lab.recipes.Recipe` reports for them
(keyed by dotted field, e.g. ``"walk.depth"``), and the last valid recipe.
:data:`FIELDS` and :data:`SECTIONS` say which fields there are and how they
are grouped; :func:`applicable` which of them apply to a recipe's steps.
:class:`~agrag_lab.widgets.recipe_editor.RecipeEditor` shows one control per
field; this module imports no widget library.

Examples
--------
>>> from agrag_lab import recipes
>>> m = RecipeEditorModel(recipes.HYBRID)
>>> m.set("walk.depth", 0)
{'walk.depth': 'must be an integer >= 1 (got 0); a depth of 1 visits direct neighbours'}
>>> m.recipe == recipes.HYBRID          # the last valid recipe is kept
True
>>> m.set("walk.depth", 2)
{}
>>> m.recipe.walk.depth
2
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from agrag_lab.errors import NotFoundError, RecipeError
from agrag_lab.recipes import (
    DIRECTIONS,
    PAGERANK_METHODS,
    PRIORS,
    RERANK_KINDS,
    RERANK_POOLS,
    RERANK_PRECISIONS,
    STRATEGIES,
    UNNAMED,
    WEIGHT_STEPS,
    Recipe,
)
from agrag_lab.retrieval.fusion import CONVENTIONS
from agrag_lab.retrieval.methods import REGISTRY

__all__ = [
    "EDITED_SUFFIX", "FIELDS", "SECTIONS", "FieldKind", "FieldSpec", "RecipeEditorModel", "applicable", "field_of",
    "flatten", "nest", "parse_k", "parse_tags",
]

FieldKind = Literal["text", "int", "float", "k", "bool", "choice", "methods", "tags", "weights", "optional_text"]


@dataclass(frozen=True)
class FieldSpec:
    """One editable field: its dotted key, label, kind of control, choices and help."""

    key: str
    label: str
    kind: FieldKind
    choices: tuple[str, ...] = ()
    help: str = ""


#: Every field of a recipe, in the order the editor shows them.
FIELDS: tuple[FieldSpec, ...] = (
    FieldSpec("name", "name", "text", help="names the recipe in traces, charts and files"),
    FieldSpec("description", "description", "text", help="one line on what the recipe is for"),
    FieldSpec("methods", "methods", "methods", tuple(REGISTRY),
              "searches run side by side; each votes once in the fusion (ctrl/cmd-click for several)"),
    FieldSpec("candidates", "candidates", "int", help="hits each method returns before fusion"),
    FieldSpec("limit", "limit", "int", help="results returned: the cut falls after this many"),
    FieldSpec("fusion.k", "RRF k", "k", help="score = w / (k + rank); empty: RETRIEVAL_RRF_K (default 60)"),
    FieldSpec("fusion.weights", "weights", "weights", help="per source; 1.0 is neutral, 0 silences a source"),
    FieldSpec("fusion.convention", "convention", "choice", tuple(CONVENTIONS),
              "whose RRF formula: the paper's (ranks from 1) or a library's exact variant"),
    FieldSpec("walk.enabled", "graph walk", "bool", help="walk the graph from the entity hits, fused in a second time"),
    FieldSpec("walk.strategy", "walk strategy", "choice", STRATEGIES,
              "bfs: neighbours of the entity hits, nearest first; ppr: personalised PageRank onto passages"),
    FieldSpec("walk.depth", "walk depth", "int", help="bfs: hops from a seed; 1 visits direct neighbours"),
    FieldSpec("walk.limit", "walk limit", "int", help="items the walk adds at most"),
    FieldSpec("walk.relation_types", "relation types", "tags", help="comma-separated; empty follows every type"),
    FieldSpec("walk.direction", "walk direction", "choice", DIRECTIONS,
              "which way a hop follows a relation: out, in or both"),
    FieldSpec("walk.restart", "PageRank restart", "float", help="ppr: chance of jumping back to a seed per step"),
    FieldSpec("walk.prior_weight", "dense prior weight", "float",
              help="ppr: weight of the top dense passages against the seed entities; 0 walks from entities alone"),
    FieldSpec("walk.prior", "prior source", "choice", PRIORS,
              "ppr: the passage prior from the dense leg, or dense + keyword fused (hybrid)"),
    FieldSpec("walk.unnamed", "no named entity", "choice", UNNAMED,
              "ppr, a question that names no entity: fallback seeds from entity hits, prior walks from passages, "
              "skip does not walk"),
    FieldSpec("walk.pagerank", "PageRank method", "choice", PAGERANK_METHODS,
              "ppr: push is local (to within 1e-6 per step of a passage, its cost does not grow with the graph); "
              "power iterates over the whole graph"),
    FieldSpec("communities.enabled", "community reports", "bool", help="add reports of communities the hits fall in"),
    FieldSpec("communities.top_k", "reports added", "int", help="reports added at most"),
    FieldSpec("rerank.kind", "re-rank", "choice", RERANK_KINDS,
              "none; cross_encoder: score (query, text) pairs; graph_distance: near the top entity hits first"),
    FieldSpec("rerank.model", "re-rank model", "optional_text", help="cross-encoder name or local path"),
    FieldSpec("rerank.community_slots", "report slots", "int", help="reports a cross-encoder re-rank keeps"),
    FieldSpec("rerank.pool", "re-rank pool", "choice", RERANK_POOLS,
              "neighbourhood: each method's first 2 x limit; fused: the fusion's first 2 x limit"),
    FieldSpec("rerank.precision", "re-rank precision", "choice", RERANK_PRECISIONS,
              "int8: an int8 copy of the cross-encoder's ONNX graph (faster on CPU, close scores)"),
)
#: The editor's sections: a title and the fields under it.
SECTIONS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("recipe", ("name", "description", "methods", "candidates", "limit")),
    ("fusion", ("fusion.k", "fusion.weights", "fusion.convention")),
    ("graph walk", ("walk.enabled", "walk.strategy", "walk.depth", "walk.limit", "walk.relation_types",
                    "walk.direction", "walk.restart", "walk.prior_weight", "walk.prior", "walk.unnamed",
                    "walk.pagerank")),
    ("community reports", ("communities.enabled", "communities.top_k")),
    ("re-rank", ("rerank.kind", "rerank.model", "rerank.community_slots", "rerank.pool", "rerank.precision")),
)


def applicable(values: Mapping[str, Any]) -> tuple[str, ...]:
    """The fields that apply to a recipe's steps, in :data:`FIELDS` order.

    A step's settings apply only when the step runs: the walk's when it is
    enabled (``depth`` for ``bfs``, ``restart`` and ``prior_weight`` for
    ``ppr``), the number of reports when reports are added, the model and the
    report slots for a cross-encoder re-rank.

    Examples
    --------
    >>> from agrag_lab import recipes
    >>> shown = applicable(flatten(recipes.HYBRID))
    >>> "walk.enabled" in shown, "walk.depth" in shown, "rerank.model" in shown
    (True, False, False)
    >>> "walk.restart" in applicable(flatten(recipes.GRAPH_EXPAND))
    True
    """
    walk = values.get("walk.enabled") is True
    ppr = values.get("walk.strategy") == "ppr"
    cross = values.get("rerank.kind") == "cross_encoder"
    hidden = set()
    if not walk:
        hidden |= {k for k in _SPECS if k.startswith("walk.") and k != "walk.enabled"}
    elif ppr:
        hidden.add("walk.depth")
    else:
        hidden |= {"walk.restart", "walk.prior_weight", "walk.prior", "walk.unnamed", "walk.pagerank"}
    if values.get("communities.enabled") is not True:
        hidden.add("communities.top_k")
    if not cross:
        hidden |= {"rerank.model", "rerank.community_slots", "rerank.pool", "rerank.precision"}
    return tuple(f.key for f in FIELDS if f.key not in hidden)


_SPECS = {f.key: f for f in FIELDS}
#: Added to a built-in's name once the editor changed it into another recipe (``HYBRID`` -> ``HYBRID_EDITED``).
EDITED_SUFFIX = "_EDITED"


def flatten(recipe: Recipe) -> dict[str, Any]:
    """The editor's raw values of ``recipe``: dotted key -> value.

    Examples
    --------
    >>> from agrag_lab import recipes
    >>> flatten(recipes.GRAPH_EXPAND)["walk.depth"]
    2
    """
    data = recipe.to_dict()
    out: dict[str, Any] = {}
    for spec in FIELDS:
        head, _, rest = spec.key.partition(".")
        value = data[head][rest] if rest else data[head]
        if isinstance(value, list):
            value = tuple(value)
        out[spec.key] = dict(value) if isinstance(value, Mapping) else value
    return out


def nest(values: Mapping[str, Any]) -> dict[str, Any]:
    """Raw values back to :meth:`Recipe.from_dict` data."""
    data: dict[str, Any] = {}
    for key, value in values.items():
        head, _, rest = key.partition(".")
        if rest:
            data.setdefault(head, {})[rest] = value
        else:
            data[key] = value
    return data


def field_of(problem_key: str) -> str:
    """The field a problem belongs to (``fusion.weights.chunk`` -> ``fusion.weights``).

    Examples
    --------
    >>> field_of("fusion.weights.chunk"), field_of("walk.depth"), field_of("toml")
    ('fusion.weights', 'walk.depth', 'file')
    """
    if problem_key in _SPECS:
        return problem_key
    for spec in FIELDS:
        if problem_key.startswith(spec.key + "."):
            return spec.key
    head = problem_key.partition(".")[0]
    for spec in FIELDS:
        if spec.key.startswith(head + ".") or spec.key == head:
            return spec.key
    return "file"


def parse_k(text: object) -> object:
    """Text of the k field: empty -> ``None``, a number -> float, anything else as is.

    Examples
    --------
    >>> parse_k(""), parse_k(" 60 "), parse_k("sixty")
    (None, 60.0, 'sixty')
    """
    if text is None:
        return None
    if isinstance(text, str):
        stripped = text.strip()
        if not stripped:
            return None
        try:
            return float(stripped)
        except ValueError:
            return text
    return text


def parse_tags(text: str) -> tuple[str, ...]:
    """Comma-separated names to a tuple (blank pieces dropped).

    Examples
    --------
    >>> parse_tags("WROTE, WORKED_WITH,,")
    ('WROTE', 'WORKED_WITH')
    """
    return tuple(piece.strip() for piece in text.split(",") if piece.strip())


class RecipeEditorModel:
    """Raw field values, their problems, and the last valid recipe (pure Python).

    Parameters
    ----------
    recipe : Recipe
        The starting recipe (valid by construction).
    """

    def __init__(self, recipe: Recipe) -> None:
        self._recipe = recipe
        self._values = flatten(recipe)
        self._problems: dict[str, str] = {}
        #: The name the recipe came with: a built-in's name is kept only while the recipe is that built-in.
        self._base_name = recipe.name

    # -- state --------------------------------------------------------------------------
    @property
    def recipe(self) -> Recipe:
        """The last valid recipe (frozen)."""
        return self._recipe

    @property
    def values(self) -> dict[str, Any]:
        """A copy of the raw values, valid or not."""
        return dict(self._values)

    @property
    def problems(self) -> dict[str, str]:
        """Current problems, keyed by dotted field (``"file"`` for save/load problems)."""
        return dict(self._problems)

    @property
    def valid(self) -> bool:
        """Whether the raw values form a valid recipe."""
        return not self._problems

    def errors_by_field(self) -> dict[str, list[str]]:
        """Problems grouped by the field whose control shows them."""
        out: dict[str, list[str]] = {}
        for key, message in self._problems.items():
            shown = message if key == field_of(key) else f"{key}: {message}"
            out.setdefault(field_of(key), []).append(shown)
        return out

    def shown(self) -> tuple[str, ...]:
        """The fields to show: those that apply (:func:`applicable`), and any field with a problem."""
        problems = {field_of(k) for k in self._problems}
        keep = set(applicable(self._values)) | problems
        return tuple(f.key for f in FIELDS if f.key in keep)

    def weight_sources(self) -> tuple[str, ...]:
        """The sources a weight can be given to: the methods, then the enabled steps."""
        methods = self._values.get("methods")
        out = [m for m in methods if isinstance(m, str)] if isinstance(methods, tuple) else []
        if self._values.get("walk.enabled") is True:
            out.append(WEIGHT_STEPS[0])
        if self._values.get("communities.enabled") is True:
            out.append(WEIGHT_STEPS[1])
        return tuple(dict.fromkeys(out))

    # -- editing ------------------------------------------------------------------------
    def set(self, key: str, value: Any) -> dict[str, str]:
        """Set one field's raw value and validate; return the problems (``{}`` when valid).

        Removing a method also drops its weight (the weight would be invalid).
        """
        return self.update({key: value})

    def update(self, changes: Mapping[str, Any]) -> dict[str, str]:
        """Set several fields at once (see :meth:`set`)."""
        for key, value in changes.items():
            if key not in _SPECS:
                known = ", ".join(_SPECS)
                raise NotFoundError(f"no recipe field {key!r}; the editor knows {known}")
            spec = _SPECS[key]
            if spec.kind == "methods" and isinstance(value, list | tuple):
                value = tuple(value)
            elif spec.kind == "tags" and isinstance(value, str):
                value = parse_tags(value)
            elif spec.kind == "k":
                value = parse_k(value)
            elif spec.kind == "optional_text" and isinstance(value, str) and not value.strip():
                value = None
            elif spec.kind == "weights" and isinstance(value, Mapping):
                value = dict(value)
            self._values[key] = value
        if "methods" in changes and isinstance(self._values["methods"], tuple):
            allowed = set(self._values["methods"]) | set(WEIGHT_STEPS)
            weights = self._values.get("fusion.weights")
            if isinstance(weights, dict):
                self._values["fusion.weights"] = {s: v for s, v in weights.items() if s in allowed}
        if "name" in changes:
            self._base_name = str(self._values["name"])
        else:
            self._rename_if_edited()
        return self._validate()

    def _rename_if_edited(self) -> None:
        """A built-in edited into another recipe takes another name (``HYBRID_EDITED``); back to the built-in, its own.

        A comparison or a saved file named "HYBRID" whose walk is PageRank would
        say it is the built-in; a name the person typed is never changed.
        """
        from agrag_lab.recipes import BUILTINS

        base = self._base_name
        builtin = BUILTINS.get(base)
        if builtin is None or self._values.get("name") not in (base, base + EDITED_SUFFIX):
            return
        same = {**self._values, "name": base} == flatten(builtin)
        self._values["name"] = base if same else base + EDITED_SUFFIX

    def set_weight(self, source: str, weight: float) -> dict[str, str]:
        """Give one source a weight (1.0 removes the entry, the neutral default)."""
        weights = dict(self._values.get("fusion.weights") or {})
        if isinstance(weight, float) and math.isclose(weight, 1.0) and source in weights:
            del weights[source]
        elif not (isinstance(weight, float) and math.isclose(weight, 1.0)):
            weights[source] = weight
        return self.set("fusion.weights", weights)

    def reset(self, recipe: Recipe) -> None:
        """Show ``recipe`` (e.g. a loaded one): every raw value replaced, no problems."""
        self._recipe = recipe
        self._values = flatten(recipe)
        self._problems = {}
        self._base_name = recipe.name

    def _validate(self) -> dict[str, str]:
        try:
            recipe = Recipe.from_dict(nest(self._values))
        except RecipeError as error:
            self._problems = dict(error.problems)
        else:
            self._problems = {}
            self._recipe = recipe
        return self.problems

    # -- files --------------------------------------------------------------------------
    def to_toml(self) -> str:
        """The current valid recipe as TOML."""
        return self._recipe.to_toml()

    def load_toml(self, text: str) -> dict[str, str]:
        """Replace everything by the recipe in ``text``; on failure keep the values.

        Returns the problems (under ``"file"`` when the text is not a valid recipe).
        """
        return self._replace_with(lambda: Recipe.from_toml(text))

    def _replace_with(self, read: Callable[[], Recipe]) -> dict[str, str]:
        """Reset to the recipe ``read`` returns; on a RecipeError keep the values, report it."""
        try:
            recipe = read()
        except RecipeError as error:
            self._problems = {"file": _describe(error)}
            return self.problems
        self.reset(recipe)
        return {}

    def save(self, path: str | Path) -> Path:
        """Write the current valid recipe as TOML (parents created)."""
        return self._recipe.save(path)

    def load(self, path: str | Path) -> dict[str, str]:
        """Replace everything by the recipe in the TOML file at ``path`` (see :meth:`load_toml`)."""
        return self._replace_with(lambda: Recipe.load(path))


def _describe(error: RecipeError) -> str:
    return "; ".join(f"{key}: {message}" for key, message in error.problems.items()) or str(error)
