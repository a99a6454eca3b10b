"""RecipeEditor: every field a control, live validation next to the field, TOML files, observers."""

from __future__ import annotations

import dataclasses
import html
from pathlib import Path
from typing import Any

import pytest

from agrag_lab import recipes
from agrag_lab.recipes import Recipe
from agrag_lab.widgets.recipe_editor import (
    FIELDS,
    SECTIONS,
    RecipeEditor,
    RecipeEditorModel,
    field_of,
    flatten,
    nest,
)


def _all_fields() -> set[str]:
    out = set()
    for f in dataclasses.fields(Recipe):
        if f.name in ("walk", "communities", "rerank", "fusion"):
            section = type(getattr(recipes.HYBRID, f.name))
            out |= {f"{f.name}.{g.name}" for g in dataclasses.fields(section)}
        else:
            out.add(f.name)
    return out


def test_every_recipe_field_has_a_control() -> None:
    assert {f.key for f in FIELDS} == _all_fields()
    editor = RecipeEditor(recipes.GRAPH_EXPAND)
    assert set(editor.controls) == _all_fields()
    assert set(editor.errors) == _all_fields() | {"file"}


@pytest.mark.parametrize("recipe", list(recipes.BUILTINS.values()), ids=list(recipes.BUILTINS))
def test_flatten_and_nest_round_trip_every_builtin(recipe: Recipe) -> None:
    assert Recipe.from_dict(nest(flatten(recipe))) == recipe
    editor = RecipeEditor(recipe)
    assert editor.recipe == recipe and editor.valid and editor.problems == {}


def test_an_invalid_value_shows_its_error_next_to_the_field_and_keeps_the_last_valid_recipe() -> None:
    editor = RecipeEditor(recipes.HYBRID)
    editor.controls["walk.depth"].value = 0
    assert not editor.valid
    assert set(editor.problems) == {"walk.depth"}
    assert "must be an integer &gt;= 1" in editor.errors["walk.depth"].value
    assert all(not html for key, html in ((k, e.value) for k, e in editor.errors.items()) if key != "walk.depth")
    assert editor.recipe == recipes.HYBRID
    editor.controls["walk.depth"].value = 3
    assert editor.valid and editor.errors["walk.depth"].value == ""
    assert editor.recipe.walk.depth == 3
    assert isinstance(editor.recipe, Recipe)
    with pytest.raises(dataclasses.FrozenInstanceError):
        editor.recipe.limit = 3  # type: ignore[misc]


def test_several_problems_at_once_each_next_to_its_own_field() -> None:
    editor = RecipeEditor(recipes.HYBRID)
    editor.controls["name"].value = " "
    editor.controls["limit"].value = 0
    editor.controls["rerank.kind"].value = "cross_encoder"
    assert set(editor.problems) == {"name", "limit", "rerank.model"}
    assert "non-empty" in editor.errors["name"].value
    assert "needs a model" in editor.errors["rerank.model"].value
    editor.controls["rerank.model"].value = "cross-encoder/ms-marco-MiniLM-L-6-v2"
    editor.controls["name"].value = "MINE"
    editor.controls["limit"].value = 7
    assert editor.valid
    assert (editor.recipe.name, editor.recipe.limit, editor.recipe.rerank.kind) == ("MINE", 7, "cross_encoder")


def test_k_text_field() -> None:
    editor = RecipeEditor(recipes.HYBRID)
    editor.controls["fusion.k"].value = "20"
    assert editor.recipe.fusion.k == 20.0
    editor.controls["fusion.k"].value = "twenty"
    assert "fusion.k" in editor.problems and "finite number" in editor.errors["fusion.k"].value
    editor.controls["fusion.k"].value = ""
    assert editor.valid and editor.recipe.fusion.k is None


