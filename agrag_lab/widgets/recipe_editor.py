"""``RecipeEditor``: every field of a recipe as a control, validated as you type.

:class:`RecipeEditorModel` is the pure-Python part: it holds the raw value
of every field (valid or not), the problems :class:`~agrag_lab.recipes.Recipe`
reports for them (keyed by dotted field, e.g. ``"walk.depth"``), and the
last valid recipe. :class:`RecipeEditor` shows one control per field with
its error next to it; ``editor.recipe`` is always the current valid, frozen
recipe, and observers of ``recipe`` fire when it changes.

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

import html
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import ipywidgets as w
import traitlets

from agrag_lab.errors import AgragError, NotFoundError, RecipeError
from agrag_lab.recipes import (
    DIRECTIONS,
    PAGERANK_METHODS,
    PRIORS,
    RERANK_KINDS,
    STRATEGIES,
    UNNAMED,
    WEIGHT_STEPS,
    Recipe,
)
from agrag_lab.retrieval.fusion import CONVENTIONS
from agrag_lab.retrieval.methods import REGISTRY
from agrag_lab.widgets.table import TableView, column
from agrag_lab.widgets.theme import themed

if TYPE_CHECKING:
    from agrag_lab.retrieval.engine import SearchEngine
    from agrag_lab.retrieval.run import SearchRun

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
)
#: The editor's sections: a title and the fields under it.
SECTIONS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("recipe", ("name", "description", "methods", "candidates", "limit")),
    ("fusion", ("fusion.k", "fusion.weights", "fusion.convention")),
    ("graph walk", ("walk.enabled", "walk.strategy", "walk.depth", "walk.limit", "walk.relation_types",
                    "walk.direction", "walk.restart", "walk.prior_weight", "walk.prior", "walk.unnamed",
                    "walk.pagerank")),
    ("community reports", ("communities.enabled", "communities.top_k")),
    ("re-rank", ("rerank.kind", "rerank.model", "rerank.community_slots")),
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
        hidden |= {"rerank.model", "rerank.community_slots"}
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


# -- the widget ---------------------------------------------------------------------------

_LABEL = w.Layout(width="11em")
_CONTROL = w.Layout(width="22em")


def _error_html(messages: Sequence[str]) -> str:
    if not messages:
        return ""
    body = "<br>".join(html.escape(m) for m in messages)
    return f'<span class="agrag-error">&#9888; {body}</span>'


class RecipeEditor(w.VBox):  # type: ignore[misc]
    """Edit a recipe field by field; ``recipe`` is always the current valid recipe.

    Fields come in sections (recipe, fusion, graph walk, community reports,
    re-rank), each with its help under it; only the fields that apply to the
    recipe's steps are shown (see :func:`applicable`). Given an ``engine``, a
    query box and a *Run* button search with the current recipe.

    Parameters
    ----------
    recipe : Recipe
        The recipe to start from.
    relation_types : sequence of str, optional
        Relation types of your graph, shown as a hint next to the walk's types.
    engine : SearchEngine, optional
        Runs the recipe when *Run* is pressed.
    query : str
        The query the *Run* button searches.

    Traits
    ------
    recipe : Recipe
        The last valid recipe; observe it (``editor.observe(f, "recipe")``) to
        react to changes.
    problems : dict
        Current problems by dotted field; each is also shown next to its control.
    valid : bool
        Whether the controls hold a valid recipe right now.
    last_run : SearchRun or None
        The last run of the *Run* button.

    Examples
    --------
    >>> from agrag_lab import recipes
    >>> ed = RecipeEditor(recipes.HYBRID)
    >>> ed.controls["limit"].value = 0
    >>> ed.valid, ed.recipe.limit
    (False, 10)
    >>> "must be an integer" in ed.errors["limit"].value
    True
    >>> ed.controls["limit"].value = 5
    >>> ed.valid, ed.recipe.limit
    (True, 5)
    >>> ed.rows["walk.depth"].layout.display       # the walk is off: its depth does not apply
    'none'
    """

    recipe = traitlets.Instance(Recipe)
    problems = traitlets.Dict()
    valid = traitlets.Bool(True)
    last_run = traitlets.Any(None)

    def __init__(
        self,
        recipe: Recipe,
        *,
        relation_types: Sequence[str] = (),
        engine: SearchEngine | None = None,
        query: str = "",
    ) -> None:
        self.model = RecipeEditorModel(recipe)
        self.engine = engine
        self.controls: dict[str, w.Widget] = {}
        self.errors: dict[str, w.HTML] = {}
        #: The row (label, control, error, help) of each field, by dotted key.
        self.rows: dict[str, w.Box] = {}
        self._weight_box = w.VBox()
        self._weight_controls: dict[str, w.FloatText] = {}
        self._updating = False
        for spec in FIELDS:
            self.rows[spec.key] = self._row(spec, relation_types)
        self.sections: dict[str, w.VBox] = {}
        for title, keys in SECTIONS:
            box = w.VBox([w.HTML(f"<div class='agrag-section-title'>{html.escape(title)}</div>"),
                          *(self.rows[k] for k in keys)], layout=w.Layout(width="100%"))
            box.add_class("agrag-editor-section")
            self.sections[title] = box
        left = w.VBox([self.sections["recipe"], self.sections["fusion"]],
                      layout=w.Layout(flex="1 1 30em", min_width="0"))
        right = w.VBox([self.sections["graph walk"], self.sections["community reports"], self.sections["re-rank"]],
                       layout=w.Layout(flex="1 1 30em", min_width="0", margin="0 0 0 16px"))
        self.path = w.Text(value=f"my_recipes/{recipe.name.lower()}.toml", description="file",
                           layout=w.Layout(width="26em"))
        self.save_button = w.Button(description="Save TOML", icon="save")
        self.load_button = w.Button(description="Load TOML", icon="folder-open")
        self.errors["file"] = w.HTML()
        self.status = w.HTML()
        self.toml = w.Textarea(layout=w.Layout(width="40em", height="16em"), disabled=True)
        self.save_button.on_click(lambda _: self.save())
        self.load_button.on_click(lambda _: self.load())
        self.query_box = w.Text(value=query, placeholder="a question to search with this recipe",
                                description="query", layout=w.Layout(width="36em"))
        self.run_button = w.Button(description="Run", icon="play", button_style="primary",
                                   tooltip="search the query with the current recipe",
                                   disabled=engine is None)
        self.run_button.add_class("agrag-run")
        self.run_status = w.HTML("" if engine is not None else
                                 "<span class='agrag-help'>give the editor an engine (RecipeEditor(recipe, "
                                 "engine=graph.engine())) to run the recipe here</span>")
        self.results = TableView(name="editor-results", max_height="16em", columns=[
            column("rank", "#", "int"), column("kind", "kind"), column("title", "result"),
            column("score", "score", "float", digits=5)], empty_text="(press Run to search)")
        self.run_button.on_click(lambda _: self.run())
        run_box = w.VBox([w.HTML("<div class='agrag-section-title'>try it</div>"),
                          w.HBox([self.query_box, self.run_button]), self.run_status, self.results])
        files = w.VBox([w.HTML("<div class='agrag-section-title'>file</div>"),
                        w.HBox([self.path, self.save_button, self.load_button]), self.errors["file"], self.status])
        preview = w.Accordion(children=[self.toml], titles=("TOML",))
        preview.selected_index = None
        title = w.HTML("<b>Recipe editor</b> <span class='agrag-help'>every change is validated at once; an "
                       "error appears next to its field; only the fields that apply to the recipe's steps are "
                       "shown</span>")
        super().__init__(children=[title, w.HBox([left, right], layout=w.Layout(width="100%", flex_flow="row wrap")),
                                   run_box, files, preview])
        themed(self, "agrag-recipe-editor")
        self.recipe = recipe
        self._refresh(rebuild_weights=True)

    # -- building ---------------------------------------------------------------------
    def _row(self, spec: FieldSpec, relation_types: Sequence[str]) -> w.Box:
        value = self.model.values[spec.key]
        control: w.Widget
        if spec.kind == "text":
            control = w.Text(value=str(value), continuous_update=True)
        elif spec.kind == "optional_text":
            control = w.Text(value=value or "", placeholder="(none)", continuous_update=True)
        elif spec.kind == "int":
            control = w.IntText(value=int(value))
        elif spec.kind == "float":
            control = w.FloatText(value=float(value), step=0.05)
        elif spec.kind == "k":
            control = w.Text(value="" if value is None else f"{value:g}", placeholder="default (60)",
                             continuous_update=True)
        elif spec.kind == "bool":
            control = w.Checkbox(value=bool(value), indent=False)
        elif spec.kind == "choice":
            control = w.Dropdown(options=list(dict.fromkeys((*spec.choices, value))), value=value)
        elif spec.kind == "methods":
            control = w.SelectMultiple(options=list(dict.fromkeys((*spec.choices, *value))), value=tuple(value),
                                       rows=len(set((*spec.choices, *value))))
        elif spec.kind == "tags":
            hint = ", ".join(relation_types[:8]) + (" ..." if len(relation_types) > 8 else "")
            control = w.Text(value=", ".join(value), placeholder=hint or "e.g. WORKED_WITH, WROTE",
                             continuous_update=True)
        else:  # weights
            control = self._weight_box
        control.layout = _CONTROL if spec.kind != "weights" else w.Layout()
        if spec.kind != "weights":
            control.observe(self._on_control(spec), names="value")
        self.controls[spec.key] = control
        self.errors[spec.key] = w.HTML()
        label = w.HTML(f"<span>{html.escape(spec.label)}</span>", layout=_LABEL)
        help_line = w.HTML(f"<div class='agrag-help'>{html.escape(spec.help)}</div>" if spec.help else "",
                           layout=w.Layout(margin="0 0 4px 11.5em"))
        row = w.VBox([w.HBox([label, control, self.errors[spec.key]]), help_line])
        row.add_class("agrag-field")
        row.add_class("agrag-field-" + spec.key.replace(".", "-").replace("_", "-"))
        return row
    def _on_control(self, spec: FieldSpec) -> Callable[[dict[str, Any]], None]:
        def handler(change: dict[str, Any]) -> None:
            if self._updating:
                return
            name = self.model.values["name"]
            self.model.set(spec.key, change["new"])
            if self.model.values["name"] != name:  # an edited built-in took another name: show it
                self._updating = True
                try:
                    self.controls["name"].value = str(self.model.values["name"])
                finally:
                    self._updating = False
            self._refresh(rebuild_weights=spec.key in ("methods", "walk.enabled", "communities.enabled"))

        return handler

    def _weights(self) -> None:
        current = self.model.values.get("fusion.weights") or {}
        sources = self.model.weight_sources()
        extra = [s for s in current if s not in sources]
        self._weight_controls = {}
        rows = []
        for source in (*sources, *extra):
            value = current.get(source, 1.0)
            control = w.FloatText(value=float(value) if isinstance(value, int | float) else 1.0, step=0.1,
                                  description=source, layout=w.Layout(width="14em"))
            control.observe(self._on_weight(source), names="value")
            self._weight_controls[source] = control
            rows.append(control)
        self._weight_box.children = rows or [w.HTML("<i>no sources</i>")]

    def _on_weight(self, source: str) -> Callable[[dict[str, Any]], None]:
        def handler(change: dict[str, Any]) -> None:
            if self._updating:
                return
            self.model.set_weight(source, float(change["new"]))
            self._refresh()

        return handler

    @property
    def weight_controls(self) -> dict[str, w.FloatText]:
        """The weight control of each source."""
        return dict(self._weight_controls)

    # -- state ------------------------------------------------------------------------
    def _refresh(self, *, rebuild_weights: bool = False) -> None:
        if rebuild_weights:
            self._weights()
        grouped = self.model.errors_by_field()
        for key, html_widget in self.errors.items():
            html_widget.value = _error_html(grouped.get(key, []))
        shown = set(self.model.shown())
        for key, row in self.rows.items():
            row.layout.display = None if key in shown else "none"
        self.run_button.disabled = self.engine is None or not self.model.valid
        self.problems = self.model.problems
        self.valid = self.model.valid
        self.recipe = self.model.recipe
        self.toml.value = self.model.to_toml()

    def _show_values(self) -> None:
        """Put the model's values into the controls (after a load)."""
        self._updating = True
        try:
            for spec in FIELDS:
                value = self.model.values[spec.key]
                control = self.controls[spec.key]
                if spec.kind == "weights":
                    continue
                if spec.kind == "text":
                    control.value = str(value)
                elif spec.kind == "optional_text":
                    control.value = value or ""
                elif spec.kind == "k":
                    control.value = "" if value is None else f"{value:g}"
                elif spec.kind == "tags":
                    control.value = ", ".join(value)
                elif spec.kind == "methods":
                    control.options = list(dict.fromkeys((*spec.choices, *value)))
                    control.value = tuple(value)
                elif spec.kind == "choice":
                    control.options = list(dict.fromkeys((*spec.choices, value)))
                    control.value = value
                else:
                    control.value = value
        finally:
            self._updating = False
        self._refresh(rebuild_weights=True)

    def set_recipe(self, recipe: Recipe) -> None:
        """Show another recipe in every control."""
        self.model.reset(recipe)
        self._show_values()

    # -- files ------------------------------------------------------------------------
    def save(self, path: str | Path | None = None) -> Path | None:
        """Save the current valid recipe to ``path`` (default: the file box).

        Refuses (and says why next to the file box) while a field is invalid,
        so a file never holds something other than what the controls show.
        """
        target = Path(path) if path is not None else Path(self.path.value)
        if not self.model.valid:
            self.errors["file"].value = _error_html(["fix the fields marked ⚠ before saving"])
            return None
        try:
            written = self.model.save(target)
        except OSError as error:
            self.errors["file"].value = _error_html([f"cannot write {target}: {error.strerror or error}"])
            return None
        self.errors["file"].value = ""
        self.status.value = (
            f"saved {html.escape(self.model.recipe.name)} to <code>{html.escape(str(written))}</code>"
        )
        return written

    def load(self, path: str | Path | None = None) -> bool:
        """Load a recipe from a TOML file (default: the file box); return whether it worked."""
        target = Path(path) if path is not None else Path(self.path.value)
        problems = self.model.load(target)
        if problems:
            self._file_error(problems)
            return False
        self._show_values()
        self.errors["file"].value = ""
        self.status.value = (
            f"loaded {html.escape(self.model.recipe.name)} from <code>{html.escape(str(target))}</code>"
        )
        return True

    def load_toml(self, text: str) -> bool:
        """Load a recipe from TOML text; return whether it worked."""
        problems = self.model.load_toml(text)
        if problems:
            self._file_error(problems)
            return False
        self._show_values()
        self.errors["file"].value = ""
        self.status.value = f"loaded {html.escape(self.model.recipe.name)} from TOML text"
        return True

    def _file_error(self, problems: Mapping[str, str]) -> None:
        """Show a load problem; the previous "loaded ..." / "saved ..." line no longer holds, so it goes."""
        self.errors["file"].value = _error_html(list(problems.values()))
        self.status.value = ""
        self.problems = self.model.problems
        self.valid = self.model.valid

    # -- running ----------------------------------------------------------------------
    def run(self, query: str | None = None) -> SearchRun | None:
        """Search ``query`` (default: the query box) with the current valid recipe; show and return the run."""
        text = (query if query is not None else self.query_box.value).strip()
        if self.engine is None:
            self.run_status.value = _error_html(["no engine: create the editor with engine=graph.engine()"])
            return None
        if not self.model.valid:
            self.run_status.value = _error_html(["fix the fields marked ⚠ before running"])
            return None
        if not text:
            self.run_status.value = _error_html(["type a query first"])
            return None
        try:
            run = self.engine.run(text, self.model.recipe)
        except AgragError as error:
            self.run_status.value = _error_html([f"{type(error).__name__}: {error}"])
            return None
        self.results.set_rows([
            {"_key": r.id, "_hover": r.id, "rank": r.rank, "kind": r.kind, "title": r.name, "score": r.score}
            for r in run.results
        ])
        self.run_status.value = (
            f"<span class='agrag-help'>{html.escape(run.trace.recipe.get('name', ''))}: {len(run)} results, "
            f"searched in {run.trace.seconds * 1000:.0f} ms</span>"
        )
        self.last_run = run
        return run
