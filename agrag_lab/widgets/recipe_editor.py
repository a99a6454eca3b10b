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
from typing import Any, Literal

import ipywidgets as w
import traitlets

from agrag_lab.errors import NotFoundError, RecipeError
from agrag_lab.recipes import DIRECTIONS, RERANK_KINDS, STRATEGIES, WEIGHT_STEPS, Recipe
from agrag_lab.retrieval.fusion import CONVENTIONS
from agrag_lab.retrieval.methods import REGISTRY

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
    FieldSpec("name", "name", "text", help="names the recipe in traces and files"),
    FieldSpec("description", "description", "text"),
    FieldSpec("methods", "methods", "methods", tuple(REGISTRY), "each method votes once in the fusion"),
    FieldSpec("candidates", "candidates", "int", help="hits each method returns before fusion"),
    FieldSpec("limit", "limit", "int", help="results returned (the cut)"),
    FieldSpec("walk.enabled", "graph walk", "bool", help="walk the graph from the entity hits"),
    FieldSpec("walk.depth", "walk depth", "int", help="hops from a seed"),
    FieldSpec("walk.limit", "walk limit", "int", help="neighbours the walk adds at most"),
    FieldSpec("walk.relation_types", "relation types", "tags", help="comma-separated; empty follows all"),
    FieldSpec("walk.direction", "walk direction", "choice", DIRECTIONS),
    FieldSpec("walk.strategy", "walk strategy", "choice", STRATEGIES),
    FieldSpec("walk.restart", "PageRank restart", "float", help="ppr: chance of jumping back to a seed per step"),
    FieldSpec("walk.prior_weight", "dense prior weight", "float", help="ppr: weight of the top dense passages"),
    FieldSpec("communities.enabled", "community reports", "bool", help="add reports of overlapping communities"),
    FieldSpec("communities.top_k", "reports added", "int"),
    FieldSpec("rerank.kind", "re-rank", "choice", RERANK_KINDS),
    FieldSpec("rerank.model", "re-rank model", "optional_text", help="cross-encoder name or local path"),
    FieldSpec("rerank.community_slots", "report slots", "int", help="reports a cross-encoder re-rank keeps"),
    FieldSpec("fusion.k", "RRF k", "k", help="empty: RETRIEVAL_RRF_K (default 60)"),
    FieldSpec("fusion.weights", "weights", "weights", help="per source; 1.0 is neutral, 0 silences"),
    FieldSpec("fusion.convention", "convention", "choice", tuple(CONVENTIONS)),
)
_SPECS = {f.key: f for f in FIELDS}


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
        return self._validate()

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
    return f'<span class="agrag-error" style="color:#D55E00">&#9888; {body}</span>'


class RecipeEditor(w.VBox):  # type: ignore[misc]
    """Edit a recipe field by field; ``recipe`` is always the current valid recipe.

    Parameters
    ----------
    recipe : Recipe
        The recipe to start from.
    relation_types : sequence of str, optional
        Relation types of your graph, shown as a hint next to the walk's types.

    Traits
    ------
    recipe : Recipe
        The last valid recipe; observe it (``editor.observe(f, "recipe")``) to
        react to changes.
    problems : dict
        Current problems by dotted field; each is also shown next to its control.
    valid : bool
        Whether the controls hold a valid recipe right now.

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
    """

    recipe = traitlets.Instance(Recipe)
    problems = traitlets.Dict()
    valid = traitlets.Bool(True)

    def __init__(self, recipe: Recipe, *, relation_types: Sequence[str] = ()) -> None:
        self.model = RecipeEditorModel(recipe)
        self.controls: dict[str, w.Widget] = {}
        self.errors: dict[str, w.HTML] = {}
        self._weight_box = w.VBox()
        self._weight_controls: dict[str, w.FloatText] = {}
        self._updating = False
        rows = [self._row(spec, relation_types) for spec in FIELDS]
        self.path = w.Text(value=f"my_recipes/{recipe.name.lower()}.toml", description="file",
                           layout=w.Layout(width="26em"))
        self.save_button = w.Button(description="Save TOML", icon="save")
        self.load_button = w.Button(description="Load TOML", icon="folder-open")
        self.errors["file"] = w.HTML()
        self.status = w.HTML()
        self.toml = w.Textarea(layout=w.Layout(width="40em", height="16em"), disabled=True)
        self.save_button.on_click(lambda _: self.save())
        self.load_button.on_click(lambda _: self.load())
        files = w.VBox([w.HBox([self.path, self.save_button, self.load_button]), self.errors["file"], self.status])
        preview = w.Accordion(children=[self.toml], titles=("TOML",))
        preview.selected_index = None
        title = w.HTML("<b>Recipe editor</b> — every change is validated; errors appear next to the field")
        super().__init__(children=[title, *rows, files, preview])
        self.add_class("agrag-recipe-editor")
        self.recipe = recipe
        self._refresh(rebuild_weights=True)

    # -- building ---------------------------------------------------------------------
    def _row(self, spec: FieldSpec, relation_types: Sequence[str]) -> w.Widget:
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
        label = w.HTML(f'<span title="{html.escape(spec.help)}">{html.escape(spec.label)}</span>', layout=_LABEL)
        return w.HBox([label, control, self.errors[spec.key]])

    def _on_control(self, spec: FieldSpec) -> Callable[[dict[str, Any]], None]:
        def handler(change: dict[str, Any]) -> None:
            if self._updating:
                return
            self.model.set(spec.key, change["new"])
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
            self.errors["file"].value = _error_html(["fix the fields marked in orange before saving"])
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
            self.errors["file"].value = _error_html(list(problems.values()))
            self.problems = self.model.problems
            self.valid = self.model.valid
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
            self.errors["file"].value = _error_html(list(problems.values()))
            self.problems = self.model.problems
            self.valid = self.model.valid
            return False
        self._show_values()
        return True
