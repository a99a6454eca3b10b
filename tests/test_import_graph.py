"""The package import graph: no cycle between packages, no lower floor importing a higher one.

Every ``import`` and ``from ... import`` in every module of ``agrag_lab`` is
read with ``ast`` (module level and inside functions). A *unit* is a
sub-package (``kg``, ``retrieval``...) or a top-level module (``graph``,
``errors``...); the graph's own sub-packages (:data:`SUB_UNITS`: ``kg.extract``,
``kg.algorithms``) are units apart from the graph model, each on its floor, and
:data:`ONLY_FROM_KG_UP` says what the algorithms, extraction and scope
compilation may read of the floors from the model up. The floors (:data:`FLOORS`, lowest first; DESIGN.md "Each
rule has one home") and the cycle check count every import: module level,
inside functions, and annotation-only ones under ``TYPE_CHECKING`` (a type a
package names is a dependency on the package that owns it). Inside the
package nothing imports from the package root ``agrag_lab`` itself (only its
sub-modules by their own names).

Below the packages, no two *modules* (of ``agrag_lab`` and of ``benchmarks``) may need each
other, however far round: :func:`module_edges` and :func:`test_no_import_loop_between_modules`.
Every kind of import counts there too: module level, ``from x import y`` (an edge to the module
``x.y`` when it is one, else to ``x``), relative, inside a function, under ``TYPE_CHECKING``, and a
string naming a module (``importlib.import_module``, a table of module names; a logger's name is
not an import). A lazy or annotation-only import does not break a loop, it hides one: the two
modules still cannot be read, tested or moved apart, which is what the loop test is for. A parent
package's ``__init__``, which Python runs before the module named, is not an edge: a package that
imports its own modules would otherwise be in a loop with each of them.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import pytest

import agrag_lab

PACKAGE = Path(agrag_lab.__file__).parent

#: Lowest floor first. A unit may import its own floor's units and lower floors, never a higher one.
FLOORS: tuple[tuple[str, ...], ...] = (
    ("errors",),
    ("ids", "serialize", "progress", "names", "limits", "rrf_conventions", "walk_methods", "imports", "extras", "model_files", "processes", "owner_files", "lazy_model"),  # lazy_model: what every local embedder shares; limits: the caps on sizes a caller chooses; names: how a chunk is shown to a person (a Protocol, no imports)
    ("documents", "embedding", "multilingual", "onnx_models", "llm"),  # multilingual: the optional multilingual embedder; onnx_models: the ONNX embedder's model files  # llm: the one OpenAI-compatible chat client (agent and kg use it)
    ("chunking", "loaders", "storage", "datasets"),
    ("kg",),  # the graph model: values, schema, scope, visibility, the GraphStore protocol, edits
    ("scope_compiler",),  # a search scope compiled to every store's filter: the graph stores and retrieval read it
    ("kg.algorithms",),  # walks, PageRank, communities: plain functions over the graph model
    ("kg.extract",),  # text to a graph: extraction, resolution, the build, extractive and LLM reports
    ("graph_stores",),  # the GraphStore implementations: in-process (networkx, its file) and FalkorDB
    ("index",),  # the index build: embedding, collection sync, keyword indexes
    ("importing",),  # GraphRAG/GraphML/LightRAG import: writes through the index build (a narrow target protocol)
    ("recipes",),  # recipe data (schema, TOML, built-ins); retrieval runs them
    ("retrieval",),  # reads an import's builder-id aliases
    ("evidence", "exporting", "curation"),  # exporting: a graph or what a search used, to files; curation: edits of an index
    ("graph", "agrag_lab", "graph_source"),  # the Graph facade, the package root; what views need of a graph
    ("charts",),  # figures of traces and of evaluation results (read through protocols)
    ("cli_options",),  # the command-line options several commands share (--falkordb, --chroma)
    ("agent", "mcp", "eval"),  # the agent, the MCP server, the evaluation harness: none reads another front end
    ("widgets",),  # the notebook views: they read evaluation results, never the lab's preparation
    ("lab", "demo", "notebook_inputs"),  # notebook_inputs: what a notebook is given (index, questions, recipes)  # the notebooks' indexes and questions; the demo
    ("lab_server", "cli", "export_cli"),  # JupyterLab started on the notebooks; the command line over everything
)
FLOOR = {unit: level for level, units in enumerate(FLOORS) for unit in units}
#: Units that, of the floors from the graph model up, may import only these (besides themselves):
#: the algorithms read the model alone; extraction never reaches a store or the scope compiler; scope
#: compilation reads the model's scope, never a store, an algorithm, extraction or retrieval.
ONLY_FROM_KG_UP: dict[str, frozenset[str]] = {
    "kg.algorithms": frozenset({"kg"}),
    "kg.extract": frozenset({"kg", "kg.algorithms"}),
    "scope_compiler": frozenset({"kg"}),
}
#: Cycles known and being removed elsewhere, each with where. Keep this empty otherwise:
#: a listed cycle that no longer exists fails test_known_cycles_still_exist.
KNOWN_CYCLES: frozenset[frozenset[str]] = frozenset()


#: Sub-packages that are units of their own (a floor apart from their parent package's modules).
SUB_UNITS = frozenset({"kg.algorithms", "kg.extract"})


def _unit(module: str) -> str:
    parts = module.split(".")
    if len(parts) > 2 and ".".join(parts[1:3]) in SUB_UNITS:
        return ".".join(parts[1:3])
    return parts[1] if len(parts) > 1 else "agrag_lab"


def _module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _type_checking_only(tree: ast.Module) -> set[int]:
    """``id``s of the import nodes under ``if TYPE_CHECKING:`` (annotations only, never run)."""
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and (
            (isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING")
            or (isinstance(node.test, ast.Attribute) and node.test.attr == "TYPE_CHECKING")
        ):
            out |= {id(n) for stmt in node.body for n in ast.walk(stmt)}
    return out


#: Every module of the package by its dotted name (a string naming one is a dynamic import).
MODULES = frozenset(
    ".".join(p.relative_to(PACKAGE.parent).with_suffix("").parts[: -1 if p.name == "__init__.py" else None])
    for p in PACKAGE.rglob("*.py")
)
#: Names a ``from agrag_lab import NAME`` may use for a sub-module or sub-package (else NAME is the root's own).
SUBMODULES = frozenset(m.split(".")[1] for m in MODULES if "." in m)


def _imports(path: Path) -> list[tuple[str, int, bool]]:
    """``(imported module, line, runs)`` of every agrag_lab import in a file (relative ones resolved)."""
    module = _module_name(path)
    return imports_in(path.read_text(encoding="utf-8"), module, package=path.name == "__init__.py", name=str(path))


def imports_in(source: str, module: str, *, package: bool = False, name: str = "<source>") -> list[tuple[str, int, bool]]:
    """``(imported module, line, runs)`` of every agrag_lab import in ``source``, the text of ``module``.

    Every kind counts: module level, inside functions, under ``if TYPE_CHECKING:``
    (``runs`` False), relative, ``from agrag_lab import NAME`` of a root name
    (an import of the root, ``agrag_lab``), and a string constant naming one of
    the package's modules (``importlib.import_module("agrag_lab.mcp.cli")``,
    a table of such names).
    """
    parent = module.split(".") if package else module.split(".")[:-1]
    tree = ast.parse(source, name)
    typing_only = _type_checking_only(tree)
    out: list[tuple[str, int, bool]] = []
    for node in ast.walk(tree):
        runs = id(node) not in typing_only
        if isinstance(node, ast.Import):
            out += [(a.name, node.lineno, runs) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = parent[: len(parent) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            # ``from agrag_lab import kg`` imports the sub-package kg; ``from agrag_lab import Graph`` the root
            out += [
                (f"{target}.{a.name}" if target == "agrag_lab" and a.name in SUBMODULES else target, node.lineno, runs)
                for a in node.names
            ]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in MODULES - {"agrag_lab"}:
            out.append((node.value, node.lineno, runs))  # a module imported by name at run time
    return [imp for imp in out if imp[0].split(".")[0] == "agrag_lab"]


def import_edges(*, type_checking: bool = True) -> dict[tuple[str, str], list[str]]:
    """``{(importer unit, imported unit): ["file:line", ...]}`` across units.

    ``type_checking=False`` leaves out imports under ``if TYPE_CHECKING:``.
    """
    edges: dict[tuple[str, str], list[str]] = defaultdict(list)
    for path in sorted(PACKAGE.rglob("*.py")):
        source = _unit(_module_name(path))
        for name, line, runs in _imports(path):
            target = _unit(name)
            if not (runs or type_checking):
                continue
            where = f"{path.relative_to(PACKAGE.parent)}:{line}"
            if target != source and where not in edges[(source, target)]:
                edges[(source, target)].append(where)
    return dict(edges)


def cycles(edges: dict[tuple[str, str], list[str]]) -> list[list[str]]:
    """Strongly connected groups of more than one unit (Tarjan), each sorted."""
    graph: dict[str, set[str]] = defaultdict(set)
    for a, b in edges:
        if a != b:
            graph[a].add(b)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


#: The packages whose modules the loop test reads, beside the library itself.
LOOP_ROOTS = (PACKAGE, PACKAGE.parent / "benchmarks")
#: Module loops known and being removed elsewhere. Keep this empty otherwise: a listed loop that no longer
#: exists fails test_known_module_loops_still_exist.
KNOWN_MODULE_LOOPS: frozenset[frozenset[str]] = frozenset()


def _modules(roots: tuple[Path, ...] = LOOP_ROOTS) -> dict[str, Path]:
    """Every module under ``roots`` by its dotted name (a package by its own name, for its ``__init__``)."""
    out: dict[str, Path] = {}
    for root in roots:
        for path in sorted(root.rglob("*.py")):
            parts = list(path.relative_to(root.parent).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
    return out


def module_imports(source: str, module: str, modules: frozenset[str], *, package: bool = False) -> set[str]:
    r"""The modules of ``modules`` that ``source`` (the text of ``module``) imports, by every kind of import.

    Examples
    --------
    >>> known = frozenset({"p", "p.a", "p.b", "p.c", "p.d", "p.e"})
    >>> sorted(module_imports(
    ...     "import p.a\nfrom p import b, NAME\nfrom . import c\nif TYPE_CHECKING:\n    from .d import T\n"
    ...     "def f():\n    import_module('p.e')\nlog = getLogger('p.a.b')\n", "p.z", known))
    ['p', 'p.a', 'p.b', 'p.c', 'p.d', 'p.e']
    """
    parent = module.split(".") if package else module.split(".")[:-1]
    tree = ast.parse(source)
    loggers = {
        id(arg) for node in ast.walk(tree) if isinstance(node, ast.Call)
        and (getattr(node.func, "attr", None) == "getLogger" or getattr(node.func, "id", None) == "getLogger")
        for arg in node.args
    }
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = ".".join(parent[: len(parent) - node.level + 1] + ([node.module] if node.module else [])) \
                if node.level else node.module or ""
            out |= {f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names}
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in loggers \
                and "." in node.value and node.value in modules:
            out.add(node.value)
    return {m for m in out if m in modules and m != module}


def module_edges() -> dict[tuple[str, str], str]:
    """``{(importer, imported): "file"}`` between the modules of :data:`LOOP_ROOTS`."""
    modules = _modules()
    known = frozenset(modules)
    return {
        (name, target): str(path.relative_to(PACKAGE.parent))
        for name, path in modules.items()
        for target in module_imports(path.read_text(encoding="utf-8"), name, known,
                                     package=path.name == "__init__.py")
    }


def test_no_import_loop_between_modules() -> None:
    edges = module_edges()
    found = [c for c in cycles({e: [] for e in edges}) if frozenset(c) not in KNOWN_MODULE_LOOPS]
    detail = [" <-> ".join(c) + ": " + "; ".join(f"{a} -> {b}" for a, b in sorted(edges) if a in c and b in c)
              for c in found]
    assert not found, f"{len(found)} import loop(s) between modules:\n" + "\n".join(detail)


def test_known_module_loops_still_exist() -> None:
    found = {frozenset(c) for c in cycles({e: [] for e in module_edges()})}
    gone = [sorted(c) for c in KNOWN_MODULE_LOOPS if c not in found]
    assert not gone, f"these loops are gone; remove them from KNOWN_MODULE_LOOPS: {gone}"


def test_the_loop_test_sees_a_loop_through_lazy_and_annotation_only_imports() -> None:
    known = frozenset({"p.result", "p.marks"})
    edges = {
        ("p.result", target): "" for target in module_imports(
            "def marks(self):\n    from p.marks import result_marks\n", "p.result", known)
    } | {
        ("p.marks", target): "" for target in module_imports(
            "if TYPE_CHECKING:\n    from p.result import EvalResult\n", "p.marks", known)
    }
    assert cycles({e: [] for e in edges}) == [["p.marks", "p.result"]]


def test_every_unit_has_a_floor() -> None:
    units = {_unit(_module_name(p)) for p in PACKAGE.rglob("*.py")}
    missing = sorted(units - set(FLOOR))
    assert not missing, f"give these units a floor in FLOORS: {missing}"


def test_no_lower_floor_imports_a_higher_one() -> None:
    wrong = [
        f"{a} (floor {FLOOR[a]}) imports {b} (floor {FLOOR[b]}) at {', '.join(where)}"
        for (a, b), where in sorted(import_edges().items())
        if FLOOR[a] < FLOOR[b] and frozenset({a, b}) not in KNOWN_CYCLES
    ]
    assert not wrong, "\n".join(wrong)


def beyond_what_they_may_read(edges: dict[tuple[str, str], list[str]]) -> list[str]:
    """The imports of :data:`ONLY_FROM_KG_UP`'s units that reach, from the graph model up, a unit they may not read."""
    return [
        f"{a} imports {b} at {', '.join(where)}: it may import only {sorted(ONLY_FROM_KG_UP[a])} from the graph model up"
        for (a, b), where in sorted(edges.items())
        if a in ONLY_FROM_KG_UP and FLOOR[b] >= FLOOR["kg"] and b not in ONLY_FROM_KG_UP[a]
    ]