def test_weights_follow_the_sources_and_are_validated() -> None:
    editor = RecipeEditor(recipes.HYBRID)
    assert list(editor.weight_controls) == ["entity", "chunk"]
    editor.weight_controls["chunk"].value = 2.5
    assert dict(editor.recipe.fusion.weights) == {"chunk": 2.5}
    editor.weight_controls["entity"].value = -1.0
    assert set(editor.problems) == {"fusion.weights.entity"}
    assert "fusion.weights.entity" in editor.errors["fusion.weights"].value
    editor.weight_controls["entity"].value = 1.0
    assert editor.valid and dict(editor.recipe.fusion.weights) == {"chunk": 2.5}
    editor.controls["walk.enabled"].value = True
    assert list(editor.weight_controls) == ["entity", "chunk", "walk"]
    editor.controls["methods"].value = ("entity",)  # chunk removed: its weight goes with it
    assert editor.valid
    assert editor.recipe.methods == ("entity",) and dict(editor.recipe.fusion.weights) == {}


def test_methods_relation_types_and_choices() -> None:
    editor = RecipeEditor(recipes.HYBRID)
    editor.controls["methods"].value = ()
    assert "at least one method" in editor.errors["methods"].value
    editor.controls["methods"].value = ("chunk", "community")
    editor.controls["walk.relation_types"].value = "WORKED_WITH, WROTE"
    editor.controls["walk.direction"].value = "out"
    editor.controls["fusion.convention"].value = "llamaindex"
    r = editor.recipe
    assert r.methods == ("chunk", "community")
    assert r.walk.relation_types == ("WORKED_WITH", "WROTE")
    assert (r.walk.direction, r.fusion.convention) == ("out", "llamaindex")
    editor.controls["walk.relation_types"].value = "WROTE, WROTE"
    assert "twice" in editor.errors["walk.relation_types"].value


def test_observers_fire_on_each_valid_change_only() -> None:
    editor = RecipeEditor(recipes.HYBRID)
    seen: list[Recipe] = []
    editor.observe(lambda change: seen.append(change["new"]), names="recipe")
    editor.controls["limit"].value = 5
    editor.controls["limit"].value = 0  # invalid: no new recipe
    editor.controls["limit"].value = 5  # back to the same recipe: no change
    editor.controls["candidates"].value = 20
    assert [(r.limit, r.candidates) for r in seen] == [(5, 50), (5, 20)]
    validity: list[bool] = []
    editor.observe(lambda change: validity.append(change["new"]), names="valid")
    editor.controls["limit"].value = -2
    editor.controls["limit"].value = 4
    assert validity == [False, True]


def test_save_and_load_toml(tmp_path: Path) -> None:
    editor = RecipeEditor(recipes.HYBRID)
    editor.controls["name"].value = "MY_HYBRID"
    editor.controls["walk.enabled"].value = True
    editor.weight_controls["walk"].value = 0.5
    path = editor.save(tmp_path / "mine.toml")
    assert path is not None and path.is_file()
    assert Recipe.load(path) == editor.recipe
    assert "MY_HYBRID" in editor.status.value

    other = RecipeEditor(recipes.CHUNK)
    other.path.value = str(path)
    assert other.load()
    assert other.recipe == editor.recipe
    assert other.controls["name"].value == "MY_HYBRID" and other.controls["walk.enabled"].value is True
    assert other.weight_controls["walk"].value == 0.5


