"""The cut step: where the ranked candidates stop (pure; it reads nothing from a store)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from agrag_lab.retrieval.trace import CutTrace

__all__ = ["CUT_SHOWN", "cut"]

#: Candidates below the cut the trace names.
CUT_SHOWN = 5


def cut(order: Sequence[str], fused: Mapping[str, float], limit: int) -> tuple[tuple[str, ...], CutTrace]:
    """The first ``limit`` keys of ``order`` that had a vote, and where the cut fell.

    A result whose fused score is 0 has no reason to be listed (every vote it
    had weighs 0): it is dropped, and the trace names it.

    Examples
    --------
    >>> kept, trace = cut(["a", "b", "z", "c"], {"a": 0.2, "b": 0.1, "z": 0.0, "c": 0.05}, 2)
    >>> kept, trace.zero_score, trace.dropped
    (('a', 'b'), ('z',), ('c',))
    """
    zero = tuple(key for key in order if fused.get(key, 0.0) <= 0.0)
    gone = set(zero)
    ranked = [key for key in order if key not in gone]
    trace = CutTrace(limit, len(ranked) + len(zero), tuple(ranked[limit : limit + CUT_SHOWN]), zero)
    return tuple(ranked[:limit]), trace