def test_graph_packages_import_only_what_they_may_read() -> None:
    wrong = beyond_what_they_may_read(import_edges())
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize(
    ("edge", "allowed"),
    [
        (("kg.algorithms", "kg"), True),
        (("kg.algorithms", "scope_compiler"), False),  # a lower floor, still not the model
        (("kg.extract", "kg.algorithms"), True),
        (("kg.extract", "scope_compiler"), False),
        (("scope_compiler", "kg"), True),
        (("scope_compiler", "storage"), True),  # below the graph model: any
        (("graph_stores", "scope_compiler"), True),  # not a restricted unit
    ],
)
def test_what_the_graph_packages_may_read(edge: tuple[str, str], allowed: bool) -> None:
    assert (not beyond_what_they_may_read({edge: ["x.py:1"]})) is allowed


def test_the_graph_packages_are_units_of_their_own() -> None:
    assert _unit("agrag_lab.kg.extract.rules") == "kg.extract"
    assert _unit("agrag_lab.kg.algorithms") == "kg.algorithms"
    assert _unit("agrag_lab.kg.model") == "kg"
    assert _unit("agrag_lab.graph_stores.falkordb.store") == "graph_stores"
    assert ("graph_stores", "kg.extract") in import_edges()  # the streamed FalkorDB build runs the extraction's steps


