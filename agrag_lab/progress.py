"""Progress reporting for long loops: the :data:`Progress` signature and a tqdm bar.

A ``Progress`` wraps an iterable the way ``tqdm`` does:
``progress(iterable, total, description)`` returns an iterable yielding the
same items (and may draw a bar as they pass). The index build calls it around
each embedding loop (``"embedding chunks"``; ``"embedding entities"`` and
``"embedding communities"`` only for graph records no chunk supports) and each
collection's writes (``"indexing chunks"``, ``"indexing entities"``, ``"indexing communities"``); :func:`tqdm_progress` is the bar the command
line uses where it draws no estimate, :class:`StageBars` the one ``agrag-lab ingest`` and ``import`` draw: a bar
per stage and, before each embedding stage, the texts it embeds, then after its first batch the minutes left at
the rate that batch took (the build tells it the count through :class:`TextCounting`).
A :data:`StatusLog` is the other kind of report: one finished
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
import time
from collections.abc import Callable, Iterable, Iterator
from typing import IO, Any, Protocol, runtime_checkable

__all__ = ["Progress", "StageBars", "StatusLog", "TextCounting", "command_progress", "estimate", "tqdm_progress"]

#: ``progress(iterable, total, description) -> iterable`` (the same items, in order).
Progress = Callable[[Iterable[Any], int, str], Iterable[Any]]
#: ``log(line)``: a finished step, told in one line of text.
StatusLog = Callable[[str], None]


def tqdm_progress(iterable: Iterable[Any], total: int, description: str) -> Iterable[Any]:
    """A :data:`Progress` drawing a tqdm bar on stderr (stdout stays clean for results)."""
    from tqdm import tqdm

    bar: Iterable[Any] = tqdm(iterable, total=total, desc=description, unit="batch", file=sys.stderr)
    return bar


@runtime_checkable
class TextCounting(Protocol):
    """A :data:`Progress` that is told, before an embedding stage, how many texts it embeds."""

    def texts(self, description: str, count: int) -> None:
        """``count`` texts are about to be embedded in the stage ``description`` (``"embedding chunks"``)."""


def estimate(description: str, count: int, batches: int, first_seconds: float) -> str:
    """What is left of an embedding stage of ``count`` texts in ``batches`` batches, its first one taken
    ``first_seconds``: the remaining batches at that rate (texts are embedded longest first, so it errs long).

    Examples
    --------
    >>> estimate("embedding chunks", 1587, 13, 5.0)
    'embedding chunks: 1,587 texts, first batch of 13 in 5.0 s (24 texts/s): about 1.0 min left'
    """
    rate = count / batches / first_seconds if first_seconds > 0 else float("inf")
    left = first_seconds * (batches - 1) / 60
    return (f"{description}: {count:,} texts, first batch of {batches} in {first_seconds:.1f} s "
            f"({rate:,.0f} texts/s): about {left:.1f} min left")


class StageBars:
    """A :data:`Progress` (and :class:`TextCounting`) drawing one tqdm bar per stage on ``stream`` (stderr).

    Before an embedding stage it writes how many texts the stage embeds; after the stage's first batch, when
    more remain, the minutes left at the rate of that batch (:func:`estimate`). Lines start with ``prefix``
    (``"agrag-lab import: "``). ``lines`` keeps every line written, in order.

    Examples
    --------
    >>> import io
    >>> bars = StageBars(io.StringIO())
    >>> bars.texts("embedding chunks", 300)
    >>> list(bars(range(3), 3, "embedding chunks"))
    [0, 1, 2]
    >>> bars.lines[0], bars.lines[1].startswith("embedding chunks: 300 texts, first batch of 3 in")
    ('embedding chunks: 300 texts to embed', True)
    """

    def __init__(self, stream: IO[str] | None = None, prefix: str = "") -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.prefix = prefix
        self.lines: list[str] = []
        self._counts: dict[str, int] = {}

    def _write(self, line: str) -> None:
        from tqdm import tqdm

        self.lines.append(line)
        tqdm.write(self.prefix + line, file=self.stream)

    def texts(self, description: str, count: int) -> None:
        self._counts[description] = count
        self._write(f"{description}: {count:,} texts to embed")

    def __call__(self, iterable: Iterable[Any], total: int, description: str) -> Iterable[Any]:
        from tqdm import tqdm

        bar = tqdm(iterable, total=total, desc=description, unit="batch", file=self.stream)
        count = self._counts.pop(description, None)
        return bar if count is None else self._timed(bar, total, count, description)

    def _timed(self, bar: Iterable[Any], total: int, count: int, description: str) -> Iterator[Any]:
        started = time.perf_counter()
        for n, item in enumerate(bar):
            yield item  # the caller embeds this batch before asking for the next one
            if n == 0 and total > 1:
                self._write(estimate(description, count, total, time.perf_counter() - started))


def command_progress(command: str, *, quiet: bool = False, stream: IO[str] | None = None) -> StageBars | None:
    """The progress a command draws: :class:`StageBars` on ``stream`` (stderr), or None when ``quiet`` or when the
    stream is not a terminal (a log file or a pipe gets the results only)."""
    out = stream if stream is not None else sys.stderr
    if quiet or not out.isatty():
        return None
    return StageBars(out, prefix=f"agrag-lab {command}: ")
