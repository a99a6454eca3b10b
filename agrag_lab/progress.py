"""Progress reporting for long loops: the :data:`Progress` signature and a tqdm bar.

A ``Progress`` wraps an iterable the way ``tqdm`` does:
``progress(iterable, total, description)`` returns an iterable yielding the
same items (and may draw a bar as they pass). The index build calls it around
each embedding loop (``"embedding chunks"``; ``"embedding entities"`` and
``"embedding communities"`` only for graph records no chunk supports) and each
collection's writes (``"indexing chunks"``, ``"indexing entities"``, ``"indexing communities"``); :func:`tqdm_progress` is the bar the command
line uses. A :data:`StatusLog` is the other kind of report: one finished
step as a line of text (``"HYBRID: 50 queries in 3.1 s"``), as the
evaluation harness gives.

Examples
--------
>>> seen = []
>>> def count(iterable, total, description):
...     seen.append((total, description))
...     return iterable
>>> list(count(range(3), 3, "embedding chunks")), seen
([0, 1, 2], [(3, 'embedding chunks')])
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from typing import Any

__all__ = ["Progress", "StatusLog", "tqdm_progress"]

#: ``progress(iterable, total, description) -> iterable`` (the same items, in order).
Progress = Callable[[Iterable[Any], int, str], Iterable[Any]]
#: ``log(line)``: a finished step, told in one line of text.
StatusLog = Callable[[str], None]


def tqdm_progress(iterable: Iterable[Any], total: int, description: str) -> Iterable[Any]:
    """A :data:`Progress` drawing a tqdm bar on stderr (stdout stays clean for results)."""
    from tqdm import tqdm

    bar: Iterable[Any] = tqdm(iterable, total=total, desc=description, unit="batch", file=sys.stderr)
    return bar
