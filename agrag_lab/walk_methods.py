"""The two ways the ``ppr`` graph walk computes its probabilities.

The names live below :mod:`agrag_lab.recipes` (a recipe's ``walk.pagerank``
names one) and :mod:`agrag_lab.kg.algorithms.pagerank` (which runs it; it re-exports both
names), so reading a recipe imports no graph code.

Examples
--------
>>> METHODS
('push', 'power')
"""

from __future__ import annotations

from typing import Literal

__all__ = ["METHODS", "WalkMethod"]

#: How the walk's probabilities are computed: forward push (local, the default) or power iteration (global).
WalkMethod = Literal["push", "power"]
#: Every :data:`WalkMethod`, the default first.
METHODS: tuple[WalkMethod, ...] = ("push", "power")
