"""Tracers: spans around retrieval steps, nested as the engine runs them.

:meth:`SearchEngine.run <agrag_lab.retrieval.engine.SearchEngine.run>` opens
these spans (``agrag.`` prefixed under OpenTelemetry)::

    search
    ├── embed                       the query vector
    ├── method.<name>               one per method of the recipe, run in the thread pool
    ├── context                     graph facts the later steps read
    │   ├── context.walk            BFS reach or the PageRank walk (a recipe with a walk)
    │   ├── context.distances       hop distances (a graph-distance re-rank)
    │   ├── context.communities     community memberships (a recipe with reports)
    │   └── context.rerank          cross-encoder scores (a cross-encoder re-rank)
    ├── fuse                        RRF of the method lists
    ├── walk                        the walk fused in a second time (a recipe with a walk)
    ├── communities                 reports fused in (a recipe with reports)
    ├── rerank                      the new order (a recipe with a re-rank)
    └── cut                         the top ``limit``

``find_entity`` (with ``embed``, ``method.entity`` and ``match`` inside),
``traverse`` (with ``reach`` and, when asked, ``communities``) and
``list_relationship_types`` open one span each. Method spans run in worker
threads: the engine carries the caller's context there with
:mod:`contextvars`, so they nest under ``search`` for every tracer here,
OpenTelemetry's included. A tracer flows to every retriever and free
function the engine calls; it is not pushed into the stores (pass the same
tracer to them when you build them).

Examples
--------
>>> t = RecordingTracer()
>>> with t.span("search", query="q"):
...     with t.span("method.chunk"):
...         pass
>>> [(s.name, s.parent, s.depth) for s in t.spans]
[('method.chunk', 'search', 1), ('search', None, 0)]
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, ExitStack, contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

__all__ = ["FinishedSpan", "NullTracer", "OpenTelemetryTracer", "RecordingTracer", "Tee", "Tracer"]


@runtime_checkable
class Tracer(Protocol):
    """Opens named spans with attributes."""

    def span(self, name: str, **attributes: Any) -> AbstractContextManager[None]:
        """A context manager around one step."""


class NullTracer:
    """Records nothing."""

    @contextmanager
    def span(self, name: str, **attributes: Any) -> Iterator[None]:
        yield


@dataclass(frozen=True)
class FinishedSpan:
    """A span :class:`RecordingTracer` saw end: its name, time, nesting and outcome."""

    name: str
    seconds: float
    depth: int
    span_id: int
    parent_id: int | None
    parent: str | None
    attributes: dict[str, Any]
    error: str | None = None


_ids = itertools.count(1)


class RecordingTracer:
    """Keeps every finished span (:class:`FinishedSpan`), for tests, notebooks and the trace.

    The open span is held in a :class:`~contextvars.ContextVar`, so spans
    opened in a thread that runs in a copy of the caller's context (as the
    engine's method threads do) nest under the caller's span, and spans of
    concurrent threads do not disturb each other's nesting.
    """

    def __init__(self) -> None:
        self.spans: list[FinishedSpan] = []
        self._open: ContextVar[tuple[int, str, int] | None] = ContextVar(f"agrag_span_{id(self)}", default=None)

    @contextmanager
    def span(self, name: str, **attributes: Any) -> Iterator[None]:
        parent = self._open.get()
        span_id = next(_ids)
        depth = parent[2] + 1 if parent is not None else 0
        token = self._open.set((span_id, name, depth))
        start = time.perf_counter()
        error: str | None = None
        try:
            yield
        except BaseException as exc:
            error = f"{type(exc).__name__}: {exc}"
            raise
        finally:
            self._open.reset(token)
            self.spans.append(FinishedSpan(
                name, time.perf_counter() - start, depth, span_id,
                parent[0] if parent is not None else None, parent[1] if parent is not None else None,
                dict(attributes), error,
            ))

    def named(self, name: str) -> list[FinishedSpan]:
        """The finished spans called ``name``, in the order they ended."""
        return [s for s in self.spans if s.name == name]


class Tee:
    """Opens every span in each of ``tracers``, in order (the engine's own record and the caller's)."""

    def __init__(self, *tracers: Tracer) -> None:
        self.tracers = tracers

    @contextmanager
    def span(self, name: str, **attributes: Any) -> Iterator[None]:
        with ExitStack() as stack:
            for tracer in self.tracers:
                stack.enter_context(tracer.span(name, **attributes))
            yield


class OpenTelemetryTracer:
    """Adapter to an OpenTelemetry tracer (``opentelemetry-api``); span names get an ``agrag.`` prefix.

    Parameters
    ----------
    tracer : opentelemetry.trace.Tracer, optional
        Default: ``opentelemetry.trace.get_tracer("agrag_lab")``.
    """

    def __init__(self, tracer: Any = None) -> None:
        if tracer is None:
            from opentelemetry import trace

            tracer = trace.get_tracer("agrag_lab")
        self._tracer = tracer

    @contextmanager
    def span(self, name: str, **attributes: Any) -> Iterator[None]:
        clean = {k: v for k, v in attributes.items() if isinstance(v, (str, int, float, bool))}
        with self._tracer.start_as_current_span(f"agrag.{name}", attributes=clean):
            yield