def test_no_cycle_between_packages() -> None:
    # every import counts: module level, function level and annotation-only (TYPE_CHECKING)
    edges = import_edges()
    found = [c for c in cycles(edges) if frozenset(c) not in KNOWN_CYCLES]
    detail = [
        f"{' <-> '.join(c)}: "
        + "; ".join(f"{a}->{b} at {', '.join(w)}" for (a, b), w in sorted(edges.items()) if a in c and b in c)
        for c in found
    ]
    assert not found, "\n".join(detail)


def test_known_cycles_still_exist() -> None:
    found = {frozenset(c) for c in cycles(import_edges())}
    gone = [sorted(c) for c in KNOWN_CYCLES if c not in found]
    assert not gone, f"these cycles are gone; remove them from KNOWN_CYCLES: {gone}"


@pytest.mark.parametrize(
    ("edges", "expected"),
    [
        ({("a", "b"): ["x"], ("b", "a"): ["y"]}, [["a", "b"]]),
        ({("a", "b"): ["x"], ("b", "c"): ["y"], ("c", "a"): ["z"]}, [["a", "b", "c"]]),
        ({("a", "b"): ["x"], ("b", "c"): ["y"]}, []),
    ],
)
def test_the_cycle_finder_finds_cycles(edges: dict[tuple[str, str], list[str]], expected: list[list[str]]) -> None:
    assert cycles(edges) == expected


