"""``RecipeEditor``: every field of a recipe as a control, validated as you type.

The model (:mod:`agrag_lab.widgets.recipe_editor_model`:
:class:`RecipeEditorModel`, :data:`FIELDS`, :data:`SECTIONS`) is pure data:
the raw value of every field, the problems :class:`~agrag_lab.recipes.Recipe`
reports for them, and the last valid recipe. :class:`RecipeEditor` shows one
control per field with its error next to it; ``editor.recipe`` is always the
current valid, frozen recipe, and observers of ``recipe`` fire when it changes.

Examples
--------
>>> from agrag_lab import recipes
>>> editor = RecipeEditor(recipes.HYBRID)
>>> editor.recipe == recipes.HYBRID
True
>>> editor.model.set("walk.depth", 2)
{}
"""

from __future__ import annotations

import html
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import ipywidgets as w
import traitlets

from agrag_lab.errors import AgragError
from agrag_lab.recipes import Recipe
from agrag_lab.widgets.recipe_editor_model import (
    EDITED_SUFFIX,
    FIELDS,
    SECTIONS,
    FieldKind,
    FieldSpec,
    RecipeEditorModel,
    applicable,
    field_of,
    flatten,
    nest,
    parse_k,
    parse_tags,
)
from agrag_lab.widgets.table import TableView, column
from agrag_lab.widgets.theme import themed

if TYPE_CHECKING:
    from agrag_lab.retrieval.engine import SearchEngine
    from agrag_lab.retrieval.run import SearchRun

__all__ = [
    "EDITED_SUFFIX", "FIELDS", "SECTIONS", "FieldKind", "FieldSpec", "RecipeEditor", "RecipeEditorModel",
    "applicable", "field_of", "flatten", "nest", "parse_k", "parse_tags",
]


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
