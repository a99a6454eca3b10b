"""The read path depends on the index's read protocol, never on its build, and keeps no per-run state.

Search reads an opened index through :class:`~agrag_lab.index.reading.IndexReader`
(which :class:`~agrag_lab.index.build.IndexBuild` implements): no module of
``agrag_lab.retrieval`` imports ``agrag_lab.index.build``, at module level, inside
a function or for annotations only. The engine reads its stores once per run and
passes them down, so a run leaves the engine as it found it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import agrag_lab
from agrag_lab import Graph
from agrag_lab.index.build import IndexBuild
from agrag_lab.index.reading import READS, IndexReader
from agrag_lab.recipes import GRAPH_EXPAND, HYBRID
from agrag_lab.retrieval.engine import SearchEngine

PACKAGE = Path(agrag_lab.__file__).parent


def _imports(path: Path) -> set[str]:
    """Every module ``path`` imports (``from X import Y`` counts X and X.Y), wherever the import stands."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            found |= {node.module, *(f"{node.module}.{a.name}" for a in node.names)}
    return found


def test_nothing_in_retrieval_imports_the_index_build() -> None:
    offenders = {str(p.relative_to(PACKAGE)): sorted(m for m in _imports(p) if m.startswith("agrag_lab.index.build"))
                 for p in (PACKAGE / "retrieval").rglob("*.py")}
    assert {p: m for p, m in offenders.items() if m} == {}
    # the read protocol it uses instead is the one place the reads are named
    assert any("agrag_lab.index.reading" in _imports(p) for p in (PACKAGE / "retrieval").rglob("*.py"))


def test_the_entity_api_does_not_import_the_engine_that_holds_it() -> None:
    assert not {m for m in _imports(PACKAGE / "retrieval" / "entity_api.py") if m.startswith("agrag_lab.retrieval.engine")
                and not m.startswith("agrag_lab.retrieval.engine_store")}


def test_the_build_implements_the_read_protocol(workshop_graph: Graph) -> None:
    reader: IndexReader = workshop_graph._build  # checked by mypy: IndexBuild is an IndexReader
    assert isinstance(reader, IndexBuild) and set(READS) <= set(dir(IndexBuild))
    graph = reader.graph()
    assert graph is reader.graph() and graph.graph.entities  # loaded once, the same object until a write
    store = workshop_graph.graph_store
    assert store.backend is graph  # the search store holds the build's graph


def test_a_run_leaves_the_engine_as_it_found_it(workshop_graph: Graph) -> None:
    engine = SearchEngine(
        graph_store=workshop_graph.graph_store, embedder=workshop_graph.embedder,
        vector_store=workshop_graph.vector_store, refresh=lambda: (workshop_graph.graph_store, workshop_graph.vector_store),
    )
    before = dict(vars(engine))
    first = engine.run("Who wrote the first program?", HYBRID)
    engine.run("Who designed the Analytical Engine?", GRAPH_EXPAND)
    assert first.results and {k: v for k, v in vars(engine).items() if k != "_rerankers"} == {
        k: v for k, v in before.items() if k != "_rerankers"}
    assert engine.run("Who wrote the first program?", HYBRID).results == first.results
