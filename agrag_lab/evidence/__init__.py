"""Evidence functions: find text, read it exactly, cite it verifiably, within a scope.

``Graph.evidence(scope)`` opens an :class:`EvidenceSession` whose
:class:`Scope` (document ids and/or a metadata predicate) is fixed when it
opens, resolved into document ids at the index's generation (again when
another write moves it) and applied inside every query. Its functions:

- :meth:`~EvidenceSession.discover` searches current passages (keyword,
  vector, or hybrid with RRF k = 60);
- :meth:`~EvidenceSession.fetch` returns the exact text behind ids;
- :meth:`~EvidenceSession.navigate` moves to parent, children, siblings,
  prev, next, or the table around a passage;
- :meth:`~EvidenceSession.find_entities` and :meth:`~EvidenceSession.explore`
  read the knowledge graph;
- :meth:`~EvidenceSession.check_citations` and
  :meth:`~EvidenceSession.render_citations` accept only ids fetched in the
  session.

The functions of this module take a session, or a graph (then a fresh
session over everything is opened for the one call), and run the same code
as the methods. Nothing outside the scope is returned, quoted, counted or
confirmed: an id outside the scope reads exactly like an id that does not
exist.

Examples
--------
>>> from agrag_lab.evidence import Scope
>>> Scope(document_ids={"ada-lovelace"}, where={"era": "victorian"}).unrestricted
False
>>> import agrag_lab.evidence as ev                                   # doctest: +SKIP
>>> session = graph.evidence(Scope(document_ids={"ada-lovelace", "note-g"}))  # doctest: +SKIP
>>> found = ev.discover(session, "Bernoulli numbers", mode="hybrid")  # doctest: +SKIP
>>> ev.fetch(session, found.ids[:2]).texts[0].text                     # doctest: +SKIP
"""

from __future__ import annotations

import functools
import importlib
import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, TypeVar

from agrag_lab.evidence.errors import EvidenceArgumentError

if TYPE_CHECKING:
    from agrag_lab.evidence.results import (
        CitationCheck,
        CitationReport,
        DiscoverResult,
        EntitiesResult,
        EntityHit,
        ExploreEdge,
        ExploreResult,
        FetchedText,
        FetchError,
        FetchResult,
        Hit,
        Navigation,
        NavItem,
        RenderedAnswer,
    )
    from agrag_lab.evidence.scope import ResolvedScope, Scope
    from agrag_lab.evidence.session import EvidenceSession, EvidenceSource

P = ParamSpec("P")
R = TypeVar("R")

__all__ = [
    "CitationCheck",
    "CitationReport",
    "DiscoverResult",
    "EntitiesResult",
    "EntityHit",
    "EvidenceArgumentError",
    "EvidenceSession",
    "EvidenceSource",
    "ExploreEdge",
    "ExploreResult",
    "FetchError",
    "FetchResult",
    "FetchedText",
    "Hit",
    "NavItem",
    "Navigation",
    "RenderedAnswer",
    "ResolvedScope",
    "Scope",
    "check_citations",
    "discover",
    "explore",
    "fetch",
    "find_entities",
    "navigate",
    "open_session",
    "render_citations",
]


def open_session(source: EvidenceSession | EvidenceSource, scope: Scope | None = None) -> EvidenceSession:
    """``source`` itself if it is a session, else a new session over it.

    Raises
    ------
    EvidenceArgumentError
        A scope was given with a session (a session's scope is fixed).
    """
    from agrag_lab.evidence.session import EvidenceSession

    if isinstance(source, EvidenceSession):
        if scope is not None:
            raise EvidenceArgumentError(
                "a session's scope is fixed when it is opened; pass the graph to use another scope"
            )
        return source
    return EvidenceSession(source, scope)


def _on_session(function: Callable[Concatenate[EvidenceSession, P], R]) -> Callable[Concatenate[Any, P], R]:
    """``function(session, ...)`` as a module function of a session or a graph (and ``scope=``).

    The signature stays the evidence function's own (written once, in its
    module); ``source`` is a session, or a graph over which a session with
    the keyword ``scope`` (default everything) is opened for the one call.
    """

    @functools.wraps(function)
    def call(source: EvidenceSession | EvidenceSource, /, *args: P.args, **kwargs: P.kwargs) -> R:
        scope = kwargs.pop("scope", None)
        return function(open_session(source, scope), *args, **kwargs)  # type: ignore[arg-type]

    shown = inspect.signature(function)
    first, *rest = shown.parameters.values()
    source = first.replace(name="source", kind=inspect.Parameter.POSITIONAL_ONLY, annotation="EvidenceSession | EvidenceSource")
    scope = inspect.Parameter("scope", inspect.Parameter.KEYWORD_ONLY, default=None, annotation="Scope | None")
    call.__signature__ = shown.replace(parameters=[source, *rest, scope])  # type: ignore[attr-defined]
    return call


#: The evidence functions of this module (each ``function(session, ...)`` of the module named, as
#: :func:`_on_session` makes it a function of a session or a graph), made on first use so that a
#: sub-module (the tool registry, the result types) imports without the search stack:
#: ``discover`` searches current passages in scope (:meth:`EvidenceSession.discover`); ``fetch`` gives
#: the exact text behind ids; ``navigate`` moves from a passage; ``find_entities`` finds entities by
#: name and embedding; ``explore`` follows relations outward from an entity; ``check_citations``
#: checks citations against the ids fetched (with a graph instead of a session nothing has been
#: fetched, so no citation is valid); ``render_citations`` gives numbered references and Sources.
_FUNCTIONS: dict[str, tuple[str, str]] = {
    "discover": ("search", "discover"),
    "fetch": ("reading", "fetch"),
    "navigate": ("navigation", "navigate"),
    "find_entities": ("entities", "find_entities"),
    "explore": ("entities", "explore"),
    "check_citations": ("citations", "check_citations"),
    "render_citations": ("citations", "render_citations"),
}
#: Where the other names of :data:`__all__` live (imported on first use).
_NAMES: dict[str, str] = {
    **dict.fromkeys(
        ("CitationCheck", "CitationReport", "DiscoverResult", "EntitiesResult", "EntityHit", "ExploreEdge",
         "ExploreResult", "FetchError", "FetchResult", "FetchedText", "Hit", "NavItem", "Navigation",
         "RenderedAnswer"),
        "results",
    ),
    "ResolvedScope": "scope",
    "Scope": "scope",
    "EvidenceSession": "session",
    "EvidenceSource": "session",
}


def __getattr__(name: str) -> Any:
    """The evidence functions, result types, scope and session, imported on first use."""
    if name in _FUNCTIONS:
        module, attribute = _FUNCTIONS[name]
        value: Any = _on_session(getattr(importlib.import_module(f"{__name__}.{module}"), attribute))
    elif name in _NAMES:
        value = getattr(importlib.import_module(f"{__name__}.{_NAMES[name]}"), name)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
