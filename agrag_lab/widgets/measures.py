"""How much two ranked lists agree: Jaccard, rank-biased overlap, rank shift.

Plain functions over sequences of keys, used by
:class:`~agrag_lab.widgets.comparison.RecipeComparison`.

Examples
--------
>>> jaccard(["a", "b", "c"], ["b", "c", "d"])
0.5
>>> rbo(["a", "b", "c"], ["a", "b", "c"])
1.0
>>> rbo(["a", "b"], ["c", "d"])
0.0
>>> rank_shift(["a", "b", "c"], ["c", "a"])
{'a': -1, 'b': None, 'c': 2}
"""

from __future__ import annotations

from collections.abc import Sequence

from agrag_lab.errors import ViewArgumentError


def jaccard(a: Sequence[str], b: Sequence[str], depth: int | None = None) -> float:
    """``|A ∩ B| / |A ∪ B|`` of the first ``depth`` keys of each list (1.0 for two empty lists).

    Examples
    --------
    >>> jaccard(["a", "b", "x"], ["a", "b", "y"], depth=2)
    1.0
    """
    sa, sb = set(a[:depth]), set(b[:depth])
    union = sa | sb
    return 1.0 if not union else len(sa & sb) / len(union)


def rbo(a: Sequence[str], b: Sequence[str], p: float = 0.9) -> float:
    """Rank-biased overlap of two ranked lists, extrapolated (Webber et al. 2010, eq. 32).

    RBO weighs agreement at the top more than further down: with persistence
    ``p`` the first ``1 / (1 - p)`` ranks carry most of the weight (``p=0.9``:
    about the top 10). It handles lists of different lengths and items found
    by one list only; 1.0 means identical, 0.0 disjoint. Duplicates after the
    first occurrence are ignored.

    Parameters
    ----------
    a, b : sequence of str
        Ranked keys, best first.
    p : float
        Persistence, 0 < p < 1.

    Examples
    --------
    >>> round(rbo(["a", "b", "c", "d"], ["b", "a", "c", "d"]), 4)
    0.9
    >>> round(rbo(["a", "b", "c"], ["a", "b"]), 4)
    1.0
    >>> rbo([], [])
    1.0
    """
    if not 0.0 < p < 1.0:
        raise ViewArgumentError(f"p must be between 0 and 1, exclusive (got {p}); 0.9 weighs about the top 10")
    a = list(dict.fromkeys(a))
    b = list(dict.fromkeys(b))
    if not a and not b:
        return 1.0
    if not a or not b:
        return 0.0
    short, long_ = (a, b) if len(a) <= len(b) else (b, a)
    s, n = len(short), len(long_)
    seen_s: set[str] = set()
    seen_l: set[str] = set()
    overlap = 0
    overlaps = [0] * (n + 1)  # overlaps[d] = |short[:d] ∩ long[:d]|
    for d in range(1, n + 1):
        x = long_[d - 1]
        if d <= s:
            y = short[d - 1]
            if x == y:
                overlap += 1
            else:
                overlap += (x in seen_s) + (y in seen_l)
            seen_s.add(y)
            seen_l.add(x)
        elif x in seen_s:
            overlap += 1
            seen_l.add(x)
        else:
            seen_l.add(x)
        overlaps[d] = overlap
    x_s, x_l = overlaps[s], overlaps[n]
    total = sum(overlaps[d] / d * p**d for d in range(1, n + 1))
    total += sum(x_s * (d - s) / (s * d) * p**d for d in range(s + 1, n + 1))
    value = (1 - p) / p * total + ((x_l - x_s) / n + x_s / s) * p**n
    return min(1.0, max(0.0, value))


def rank_shift(a: Sequence[str], b: Sequence[str]) -> dict[str, int | None]:
    """For each key of ``a``: how many places it rose in ``b`` (``+``) or fell (``-``); None if absent.

    Keys found only in ``b`` are left out (they have no place in ``a`` to move from).

    Examples
    --------
    >>> rank_shift(["a", "b"], ["b", "a"])
    {'a': -1, 'b': 1}
    """
    where = {key: i for i, key in enumerate(b)}
    return {key: (i - where[key] if key in where else None) for i, key in enumerate(a)}
