"""Wall-clock timing of a call, the one way the benchmark sections time what they measure."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any


def timed(fn: Callable[[], Any], repeat: int = 1) -> list[float]:
    """Seconds each of ``repeat`` calls of ``fn`` took, in order (``time.perf_counter``).

    Examples
    --------
    >>> samples = timed(lambda: sum(range(1000)), 3)
    >>> len(samples), all(s >= 0 for s in samples)
    (3, True)
    """
    out = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        out.append(time.perf_counter() - start)
    return out
