"""Records spilled to disk in partitions: appended a batch at a time, read back one partition at a time.

A build too large for one process's memory writes what it gathers per slice
into ``n`` partition files (a record's partition chosen by the caller) and
later reads each partition whole: memory holds one slice's batch while
writing and one partition while reading. Batches are read back in the order
they were appended.

Examples
--------
>>> import tempfile
>>> with tempfile.TemporaryDirectory() as tmp:
...     spill = Spill(Path(tmp), "e", 2)
...     spill.append({0: ["a"], 1: ["b"]})
...     spill.append({0: ["c"]})
...     [list(spill.read(p)) for p in range(2)]
[['a', 'c'], ['b']]
"""

from __future__ import annotations

import pickle
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

__all__ = ["Spill"]


class Spill:
    """``n`` partition files named ``<name>-<p>.spill`` in ``folder`` (created empty)."""

    def __init__(self, folder: Path, name: str, n: int) -> None:
        self.paths = [folder / f"{name}-{p}.spill" for p in range(n)]
        for path in self.paths:
            path.write_bytes(b"")

    def append(self, batches: Mapping[int, Sequence[Any]]) -> None:
        """Append each partition's batch of records (partition number → records) to its file."""
        for p, records in batches.items():
            if records:
                with self.paths[p].open("ab") as out:
                    pickle.dump(records, out, protocol=pickle.HIGHEST_PROTOCOL)

    def read(self, p: int) -> Iterator[Any]:
        """Partition ``p``'s records, in the order they were appended."""
        with self.paths[p].open("rb") as source:
            while True:
                try:
                    batch = pickle.load(source)
                except EOFError:
                    return
                yield from batch
