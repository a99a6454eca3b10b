"""``evaluate_indexes`` / ``agrag-lab eval --index A --index B``: recipes over several indexes of one corpus."""

from __future__ import annotations

from pathlib import Path

import pytest

from agrag_lab import Graph
from agrag_lab.cli import main as cli_main
from agrag_lab.errors import EvaluationError
from agrag_lab.eval import workshop
from agrag_lab.eval.across import across_table, evaluate_indexes, system_name
from agrag_lab.eval.cli import index_labels


def test_each_recipe_runs_on_each_index_with_a_paired_test_across(workshop_graph: Graph) -> None:
    """The same index under two labels: every recipe twice, scored the same, and the test across says p = 1."""
    bench = workshop()
    bench = bench.subset(bench.judged_queries[:6])  # six queries keep it cheap
    result = evaluate_indexes({"rules": workshop_graph, "again": workshop_graph}, bench, ["CHUNK", "HYBRID"])
    names = set(result.names)
    assert {system_name(r, label) for r in ("CHUNK", "HYBRID") for label in ("rules", "again")} <= names
    assert {"bm25", "dense"} <= names and "bm25 @ again" not in names  # baselines once: they read passages only
    a, b = result.system("HYBRID @ rules"), result.system("HYBRID @ again")
    assert a.per_query == b.per_query and a.rankings == b.rankings
    assert result.config["across_indexes"]["HYBRID"]["HYBRID @ again"]["recall@5"] == 1.0
    table = across_table(result).splitlines()
    assert table[0].split()[:4] == ["recipe", "recall@5", "@", "rules"]
    hybrid = next(line for line in table if line.startswith("HYBRID"))
    assert hybrid.split()[1:] == [f"{a.mean['recall@5']:.3f}", f"{b.mean['recall@5']:.3f}", "1"]


def test_one_index_is_not_a_comparison(workshop_graph: Graph) -> None:
    with pytest.raises(EvaluationError, match="two indexes or more"):
        evaluate_indexes({"rules": workshop_graph}, workshop(), ["CHUNK"])


def test_index_labels_name_each_folder_and_refuse_a_clash() -> None:
    assert index_labels(["a=x/one", "x/two/"]) == {"a": "x/one", "two": "x/two/"}
    with pytest.raises(EvaluationError, match="LABEL=PATH"):
        index_labels(["x/ix", "y/ix"])


def test_cli_eval_over_two_indexes_prints_the_table_across(
    workshop_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = cli_main(["eval", "--benchmark", "workshop", "--index", f"rules={workshop_path}",
                     "--index", f"copy={workshop_path}", "--recipes", "CHUNK", "--no-baselines", "--queries", "4",
                     "--out", str(tmp_path / "out")])
    out = capsys.readouterr().out
    assert code == 0
    assert "CHUNK @ rules" in out and "CHUNK @ copy" in out and "p (copy vs rules)" in out
    assert (tmp_path / "out").is_dir()


def test_recipe_comparison_runs_each_recipe_on_each_graph(workshop_graph: Graph) -> None:
    from agrag_lab.widgets.comparison import ComparisonModel, RecipeComparison

    view = RecipeComparison(None, ["CHUNK"], "Who wrote the first program?",
                            graphs={"rules": workshop_graph, "again": workshop_graph})
    model = view.model
    assert model.names == ("CHUNK @ rules", "CHUNK @ again") and model.baseline == "CHUNK @ rules"
    (qid,) = model.queries
    assert model.ranked("CHUNK @ rules", qid) == model.ranked("CHUNK @ again", qid) != ()
    assert isinstance(model, ComparisonModel)
