"""Paths through the graph as plain values: :class:`PathStep` and :class:`Reach`.

They live in ``kg/`` (the floor that walks the graph) so that the walk code
and the search trace share them without ``kg/`` importing ``retrieval/``;
:mod:`agrag_lab.retrieval.trace` re-exports both.

Examples
--------
>>> Reach("ent-b", 1, (PathStep("ent-a", "WROTE", "ent-b"),)).path[0].relation
'WROTE'
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["PathStep", "Reach"]


@dataclass(frozen=True)
class PathStep:
    """One relation on a walk path."""

    source: str
    relation: str
    target: str


@dataclass(frozen=True)
class Reach:
    """An entity reached from a seed: hop distance and the path there."""

    entity: str
    hop: int
    path: tuple[PathStep, ...]
