"""Ordinary mistakes are clear errors, never tracebacks: the exact inputs, through the real CLI and the API.

Each CLI case runs ``python -m agrag_lab.cli`` in a subprocess and checks the
exit code (2), the message (what was wrong, how to fix it) and that no
traceback was printed. Caps come from :mod:`agrag_lab.limits`.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from agrag_lab import Graph, recipes
from agrag_lab.errors import AgragError, DocumentError, EvidenceTypeError, RecipeError, SearchArgumentError
from agrag_lab.limits import MAX_RESULTS
from agrag_lab.recipes import HYBRID, Recipe

DEEP = "a = " + "[" * 5000 + "]" * 5000 + "\n"
NOT_UTF8 = b'name = "MINE"\nmethods = ["chunk"]\ndescription = "caf\xe9 \xff"\n'


def agrag(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "ANONYMIZED_TELEMETRY": "False"}
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[1])
    return subprocess.run(
        [sys.executable, "-m", "agrag_lab.cli", *map(str, args)],
        capture_output=True, text=True, timeout=600, env=env, cwd=cwd, stdin=subprocess.DEVNULL,
    )


def refused(done: subprocess.CompletedProcess[str], *needles: str) -> None:
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    assert "Traceback" not in done.stderr, done.stderr
    for needle in needles:
        assert needle in done.stderr, done.stderr


def test_an_empty_query(workshop_path: Path, workshop_graph: Graph, tmp_path: Path) -> None:
    refused(agrag("search", "", "--index", workshop_path, cwd=tmp_path),
            "agrag-lab search: the query is empty; give the question or keywords to search for")
    with pytest.raises(SearchArgumentError, match="the query is empty"):
        workshop_graph.engine().run("", HYBRID)


def test_chunk_size_zero_creates_nothing(tmp_path: Path) -> None:
    (tmp_path / "note.md").write_text("# Note\n\nAda met Babbage.\n", encoding="utf-8")
    refused(agrag("ingest", "note.md", "--index", "ix", "--chunk-size", "0", cwd=tmp_path),
            "argument --chunk-size: must be an integer >= 20 (got 0); it is the most characters per chunk")
    assert not (tmp_path / "ix").exists()
    with pytest.raises(DocumentError, match=r"chunk_size must be an integer >= 20 \(got 0\).*between 20 and 100000"):
        Graph.open(tmp_path / "api", chunk_size=0)
    assert not (tmp_path / "api").exists()


def test_a_recipe_file_that_is_not_utf8(tmp_path: Path) -> None:
    (tmp_path / "mine.toml").write_bytes(NOT_UTF8)
    refused(agrag("search", "Ada", "--recipe", "mine.toml", "--index", "no-index", cwd=tmp_path),
            "'mine.toml' is not UTF-8 text (byte 0xe9 at offset 52); TOML files are UTF-8: save it as UTF-8")
    with pytest.raises(RecipeError, match="not UTF-8 text") as caught:
        recipes.get(tmp_path / "mine.toml")
    assert set(caught.value.problems) == {"path"}


def test_a_recipe_nested_5000_deep(tmp_path: Path) -> None:
    (tmp_path / "deep.toml").write_text(DEEP, encoding="utf-8")
    refused(agrag("search", "Ada", "--recipe", "deep.toml", "--index", "no-index", cwd=tmp_path),
            "toml: nests tables or arrays deeper than 10 levels")
    with pytest.raises(RecipeError, match="deeper than 10 levels"):
        Recipe.load(tmp_path / "deep.toml")
    with pytest.raises(RecipeError, match="deeper than 10 levels"):  # parses, but past the cap
        Recipe.from_toml('name = "X"\nmethods = ["chunk"]\nx = ' + "[" * 11 + "]" * 11)
    assert Recipe.from_toml('name = "X"\nmethods = ["chunk"]\n[fusion.weights]\nchunk = 2.0').fusion.weights


def test_a_huge_recipe_file(tmp_path: Path) -> None:
    (tmp_path / "big.toml").write_text('name = "X"\nmethods = ["chunk"]\n' + "# padding\n" * 200_000, encoding="utf-8")
    with pytest.raises(RecipeError, match="2,000,031 bytes, more than the 1,000,000 a recipe may have"):
        Recipe.load(tmp_path / "big.toml")


def test_limits_are_capped(tmp_path: Path) -> None:
    refused(agrag("search", "Ada", "--limit", "100000000", "--index", "no-index", cwd=tmp_path),
            "argument --limit: must be at most 1000 (got 100000000); it is how many results the search returns")
    refused(agrag("search", "Ada", "--limit", "0", "--index", "no-index", cwd=tmp_path),
            "argument --limit: must be an integer >= 1 (got 0)")
    refused(agrag("graph", "--top", "-1", "--index", "no-index", cwd=tmp_path), "argument --top: must be an integer >= 1")
    refused(agrag("mcp", "--index", "no-index", "--session-idle-timeout", "0", cwd=tmp_path),
            "argument --session-idle-timeout: must be a number of seconds above 0")
    with pytest.raises(RecipeError, match=f"limit: must be at most {MAX_RESULTS} \\(got 100000000\\)"):
        HYBRID.replace(limit=100_000_000)
    with pytest.raises(RecipeError) as caught:
        Recipe("BIG", ("chunk",), candidates=10**9, walk={"depth": 50, "limit": 10**6})
    assert set(caught.value.problems) == {"candidates", "walk.depth", "walk.limit"}
    assert isinstance(caught.value, AgragError)


@pytest.mark.parametrize("command", [["remove", "ada"], ["repair"], ["graph", "--extractor", "rules"]])
def test_a_mistyped_index_folder_is_refused_never_made(tmp_path: Path, command: list[str]) -> None:
    """Each of these changes an existing index: a typo in --index made a new empty one and said it was done."""
    typo = tmp_path / "idnex"
    done = agrag(*command, "--index", typo, cwd=tmp_path)
    refused(done, f"{typo} holds no index yet (documents.sqlite missing): check the path, or ingest documents first")
    assert not typo.exists()


@pytest.mark.parametrize(("kind", "source", "message"), [
    ("graphrag", "missing", "is not a folder; pass the GraphRAG output folder"),
    ("graphml", "notes.md", "cannot be read as GraphML"),
])
def test_a_bad_import_source_makes_no_index_folder(tmp_path: Path, kind: str, source: str, message: str) -> None:
    (tmp_path / "notes.md").write_text("# Notes\n\nNot a graph.\n")
    done = agrag("import", kind, tmp_path / source, "--index", tmp_path / "ix", cwd=tmp_path)
    refused(done, message)
    assert not (tmp_path / "ix").exists()  # was: an empty index folder left behind by the failed import


def test_a_mistyped_document_id_is_refused_not_an_empty_answer(workshop_path: Path, tmp_path: Path) -> None:
    done = agrag("search", "Who built the loom?", "--document", "jacqard", "--index", workshop_path, cwd=tmp_path)
    refused(done, "--document 'jacqard': no such current document in", "its documents are ")
    assert "Jacquard" not in done.stdout


def test_api_calls_with_the_wrong_kind_of_argument_say_what_to_pass(workshop_graph: Graph) -> None:
    """Each was a bare AttributeError or TypeError from deep inside the library."""
    engine = workshop_graph.engine()
    with pytest.raises(SearchArgumentError, match=r"recipe must be a Recipe, not str: .*recipes.get\('HYBRID'\)"):
        engine.run("Who built the loom?", "HYBRID")  # type: ignore[arg-type]
    missing = engine.find_entity("zzqqxx")
    assert missing is None
    with pytest.raises(SearchArgumentError, match="seed is None: find_entity found no entity of that name"):
        engine.traverse(missing)  # type: ignore[arg-type]
    with pytest.raises(SearchArgumentError, match=r"seed must be a SearchResult of an entity .* not str"):
        engine.traverse("ent-ada-lovelace")  # type: ignore[arg-type]
    session = workshop_graph.evidence()
    with pytest.raises(EvidenceTypeError, match="takes an answer text or a list of evidence ids, not int"):
        session.check_citations(5)  # type: ignore[arg-type]
    with pytest.raises(EvidenceTypeError, match="not bytes; decode the bytes first"):
        session.check_citations(b"ada-lovelace@0123456789ab#c0")


@pytest.mark.parametrize(("args", "message"), [
    (["--queries", "0"], "argument --queries: must be an integer >= 1 (got 0); it is how many judged queries"),
    (["--queries", "-3"], "argument --queries: must be an integer >= 1 (got -3)"),  # was: all but the last 3
    (["--corpus", "0"], "argument --corpus: must be an integer >= 1 (got 0)"),
    (["--per-hit", "0"], "argument --per-hit: must be an integer >= 1 (got 0)"),
    (["--out", "/proc/no-reports-here"], "cannot write the report into /proc/no-reports-here"),  # was: a traceback
])
def test_eval_arguments_are_checked_before_anything_runs(tmp_path: Path, args: list[str], message: str) -> None:
    done = agrag("eval", "--benchmark", "workshop", "--index", tmp_path / "ix", *args, cwd=tmp_path)
    refused(done, message)
    assert not (tmp_path / "ix").exists()  # nothing was ingested
