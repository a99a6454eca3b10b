"""Tests for agrag_lab.recipes: built-ins, TOML round trips, validation, get()."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path
from typing import Any, Literal, cast

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agrag_lab import recipes
from agrag_lab.errors import AgragError, RecipeError
from agrag_lab.recipes import (
    BUILTINS,
    CommunityExpansion,
    FusionSettings,
    GraphWalk,
    Recipe,
    Rerank,
)
from agrag_lab.retrieval.fusion import CONVENTIONS

RECIPES_DIR = Path(__file__).resolve().parent.parent / "recipes"

# -- the spec's table -------------------------------------------------------------

# name, methods, extra steps, results (spec/retrieval-concepts.txt, "Recipes")
SPEC_TABLE = [
    ("ENTITY", ("entity",), set(), 10),
    ("CHUNK", ("chunk",), set(), 10),
    ("HYBRID", ("entity", "chunk"), set(), 10),
    ("HYBRID_RERANKED", ("entity", "chunk"), {"communities", "cross_encoder"}, 10),
    ("GRAPH_EXPAND", ("entity",), {"walk", "communities"}, 20),
    ("THEMATIC", ("community",), set(), 5),
]


def extra_steps(recipe: Recipe) -> set[str]:
    steps = set()
    if recipe.walk.enabled:
        steps.add("walk")
    if recipe.communities.enabled:
        steps.add("communities")
    if recipe.rerank.kind != "none":
        steps.add(recipe.rerank.kind)
    return steps


def test_builtins_are_the_six_of_the_spec() -> None:
    assert list(BUILTINS) == [row[0] for row in SPEC_TABLE]
    with pytest.raises(TypeError):
        BUILTINS["MINE"] = recipes.HYBRID  # type: ignore[index]


@pytest.mark.parametrize(("name", "methods", "steps", "limit"), SPEC_TABLE)
def test_builtin_matches_spec_table(
    name: str, methods: tuple[str, ...], steps: set[str], limit: int
) -> None:
    recipe = BUILTINS[name]
    assert recipe is getattr(recipes, name)
    assert recipe.name == name
    assert recipe.methods == methods
    assert extra_steps(recipe) == steps
    assert recipe.limit == limit
    assert recipe.bfs is ("walk" in steps)
    assert recipe.description


def test_builtin_details() -> None:
    rr = recipes.HYBRID_RERANKED.rerank
    assert (rr.kind, rr.model, rr.community_slots) == (
        "cross_encoder",
        "cross-encoder/ms-marco-MiniLM-L-6-v2",
        3,
    )
    walk = recipes.GRAPH_EXPAND.walk
    assert (walk.enabled, walk.depth, walk.limit, walk.strategy) == (True, 2, 10, "ppr")
    for recipe in BUILTINS.values():
        assert recipe.candidates == 50
        # GRAPH_EXPAND's walk passages weigh double (BENCHMARKS.md: MuSiQue Recall@5)
        weights = {"walk": 2.0} if recipe.name == "GRAPH_EXPAND" else {}
        assert recipe.fusion == FusionSettings(weights=weights)


# -- files in recipes/ --------------------------------------------------------------


@pytest.mark.parametrize("name", list(recipes.RECIPES))
def test_toml_file_equals_builtin(name: str) -> None:
    assert Recipe.load(RECIPES_DIR / f"{name.lower()}.toml") == recipes.RECIPES[name]


def test_recipes_folder_holds_exactly_the_builtins_and_the_recommended_one() -> None:
    files = {p.stem.upper() for p in RECIPES_DIR.glob("*.toml")}
    assert files == set(BUILTINS) | {recipes.RECOMMENDED.name}
    assert (RECIPES_DIR / "README.md").is_file()


def test_example_graph_distance() -> None:
    example = Recipe.load(RECIPES_DIR / "examples" / "hybrid_graph_distance.toml")
    assert example.rerank.kind == "graph_distance"
    assert example.rerank.model is None
    expected = recipes.HYBRID_RERANKED.replace(
        name=example.name, description=example.description, rerank=example.rerank
    )
    assert example == expected


def test_example_weighted() -> None:
    example = Recipe.load(RECIPES_DIR / "examples" / "hybrid_weighted.toml")
    assert dict(example.fusion.weights) == {"chunk": 2.0}
    assert example.fusion.convention == "llamaindex"
    assert example.methods == recipes.HYBRID.methods


# -- round trips --------------------------------------------------------------------


@pytest.mark.parametrize("name", list(BUILTINS))
def test_builtin_round_trips(name: str, tmp_path: Path) -> None:
    recipe = BUILTINS[name]
    assert Recipe.from_toml(recipe.to_toml()) == recipe
    assert Recipe.from_dict(recipe.to_dict()) == recipe
    path = recipe.save(tmp_path / "sub" / "r.toml")
    assert Recipe.load(path) == recipe
    assert recipes.get(path) == recipe
    assert recipes.get(str(path)) == recipe


def test_to_dict_is_plain_json() -> None:
    import json

    recipe = recipes.GRAPH_EXPAND.replace(
        **{"walk.relation_types": ("WORKED_WITH",), "fusion.weights": {"walk": 0.5}}
    )
    data = json.loads(json.dumps(recipe.to_dict()))
    assert data["walk"]["relation_types"] == ["WORKED_WITH"]
    assert data["fusion"] == {
        "k": None,
        "weights": {"walk": 0.5},
        "convention": "paper",
    }
    assert Recipe.from_dict(data) == recipe


_names = st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZ_-0123456789 ", min_size=1).filter(
    lambda s: bool(s.strip())
)
_text = st.text(max_size=40)
_methods = st.lists(
    st.sampled_from(["entity", "chunk", "community", "bm25", "dense"]),
    min_size=1,
    max_size=4,
    unique=True,
).map(tuple)
_finite = st.floats(min_value=0.0, max_value=100.0, allow_nan=False)


@st.composite
def valid_recipes(draw: st.DrawFn) -> Recipe:
    methods = draw(_methods)
    kind = cast(
        Literal["none", "cross_encoder", "graph_distance"],
        draw(st.sampled_from(["none", "cross_encoder", "graph_distance"])),
    )
    model = draw(st.sampled_from(["cross-encoder/ms-marco-MiniLM-L-6-v2", "m/x"]))
    sources = [*methods, "walk", "communities"]
    return Recipe(
        name=draw(_names),
        methods=methods,
        limit=draw(st.integers(1, 1000)),
        candidates=draw(st.integers(1, 1000)),
        walk=GraphWalk(
            enabled=draw(st.booleans()),
            depth=draw(st.integers(1, 5)),
            limit=draw(st.integers(1, 100)),
            relation_types=tuple(
                draw(
                    st.lists(st.sampled_from(["A", "B_C", "worked with"]), unique=True)
                )
            ),
            direction=draw(st.sampled_from(["out", "in", "both"])),
            strategy=draw(st.sampled_from(["bfs", "ppr"])),
            restart=draw(st.floats(min_value=0.01, max_value=1.0)),
            prior_weight=draw(st.floats(min_value=0.0, max_value=10.0)),
        ),
        communities=CommunityExpansion(
            enabled=draw(st.booleans()), top_k=draw(st.integers(1, 20))
        ),
        rerank=Rerank(
            kind=kind,
            model=model
            if kind == "cross_encoder"
            else draw(st.none() | st.just(model)),
            community_slots=draw(st.integers(0, 10)),
        ),
        fusion=FusionSettings(
            k=draw(st.none() | st.floats(min_value=0.001, max_value=1e6)),
            weights=draw(st.dictionaries(st.sampled_from(sources), _finite)),
            convention=draw(st.sampled_from(sorted(CONVENTIONS))),
        ),
        description=draw(_text),
    )


@settings(max_examples=150, deadline=None, database=None)
@given(recipe=valid_recipes())
def test_round_trip_property(recipe: Recipe) -> None:
    assert Recipe.from_toml(recipe.to_toml()) == recipe
    assert Recipe.from_dict(recipe.to_dict()) == recipe
    assert hash(Recipe.from_toml(recipe.to_toml())) == hash(recipe)


# -- data behaviour -------------------------------------------------------------------


def test_lists_become_tuples_and_mappings_are_frozen() -> None:
    recipe = Recipe(
        "X",
        ["entity", "chunk"],  # type: ignore[arg-type]
        walk={"relation_types": ["A", "B"]},  # type: ignore[arg-type]
        fusion={"weights": {"chunk": 2}},  # type: ignore[arg-type]
    )
    assert recipe.methods == ("entity", "chunk")
    assert recipe.walk == GraphWalk(relation_types=("A", "B"))
    assert recipe.fusion.weights == {"chunk": 2.0}
    with pytest.raises(TypeError):
        recipe.fusion.weights["chunk"] = 3.0  # type: ignore[index]
    with pytest.raises(dataclasses.FrozenInstanceError):
        recipe.limit = 3  # type: ignore[misc]


def test_equality_and_hash() -> None:
    a = Recipe("X", ("chunk",), fusion=FusionSettings(weights={"chunk": 2.0}))
    b = Recipe("X", ("chunk",), fusion=FusionSettings(weights={"chunk": 2}))
    c = Recipe("X", ("chunk",), fusion=FusionSettings(weights={"chunk": 3.0}))
    assert a == b and hash(a) == hash(b)
    assert a != c
    assert len({a, b, c}) == 2


def test_bfs_is_walk_enabled() -> None:
    assert recipes.GRAPH_EXPAND.bfs is True
    assert recipes.HYBRID.bfs is False


def test_replace_with_dotted_keys() -> None:
    base = recipes.HYBRID
    changed = base.replace(
        limit=20,
        **{"walk.enabled": True, "walk.depth": 3, "fusion.convention": "ranx"},
    )
    assert (changed.limit, changed.walk.enabled, changed.walk.depth) == (20, True, 3)
    assert changed.fusion.convention == "ranx"
    assert changed.walk.limit == base.walk.limit
    assert base.walk.depth == 1  # the original is untouched
    # a section object and a dotted key for the same section combine
    both = base.replace(walk=GraphWalk(depth=4), **{"walk.limit": 7})
    assert (both.walk.depth, both.walk.limit) == (4, 7)


def test_replace_reports_bad_keys_and_values() -> None:
    with pytest.raises(RecipeError) as info:
        recipes.HYBRID.replace(colour="red", **{"limit.x": 1})
    assert set(info.value.problems) == {"colour", "limit.x"}
    with pytest.raises(RecipeError) as info:
        recipes.HYBRID.replace(limit=0, **{"walk.depth": 0})
    assert set(info.value.problems) == {"limit", "walk.depth"}
    assert "HYBRID is invalid" in str(info.value)


# -- validation -----------------------------------------------------------------------


def base_data() -> dict[str, Any]:
    return recipes.HYBRID.to_dict()


def with_change(field: str, value: Any) -> dict[str, Any]:
    data = base_data()
    head, _, rest = field.partition(".")
    if rest:
        data[head][rest] = value
    else:
        data[head] = value
    return data


INVALID = [
    ("name", "", "name"),
    ("name", "   ", "name"),
    ("name", 3, "name"),
    ("methods", [], "methods"),
    ("methods", "entity", "methods"),
    ("methods", ["entity", "entity"], "methods"),
    ("methods", ["entity", 3], "methods"),
    ("methods", ["entity", ""], "methods"),
    ("limit", 0, "limit"),
    ("limit", 2.5, "limit"),
    ("limit", True, "limit"),
    ("candidates", 0, "candidates"),
    ("candidates", "50", "candidates"),
    ("description", None, "description"),
    ("walk", "deep", "walk"),
    ("walk.enabled", "yes", "walk.enabled"),
    ("walk.depth", 0, "walk.depth"),
    ("walk.depth", 1.0, "walk.depth"),
    ("walk.limit", 0, "walk.limit"),
    ("walk.relation_types", ["A", ""], "walk.relation_types"),
    ("walk.relation_types", ["A", "A"], "walk.relation_types"),
    ("walk.relation_types", "A", "walk.relation_types"),
    ("walk.direction", "up", "walk.direction"),
    ("walk.strategy", "dfs", "walk.strategy"),
    ("walk.restart", 0, "walk.restart"),
    ("walk.restart", 1.5, "walk.restart"),
    ("walk.restart", "0.3", "walk.restart"),
    ("walk.prior_weight", -0.1, "walk.prior_weight"),
    ("walk.prior_weight", math.inf, "walk.prior_weight"),
    ("walk.prior_weight", True, "walk.prior_weight"),
    ("walk.colour", "red", "walk.colour"),
    ("communities.enabled", 1, "communities.enabled"),
    ("communities.top_k", 0, "communities.top_k"),
    ("rerank.kind", "llm", "rerank.kind"),
    ("rerank.model", "", "rerank.model"),
    ("rerank.community_slots", -1, "rerank.community_slots"),
    ("fusion.k", 0, "fusion.k"),
    ("fusion.k", -60.0, "fusion.k"),
    ("fusion.k", math.inf, "fusion.k"),
    ("fusion.k", "60", "fusion.k"),
    ("fusion.convention", "elastic", "fusion.convention"),
    ("fusion.weights", {"bm25": 1.0}, "fusion.weights.bm25"),
    ("fusion.weights", {"chunk": -1.0}, "fusion.weights.chunk"),
    ("fusion.weights", {"chunk": math.nan}, "fusion.weights.chunk"),
    ("fusion.weights", {"chunk": math.inf}, "fusion.weights.chunk"),
    ("fusion.weights", {"chunk": "2"}, "fusion.weights.chunk"),
    ("fusion.weights", [1.0], "fusion.weights"),
    ("colour", "red", "colour"),
]


@pytest.mark.parametrize(("field", "value", "problem"), INVALID)
def test_invalid_field(field: str, value: Any, problem: str) -> None:
    with pytest.raises(RecipeError) as info:
        Recipe.from_dict(with_change(field, value))
    assert set(info.value.problems) == {problem}
    assert isinstance(info.value, ValueError) and isinstance(info.value, AgragError)
    assert info.value.problems[problem]  # every problem carries a hint


def test_cross_encoder_needs_a_model() -> None:
    with pytest.raises(RecipeError) as info:
        Recipe.from_dict(
            {"name": "X", "methods": ["chunk"], "rerank": {"kind": "cross_encoder"}}
        )
    assert set(info.value.problems) == {"rerank.model"}
    assert "cross-encoder/ms-marco-MiniLM-L-6-v2" in info.value.problems["rerank.model"]


def test_hint_names_the_value_and_the_fix() -> None:
    with pytest.raises(RecipeError) as info:
        Recipe.from_dict(with_change("walk.depth", 0))
    message = info.value.problems["walk.depth"]
    assert "must be an integer >= 1 (got 0)" in message
    assert "a depth of 1 visits direct neighbours" in message
    assert str(info.value).startswith("HYBRID is invalid (1 problem(s)):")


def test_all_problems_reported_at_once() -> None:
    data = {
        "name": "BROKEN",
        "methods": ["entity", "entity"],
        "limit": 0,
        "candidates": -5,
        "walk": {"depth": 0, "limit": 0, "direction": "sideways"},
        "communities": {"top_k": 0},
        "rerank": {"kind": "cross_encoder", "community_slots": -1},
        "fusion": {"k": 0, "convention": "elastic", "weights": {"chunk": -1}},
        "extra": 1,
    }
    with pytest.raises(RecipeError) as info:
        Recipe.from_dict(data)
    assert set(info.value.problems) == {
        "methods",
        "limit",
        "candidates",
        "walk.depth",
        "walk.limit",
        "walk.direction",
        "communities.top_k",
        "rerank.model",
        "rerank.community_slots",
        "fusion.k",
        "fusion.convention",
        "fusion.weights.chunk",
        "extra",
    }
    assert "BROKEN is invalid (13 problem(s))" in str(info.value)


def test_missing_required_fields() -> None:
    with pytest.raises(RecipeError) as info:
        Recipe.from_dict({"limit": 3})
    assert info.value.problems == {"name": "is required", "methods": "is required"}


@pytest.mark.parametrize(
    "recipe",
    [
        # candidates may be smaller than limit
        lambda: Recipe("X", ("chunk",), limit=20, candidates=5),
        # unknown method names fail at search time, not here
        lambda: Recipe("X", ("no_such_method",)),
        # steps can be weighted
        lambda: Recipe("X", ("entity",), fusion=FusionSettings(weights={"walk": 0.5})),
        lambda: Recipe(
            "X", ("entity",), fusion=FusionSettings(weights={"communities": 0})
        ),
        # no slots, and graph distance needs no model
        lambda: Recipe(
            "X", ("entity",), rerank=Rerank("graph_distance", community_slots=0)
        ),
        lambda: Recipe("X", ("entity",), fusion=FusionSettings(k=1)),
    ],
)
def test_valid_edge_cases(recipe: Any) -> None:
    assert isinstance(recipe(), Recipe)


@pytest.mark.parametrize(
    ("build", "problem"),
    [
        (lambda: GraphWalk(depth=0), "depth"),
        (lambda: CommunityExpansion(top_k=0), "top_k"),
        (lambda: Rerank(kind="cross_encoder"), "model"),
        (lambda: FusionSettings(k=0), "k"),
    ],
)
def test_sections_validate_on_their_own(build: Any, problem: str) -> None:
    with pytest.raises(RecipeError) as info:
        build()
    assert set(info.value.problems) == {problem}


def test_bad_toml_text() -> None:
    with pytest.raises(RecipeError) as info:
        Recipe.from_toml('name = "X\nmethods = [')
    assert "toml" in info.value.problems


# -- get ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(BUILTINS))
def test_get_is_case_insensitive(name: str) -> None:
    assert recipes.get(name) is BUILTINS[name]
    assert recipes.get(name.lower()) is BUILTINS[name]
    assert recipes.get(name.title()) is BUILTINS[name]


def test_get_unknown_lists_the_builtins() -> None:
    with pytest.raises(RecipeError) as info:
        recipes.get("FAST")
    message = str(info.value)
    for name in BUILTINS:
        assert name in message
    assert ".toml" in message


def test_get_a_path(tmp_path: Path) -> None:
    assert recipes.get(RECIPES_DIR / "examples" / "hybrid_weighted.toml").name == (
        "HYBRID_WEIGHTED"
    )
    with pytest.raises(RecipeError) as info:
        recipes.get(tmp_path / "missing.toml")
    assert "path" in info.value.problems
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "B"\nmethods = []\n', encoding="utf-8")
    with pytest.raises(RecipeError) as info:
        recipes.get(bad)
    assert set(info.value.problems) == {"methods"}
    assert "bad.toml" in str(info.value)
