"""Tracers: spans around retrieval steps, nested as the spec describes.

The engine opens a ``search`` span and, inside it, one span per method, then
``fuse``, ``walk``, ``communities``, ``rerank`` and ``cut``. A tracer flows to
every retriever and free function the engine calls; it is not pushed into the
stores (pass the same tracer to them when you build them).

Examples
--------
>>> t = RecordingTracer()
>>> with t.span("search", query="q"):
...     with t.span("method.chunk"):
...         pass
>>> [name for name, _, depth in t.spans]
['method.chunk', 'search']
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any, Protocol, runtime_checkable


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


class RecordingTracer:
    """Keeps ``(name, seconds, depth)`` of every finished span, for tests and notebooks."""

    def __init__(self) -> None:
        self.spans: list[tuple[str, float, int]] = []
        self._depth = 0

    @contextmanager
    def span(self, name: str, **attributes: Any) -> Iterator[None]:
        start = time.perf_counter()
        self._depth += 1
        try:
            yield
        finally:
            self._depth -= 1
            self.spans.append((name, time.perf_counter() - start, self._depth))


class OpenTelemetryTracer:
    """Adapter to an OpenTelemetry tracer (``opentelemetry-api``).

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
