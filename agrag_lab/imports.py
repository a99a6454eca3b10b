"""Import a library without the optional modules it would load and agrag_lab never uses.

Some dependencies import an optional package when it is installed, whether
or not the caller uses it: bm25s imports numba for a JIT backend that
agrag_lab never turns on (it scores with numpy), and numba takes a second or
more to import on a busy machine, paid by every ``agrag-lab search`` and MCP
start. :func:`without` marks such modules missing while the library imports
(``sys.modules[name] = None``, Python's own way to refuse an import), so the
library takes its fallback; the marks are removed afterwards. A module
imported before is left as it is.

Examples
--------
>>> import sys
>>> with without("no_such_optional_module"):
...     try:
...         import no_such_optional_module
...     except ImportError:
...         print("refused")
refused
>>> "no_such_optional_module" in sys.modules
False
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["without"]

_lock = threading.Lock()


@contextmanager
def without(*names: str) -> Iterator[None]:
    """Refuse imports of ``names`` (not already imported) inside the block; allow them again after it."""
    with _lock:
        blocked = [n for n in names if n not in sys.modules]
        for name in blocked:
            sys.modules[name] = None  # type: ignore[assignment]
    try:
        yield
    finally:
        with _lock:
            for name in blocked:
                if name in sys.modules and sys.modules[name] is None:
                    del sys.modules[name]
