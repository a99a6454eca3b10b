"""Import a library without the optional modules it would load and agrag_lab never uses; import lazily.

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

A package whose ``__init__`` re-exports its modules' names imports them on
first use with :func:`lazy_exports`, so that importing one light submodule
(``agrag_lab.index.folder``) does not import every heavy one.
"""

from __future__ import annotations

import importlib
import sys
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

__all__ = ["lazy_exports", "without"]

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


def lazy_exports(package: str, exports: Mapping[str, str]) -> Callable[[str], Any]:
    """A package's module ``__getattr__`` (PEP 562): ``exports[name]`` is the module that defines ``name``,
    imported when ``name`` is first read (then kept on the package).

    Examples
    --------
    >>> getattr_ = lazy_exports("agrag_lab", {"dedent": "textwrap"})
    >>> getattr_("dedent")("  a")
    'a'
    """

    def __getattr__(name: str) -> Any:
        home = exports.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(home), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__
