"""A recipe that reads only community reports, on an index with none, says so (issue 42).

THEMATIC and GRAPHRAG_GLOBAL returned nothing with ``status ok`` and no word.
Now the ledger (``trace.warnings``), the ``search`` tool and the CLI say the
recipe had nothing to read, and a recipe with something to read says nothing.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from agrag_lab import Document, Graph, recipes
from agrag_lab.embedding import SentenceTransformerEmbedder
from agrag_lab.evidence import Scope
from agrag_lab.evidence.tools import run_tool

ROOT = Path(__file__).resolve().parents[2]
REPORT_ONLY = ("THEMATIC", "GRAPHRAG_GLOBAL")
#: Text that names no entity and relates none: the graph has no community, so no report.
PLAIN = [
    Document("rain", "Rain", "# Rain\n\nrain fell on the harbour all week and the boats stayed in.\n"),
    Document("tide", "Tide", "# Tide\n\nthe tide came in twice a day over the grey sand.\n"),
]


@pytest.fixture(scope="module")
def plain(tmp_path_factory: pytest.TempPathFactory, embedder: SentenceTransformerEmbedder) -> Iterator[Graph]:
    path = tmp_path_factory.mktemp("no-reports") / "ix"
    with Graph.open(path, embedder=embedder) as graph:
        graph.ingest(PLAIN)
    graph = Graph.open(path, embedder=embedder, read_only=True)
    assert graph.graph_store.reports() == []  # the premise: this index holds no community report
    yield graph
    graph.close()


@pytest.mark.parametrize("name", REPORT_ONLY)
def test_the_ledger_warns_when_a_report_recipe_has_nothing_to_read(plain: Graph, name: str) -> None:
    run = plain.engine().run("boats in the harbour", recipes.get(name))
    assert not run.results
    assert any("no community reports" in w and name in w for w in run.trace.warnings), run.trace.warnings
    assert run.trace.to_dict()["warnings"] == list(run.trace.warnings)  # kept in the serialised ledger


def test_a_recipe_with_passages_to_read_does_not_warn(plain: Graph) -> None:
    run = plain.engine().run("boats in the harbour", recipes.get("CHUNK"))
    assert run.results and not run.trace.warnings


@pytest.mark.parametrize("name", REPORT_ONLY)
def test_the_search_tool_returns_the_warning(plain: Graph, name: str) -> None:
    unrestricted = run_tool(plain.evidence(), "search", {"query": "boats", "recipe": name})
    assert unrestricted["results"] == [] and any("no community reports" in w for w in unrestricted["warnings"])
    scoped = run_tool(plain.evidence(Scope(document_ids=frozenset({"rain"}))), "search",
                      {"query": "boats", "recipe": name})
    assert scoped["results"] == [] and any("no report is visible in this scope" in w for w in scoped["warnings"])
    passages = run_tool(plain.evidence(), "search", {"query": "boats", "recipe": "HYBRID"})
    assert passages["results"] and passages["warnings"] == []


def test_the_cli_prints_the_warning(plain: Graph) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "agrag_lab.cli", "search", "boats", "--index", str(plain.path), "--recipe", "thematic"],
        capture_output=True, text=True, env=env, check=False, timeout=600,
    )
    assert done.returncode == 0, done.stderr
    assert "warning: recipe 'THEMATIC' reads community reports" in done.stderr