def test_a_bad_file_is_reported_next_to_the_file_box_and_changes_nothing(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "X"\nmethods = []\n[walk]\ndepth = 0\n', encoding="utf-8")
    editor = RecipeEditor(recipes.HYBRID)
    assert not editor.load(bad)
    assert "walk.depth" in editor.errors["file"].value and "methods" in editor.errors["file"].value
    assert editor.recipe == recipes.HYBRID and editor.controls["name"].value == "HYBRID"
    assert not editor.load(tmp_path / "missing.toml")
    assert "cannot read" in editor.errors["file"].value
    assert not editor.load_toml("name = [")
    assert "not valid TOML" in editor.errors["file"].value
    assert editor.load_toml(recipes.GRAPH_EXPAND.to_toml())
    assert editor.recipe == recipes.GRAPH_EXPAND and editor.valid


def test_saving_an_invalid_recipe_is_refused(tmp_path: Path) -> None:
    editor = RecipeEditor(recipes.HYBRID)
    editor.controls["limit"].value = 0
    assert editor.save(tmp_path / "x.toml") is None
    assert not (tmp_path / "x.toml").exists()
    assert "fix the fields" in editor.errors["file"].value


def test_model_alone() -> None:
    model = RecipeEditorModel(recipes.HYBRID)
    assert model.set("communities.top_k", 0) == {
        "communities.top_k": "must be an integer >= 1 (got 0); it is the most community reports added"
    }
    assert model.values["communities.top_k"] == 0 and model.recipe == recipes.HYBRID
    changes: dict[str, Any] = {"communities.top_k": 2, "communities.enabled": True}
    assert model.update(changes) == {}
    assert model.recipe.communities.top_k == 2 and model.weight_sources() == ("entity", "chunk", "communities")
    with pytest.raises(KeyError, match="no recipe field"):
        model.set("walk.depht", 2)
    assert field_of("fusion.weights.walk") == "fusion.weights"


def test_only_the_fields_that_apply_to_the_steps_are_shown_in_sections() -> None:
    editor = RecipeEditor(recipes.HYBRID)
    assert list(editor.sections) == ["recipe", "fusion", "graph walk", "community reports", "re-rank"]
    assert sorted(k for keys in (s for _, s in SECTIONS) for k in keys) == sorted(f.key for f in FIELDS)

    def shown() -> set[str]:
        return {k for k, row in editor.rows.items() if row.layout.display != "none"}

    walk = {f.key for f in FIELDS if f.key.startswith("walk.")} - {"walk.enabled"}
    assert not shown() & walk and "walk.enabled" in shown()
    assert "rerank.model" not in shown() and "communities.top_k" not in shown()
    editor.controls["walk.enabled"].value = True
    assert {"walk.depth", "walk.limit", "walk.strategy"} <= shown()
    assert not {"walk.restart", "walk.prior_weight"} & shown()  # PageRank only
    editor.controls["walk.strategy"].value = "ppr"
    assert {"walk.restart", "walk.prior_weight"} <= shown() and "walk.depth" not in shown()
    editor.controls["rerank.kind"].value = "cross_encoder"
    assert {"rerank.model", "rerank.community_slots"} <= shown()
    # a field with a problem stays in sight even if its step is then turned off
    editor.controls["walk.restart"].value = 5.0
    editor.controls["walk.enabled"].value = False
    assert "walk.restart" in shown() and "must be a number in [0.01, 1]" in editor.errors["walk.restart"].value
    for spec in FIELDS:  # visible help under every field, not only a tooltip
        assert spec.help and html.escape(spec.help) in editor.rows[spec.key].children[1].value


def test_run_button_searches_with_the_current_recipe(widget_engine: Any) -> None:
    editor = RecipeEditor(recipes.HYBRID)
    assert editor.run_button.disabled and editor.run() is None and "engine" in editor.run_status.value
    editor = RecipeEditor(recipes.HYBRID, engine=widget_engine, query="Who worked with Babbage?")
    assert not editor.run_button.disabled
    editor.controls["limit"].value = 0
    assert editor.run_button.disabled and editor.run() is None
    editor.controls["limit"].value = 3
    run = editor.run()
    assert run is not None and len(run) == 3 and editor.last_run is run
    assert [r["_key"] for r in editor.results.rows] == list(run.keys)
    assert [r["title"] for r in editor.results.rows] == [r.name for r in run.results]
    assert "searched in" in editor.run_status.value


def test_a_failed_load_clears_the_saved_or_loaded_line(tmp_path: Path) -> None:
    editor = RecipeEditor(recipes.HYBRID)
    assert editor.save(tmp_path / "h.toml") is not None and "saved HYBRID" in editor.status.value
    assert not editor.load(tmp_path / "missing.toml")
    assert editor.status.value == "" and "cannot read" in editor.errors["file"].value
    assert editor.load(tmp_path / "h.toml") and "loaded HYBRID" in editor.status.value
    assert not editor.load_toml("name = ") and editor.status.value == ""
