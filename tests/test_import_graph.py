"""The package import graph: no cycle between packages, no lower floor importing a higher one.

Every ``import`` and ``from ... import`` in every module of ``agrag_lab`` is
read with ``ast`` (module level and inside functions). A *unit* is a
sub-package (``kg``, ``retrieval``...) or a top-level module (``graph``,
``errors``...). The floors (:data:`FLOORS`, lowest first; DESIGN.md "Each
rule has one home") bind every import, annotation-only ones under
``TYPE_CHECKING`` too; the cycle check reads the imports that run (an
annotation-only import is no import cycle, as in import-linter's
``exclude_type_checking_imports``).
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
    ("ids", "serialize", "progress", "names", "limits"),  # limits: the caps on sizes a caller chooses; names: how a chunk is shown to a person (a Protocol, no imports)
    ("documents", "embedding", "llm"),  # llm: the one OpenAI-compatible chat client (agent and kg use it)
    ("chunking", "loaders", "storage", "datasets"),
    ("kg",),  # pure functions over graph values and stores
    ("index",),  # the index build: embedding, collection sync, keyword indexes
    ("retrieval", "recipes"),  # recipes.py is retrieval's recipe data, at top level for its public name
    ("evidence",),
    ("graph", "importing", "agrag_lab"),  # the Graph facade, its GraphRAG/GraphML import (writes through Graph.write_index), the package root
    ("agent", "mcp", "eval", "charts", "widgets", "cli", "demo", "lab", "agent_bench"),
)
FLOOR = {unit: level for level, units in enumerate(FLOORS) for unit in units}
#: Units that share one floor and are one unit for the cycle check.
SAME_UNIT = {"recipes": "retrieval"}
#: Cycles known and being removed elsewhere, each with where. Keep this empty otherwise:
#: a listed cycle that no longer exists fails test_known_cycles_still_exist.
KNOWN_CYCLES: frozenset[frozenset[str]] = frozenset()


def _unit(module: str) -> str:
    parts = module.split(".")
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


def _imports(path: Path) -> list[tuple[str, int, bool]]:
    """``(imported module, line, runs)`` of every agrag_lab import in a file (relative ones resolved).

    ``runs`` is False for an import under ``if TYPE_CHECKING:``.
    """
    module = _module_name(path)
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    typing_only = _type_checking_only(tree)
    out: list[tuple[str, int, bool]] = []
    for node in ast.walk(tree):
        runs = id(node) not in typing_only
        if isinstance(node, ast.Import):
            out += [(a.name, node.lineno, runs) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module or ""
            # ``from agrag_lab import kg`` imports the sub-package kg
            out += [(f"{name}.{a.name}" if name == "agrag_lab" else name, node.lineno, runs) for a in node.names]
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
            if not (runs or type_checking) or (target not in FLOOR and name.split(".")[-1] != target):
                continue
            where = f"{path.relative_to(PACKAGE.parent)}:{line}"
            if target != source and where not in edges[(source, target)]:
                edges[(source, target)].append(where)
    return dict(edges)


def cycles(edges: dict[tuple[str, str], list[str]]) -> list[list[str]]:
    """Strongly connected groups of more than one unit (Tarjan), each sorted."""
    graph: dict[str, set[str]] = defaultdict(set)
    for a, b in edges:
        a, b = SAME_UNIT.get(a, a), SAME_UNIT.get(b, b)
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


def test_no_cycle_between_packages() -> None:
    # imports that run; an annotation-only import (under TYPE_CHECKING) of a same-floor
    # unit is no cycle (import-linter's exclude_type_checking_imports); floors count it
    edges = import_edges(type_checking=False)
    found = [c for c in cycles(edges) if frozenset(c) not in KNOWN_CYCLES]
    detail = [
        f"{' <-> '.join(c)}: "
        + "; ".join(f"{a}->{b} at {', '.join(w)}" for (a, b), w in sorted(edges.items()) if a in c and b in c)
        for c in found
    ]
    assert not found, "\n".join(detail)


def test_known_cycles_still_exist() -> None:
    found = {frozenset(c) for c in cycles(import_edges(type_checking=False))}
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
    assert ("charts", "eval") in every and ("charts", "eval") not in running  # EvalResult in annotations only
