"""The command line's sub-commands, including those of other modules."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from agrag_lab import cli


def test_every_extension_registers_its_sub_command() -> None:
    parser = cli.build_parser()
    choices = next(a for a in parser._actions if a.dest == "command").choices
    assert choices is not None
    for command, _module in cli.EXTENSIONS:
        assert command in choices
    args = parser.parse_args(["lab", "--port", "8899", "--no-musique", "--prepare-only"])
    assert args.func.__module__ == "agrag_lab.lab_server"


def test_search_starts_without_torch_or_the_extensions(workshop_path: Path) -> None:
    """A built-in command imports no extension module, and the bundled model runs on ONNX Runtime.

    Nor what it never uses: numba (bm25s's JIT backend, never turned on), the data-frame and chart
    libraries, chromadb (a read-only search of a local index ranks the cached embeddings) and so
    jsonschema's IRI checker; networkx (the graph's networkx view is built on first use, and no search
    uses it), the LLM client and pydantic (no model is configured), the TOML writer, scipy (HYBRID walks
    no graph), and bm25s with its scipy.sparse and tqdm (a query is scored over the saved matrix with numpy);
    nor the graph's extraction and build modules (a search reads a built graph).
    """
    heavy = ("torch", "sentence_transformers", "transformers", "agrag_lab.eval.harness", "agrag_lab.agent.core",
             "agrag_lab.mcp.server", "numba", "pandas", "polars", "plotly", "ranx", "sklearn", "rfc3987_syntax",
             "chromadb", "networkx", "agrag_lab.llm", "pydantic", "tomli_w", "scipy", "bm25s", "tqdm",
             "agrag_lab.kg.extract.build", "agrag_lab.kg.extract.extraction", "agrag_lab.kg.extract.pipeline")
    code = (
        "import sys; from agrag_lab.cli import main; "
        f"code = main(['search', 'Who built the loom?', '--index', {str(workshop_path)!r}]); "
        f"print('LOADED', code, [m for m in {heavy!r} if m in sys.modules])"
    )
    env = {k: v for k, v in os.environ.items() if k != "AGRAG_LAB_TORCH"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600, env=env, check=True)
    assert "Jacquard" in done.stdout
    assert done.stdout.strip().splitlines()[-1] == "LOADED 0 []"


def test_reading_a_recipe_imports_no_graph_code() -> None:
    """A recipe names its walk's PageRank method without importing the walk (nor networkx, scipy, bm25s)."""
    heavy = ("agrag_lab.kg", "agrag_lab.graph_stores", "agrag_lab.scope_compiler", "agrag_lab.retrieval", "networkx", "scipy", "bm25s", "chromadb")
    code = (
        "import sys; from agrag_lab import recipes; "
        "walk = recipes.RECOMMENDED.walk; "
        f"print(walk.pagerank, recipes.PAGERANK_METHODS, [m for m in {heavy!r} if m in sys.modules])"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600, check=True)
    assert done.stdout.strip() == "push ('push', 'power') []"


def test_a_broken_module_keeps_its_sub_command_and_shows_the_real_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "broken_extension.py").write_text("import no_such_package_for_agrag_tests\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(cli, "EXTENSIONS", (*cli.EXTENSIONS, ("broken", "broken_extension")))
    parser = cli.build_parser()
    assert "broken" in parser.format_help()
    assert "no_such_package_for_agrag_tests" in parser.format_help()
    with pytest.raises(ModuleNotFoundError, match="no_such_package_for_agrag_tests"):
        cli.main(["broken", "--any", "args"])
    assert "agrag-lab broken: cannot import broken_extension" in capsys.readouterr().err
    sys.modules.pop("broken_extension", None)


def test_search_names_each_result_as_the_widgets_do_with_its_id_in_a_column(
    workshop_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from agrag_lab import Graph, recipes
    from agrag_lab.names import display_name

    assert cli.main(["search", "Who worked with Babbage?", "--recipe", "CHUNK", "--limit", "5",
                     "--index", str(workshop_path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1].split() == ["#", "kind", "score", "name", "id"]
    with Graph.open(workshop_path, read_only=True) as graph:
        run = graph.engine().run("Who worked with Babbage?", recipes.CHUNK.replace(limit=5))
    rows = out[2::2]
    assert len(rows) == 5
    names = []
    for line, r in zip(rows, run.results, strict=True):
        name = display_name(r.kind, r.title, key=r.id, heading_path=tuple(r.heading_path), text=r.text)
        assert name in line and line.rstrip().endswith(r.id)  # "title > heading #c3", then the id's column
        assert r.id not in out[out.index(line) + 1]  # the text line under it holds no id
        names.append(name)
    assert len(set(names)) == len(names)  # no two passages look alike


def test_python_m_agrag_lab_mcp_is_the_mcp_command(capsys: pytest.CaptureFixture[str]) -> None:
    # its own entry point (not through agrag_lab.cli, which imports agrag_lab.mcp: no cycle), the same options
    from agrag_lab.mcp.cli import main as mcp_main

    with pytest.raises(SystemExit) as done:
        mcp_main(["--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: agrag-lab mcp") and "--transport" in out and "--scope-documents" in out
    with pytest.raises(SystemExit) as refused:
        mcp_main(["--workers", "0"])
    assert refused.value.code == 2 and "--workers" in capsys.readouterr().err