def test_lazy_and_annotation_only_imports_are_told_apart() -> None:
    every, running = import_edges(), import_edges(type_checking=False)
    assert ("retrieval", "index") in running  # retrieval/store.py reads the index build
    assert ("graph", "evidence") in running  # a lazy import inside Graph.evidence
    assert ("evidence", "retrieval") in every  # SearchEngine named in annotations
    only_typed = set(every) - set(running)
    assert only_typed, "some import under TYPE_CHECKING should be counted by import_edges() alone"


def _root_imports(source: str) -> list[int]:
    """Lines that import the package root's own names (``import agrag_lab``, ``from agrag_lab import Graph``).

    ``from agrag_lab import recipes`` names a sub-module and is not one.
    """
    submodules = {p.stem for p in PACKAGE.glob("*.py")} | {p.name for p in PACKAGE.iterdir() if p.is_dir()}
    out: list[int] = []
    for node in ast.walk(ast.parse(source)):
        if (isinstance(node, ast.Import) and any(a.name == "agrag_lab" for a in node.names)) or (
            isinstance(node, ast.ImportFrom) and node.module == "agrag_lab" and not node.level
            and any(a.name not in submodules for a in node.names)
        ):
            out.append(node.lineno)
    return sorted(out)


def test_nothing_inside_the_package_imports_from_its_root() -> None:
    found = [
        f"{path.relative_to(PACKAGE.parent)}:{line}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if path != PACKAGE / "__init__.py"
        for line in _root_imports(path.read_text(encoding="utf-8"))
    ]
    assert not found, f"import these names from the module that defines them, not from agrag_lab: {found}"


