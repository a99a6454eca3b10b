"""The error tree: one home, depth, a builtin for each class, nothing bare raised."""

from __future__ import annotations

import ast
import builtins
import inspect
from pathlib import Path

import pytest

import agrag_lab
from agrag_lab import errors
from agrag_lab.agent import errors as agent_errors
from agrag_lab.evidence import errors as evidence_errors
from agrag_lab.importing import errors as import_errors
from agrag_lab.kg import errors as kg_errors

PACKAGE = Path(agrag_lab.__file__).parent
BUILTINS = {name for name, obj in vars(builtins).items() if isinstance(obj, type) and issubclass(obj, BaseException)}
#: Builtins that are not errors of the library: ``raise SystemExit(main())`` ends a command.
ALLOWED = {"SystemExit", "NotImplementedError"}
#: Standard-library error classes raised as ``module.Name``.
STDLIB_ERRORS = {"ArgumentTypeError", "ArgumentError", "JSONDecodeError", "TimeoutError", "CalledProcessError"}

FAMILIES = {
    errors.ArgumentError: ValueError,
    errors.NotFoundError: KeyError,
    errors.StoreError: RuntimeError,
    errors.ModelError: RuntimeError,
}


def _classes() -> list[type[errors.AgragError]]:
    return [c for _, c in inspect.getmembers(errors, inspect.isclass) if issubclass(c, errors.AgragError)]


def test_every_error_has_one_root_and_a_builtin() -> None:
    for cls in _classes():
        assert cls.__module__ == "agrag_lab.errors"
        if cls is errors.AgragError:
            continue
        bases = [b for b in cls.__mro__ if b.__module__ == "builtins" and b not in (Exception, BaseException, object)]
        assert bases, f"{cls.__name__} subclasses no builtin besides Exception"


def test_families_have_depth() -> None:
    for family, builtin in FAMILIES.items():
        members = [c for c in _classes() if c is not family and issubclass(c, family)]
        assert members, family
        assert all(issubclass(c, builtin) for c in members)
    assert issubclass(errors.FusionError, errors.RecipeError)
    assert issubclass(errors.RecipeError, errors.ArgumentError)
    assert issubclass(errors.VectorStoreError, errors.StoreError)
    assert issubclass(errors.NoSuchResultError, IndexError) and issubclass(errors.NoSuchResultError, KeyError)
    assert issubclass(errors.EvidenceTypeError, TypeError)


@pytest.mark.parametrize(
    ("module", "name"),
    [
        (kg_errors, "KnowledgeGraphError"),
        (evidence_errors, "EvidenceArgumentError"),
        (agent_errors, "ToolArgumentError"),
        (agent_errors, "AgentArgumentError"),
        (agent_errors, "LLMError"),
        (import_errors, "ImportSourceError"),
        (import_errors, "ImportConflictError"),
    ],
)
def test_sub_packages_re_export_the_one_class(module: object, name: str) -> None:
    assert getattr(module, name) is getattr(errors, name)


def test_rrf_reports_bad_arguments_as_a_fusion_error() -> None:
    from agrag_lab.retrieval.fusion import rrf

    with pytest.raises(errors.FusionError) as info:
        rrf({"a": ["x"]}, k=0)
    assert set(info.value.problems) == {"k"}


def _module_getattr_raises(tree: ast.Module) -> set[int]:
    """``id``s of the raises in any ``__getattr__`` (a module's, PEP 562, or one a factory makes for a package,
    as ``imports.lazy_exports`` does): the protocol says an unknown name must be an AttributeError."""
    return {
        id(node)
        for top in ast.walk(tree)
        if isinstance(top, ast.FunctionDef) and top.name == "__getattr__"
        for node in ast.walk(top)
        if isinstance(node, ast.Raise)
    }


def _raised_names() -> list[tuple[str, int, str]]:
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        protocol = _module_getattr_raises(tree)
        for node in ast.walk(tree):
            if id(node) in protocol:
                continue
            if isinstance(node, ast.Raise) and node.exc is not None:
                target = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
                if isinstance(target, ast.Name):
                    out.append((rel, node.lineno, target.id))
                elif isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.attr in (
                    BUILTINS | STDLIB_ERRORS
                ):  # `raise argparse.ArgumentTypeError(...)`: a builtin's kin by another name
                    out.append((rel, node.lineno, f"{target.value.id}.{target.attr}"))
    return out


def test_no_bare_builtin_and_no_root_is_raised() -> None:
    wrong = [
        f"{rel}:{line} raises {name}"
        for rel, line, name in _raised_names()
        if (name in BUILTINS - ALLOWED or name == "AgragError" or "." in name)
    ]
    assert not wrong, "raise an agrag_lab.errors class instead:\n" + "\n".join(wrong)


def test_every_error_class_lives_in_errors_py() -> None:
    elsewhere = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel == "errors.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                bases = {b.id if isinstance(b, ast.Name) else b.attr for b in node.bases if isinstance(b, ast.Name | ast.Attribute)}
                if bases & set(errors.__all__):
                    elsewhere.append(f"{rel}:{node.lineno} class {node.name}")
    assert not elsewhere, "define these in agrag_lab/errors.py (re-export where they were):\n" + "\n".join(elsewhere)


def test_all_methods_failed_points_at_a_failed_vector_store_even_inside_a_method() -> None:
    down = errors.VectorStoreError("Chroma server at http://127.0.0.1:9: ... Start the server with `chroma run`")
    keyword = errors.IndexFormatError("keyword/chunks is missing")
    for cause in (down, errors.RetrievalMethodError("chunk", {"dense": down, "keyword": keyword})):
        message = str(errors.AllRetrievalMethodsFailedError({"chunk": cause}))
        assert "The vector store failed: its message above says how to fix it" in message
        assert "built with Graph.open" not in message
    assert "built with Graph.open" in str(errors.AllRetrievalMethodsFailedError({"chunk": keyword}))