def test_the_root_import_check_tells_names_from_modules() -> None:
    source = "from agrag_lab import recipes\nfrom agrag_lab import Graph\nimport agrag_lab\ndef f():\n    from agrag_lab import Scope\n"
    assert _root_imports(source) == [2, 3, 5]


def test_every_import_kind_is_counted() -> None:
    source = (
        "import importlib\n"
        "from typing import TYPE_CHECKING\n"
        "from agrag_lab.kg.scope import GraphScope\n"  # 3: module level
        "from agrag_lab import Graph\n"  # 4: a root name: the root
        "from agrag_lab import recipes\n"  # 5: a sub-package by the root
        "from ..index import build\n"  # 6: relative
        "if TYPE_CHECKING:\n"
        "    from agrag_lab.evidence.session import EvidenceSession\n"  # 8: annotations only
        "def f():\n"
        "    from agrag_lab.charts import figures\n"  # 10: inside a function
        "    return importlib.import_module('agrag_lab.mcp.cli')\n"  # 11: by name at run time
    )
    found = imports_in(source, "agrag_lab.retrieval.engine")
    assert sorted(found, key=lambda f: f[1]) == [
        ("agrag_lab.kg.scope", 3, True),
        ("agrag_lab", 4, True),
        ("agrag_lab.recipes", 5, True),
        ("agrag_lab.index", 6, True),
        ("agrag_lab.evidence.session", 8, False),
        ("agrag_lab.charts", 10, True),
        ("agrag_lab.mcp.cli", 11, True),
    ]
    assert {_unit(name) for name, _, _ in found} == {"kg", "agrag_lab", "recipes", "index", "evidence", "charts", "mcp"}


def test_a_module_named_in_a_string_is_an_import() -> None:
    assert ("cli", "mcp") in import_edges()  # agrag_lab/cli.py imports its extension commands by name
