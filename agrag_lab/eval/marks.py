"""Best values and significance, marked as ranx's report tables mark them: the one rule.

ranx's ``Report`` gives every system a letter (a, b, c, ... in order), writes
the best mean of each metric in bold, and puts after each mean a
superscript of the letters of the systems it is significantly above (a
paired two-sided test, p < 0.05, and a higher mean). Every table that shows
evaluation means uses :func:`marks`: the widgets (bold and ``<sup>``), the
HTML report (the same) and the plain-text table (Unicode superscripts, as
ranx's own text table).

Examples
--------
>>> means = {"HYBRID": {"r": 0.9}, "CHUNK": {"r": 0.7}, "bm25": {"r": 0.5}}
>>> p = {("HYBRID", "bm25"): {"r": 0.01}, ("CHUNK", "bm25"): {"r": 0.2}, ("HYBRID", "CHUNK"): {"r": 0.3}}
>>> m = marks(means, lambda a, b, metric: p.get((a, b), p.get((b, a), {})).get(metric), ["r"])
>>> [(name, m[name]["r"].best, m[name]["r"].sup) for name in means]
[('HYBRID', True, 'c'), ('CHUNK', False, ''), ('bm25', False, '')]
>>> superscript("ac")
'ᵃᶜ'
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from agrag_lab.errors import EvaluationError

#: The significance level of the marks.
ALPHA = 0.05
#: ranx's superscript letters (its text table), a to z.
_SUPERSCRIPT = dict(zip("abcdefghijklmnopqrstuvwxyz", "ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖ𐞥ʳˢᵗᵘᵛʷˣʸᶻ", strict=True))

#: ``p(a, b, metric)``: the two-sided p-value of systems ``a`` and ``b`` on ``metric`` (``None``: not tested).
PValue = Callable[[str, str, str], "float | None"]


@dataclass(frozen=True)
class Mark:
    """How one mean is marked: ``best`` (bold) and ``above`` (the letters of the systems it is significantly above)."""

    best: bool
    above: tuple[str, ...] = ()

    @property
    def sup(self) -> str:
        """The superscript letters, e.g. ``"ac"``."""
        return "".join(self.above)

    @property
    def title(self) -> str:
        """A hover text for the mark (``""`` when it is above none)."""
        return f"significantly above {', '.join(self.above)} (p < {ALPHA})" if self.above else ""


class ScoredSystem(Protocol):
    """What the marks read of one evaluated system (an :class:`~agrag_lab.eval.result.SystemScores`)."""

    @property
    def name(self) -> str: ...
    @property
    def mean(self) -> Mapping[str, float]: ...
    @property
    def per_query(self) -> Mapping[str, Mapping[str, float]]: ...


class Evaluated(Protocol):
    """What the marks read of an evaluation (an :class:`~agrag_lab.eval.result.EvalResult`, which marks itself
    through this module: the rule lives here, the result only holds the scores)."""

    @property
    def names(self) -> tuple[str, ...]: ...
    @property
    def queries(self) -> tuple[str, ...]: ...
    @property
    def metrics(self) -> tuple[str, ...]: ...
    @property
    def systems(self) -> Sequence[ScoredSystem]: ...
    @property
    def reference(self) -> str: ...
    @property
    def p_values(self) -> Mapping[str, Mapping[str, float]]: ...
    @property
    def stat_test(self) -> str: ...
    @property
    def alpha(self) -> float: ...


def letters(names: Sequence[str]) -> dict[str, str]:
    """A letter per system in order, as ranx's reports name them (a, b, c, ...).

    Examples
    --------
    >>> letters(["HYBRID", "bm25"])
    {'HYBRID': 'a', 'bm25': 'b'}
    """
    if len(names) > len(_SUPERSCRIPT):
        raise EvaluationError(f"{len(names)} systems: the marks name at most {len(_SUPERSCRIPT)} (a to z)")
    return {name: chr(ord("a") + i) for i, name in enumerate(names)}


def superscript(text: str) -> str:
    """``text``'s letters as Unicode superscripts (a plain-text table's marks)."""
    return "".join(_SUPERSCRIPT.get(c, c) for c in text)


def marks(
    means: Mapping[str, Mapping[str, float]], p_value: PValue, metrics: Sequence[str], *, alpha: float = ALPHA
) -> dict[str, dict[str, Mark]]:
    """``{system: {metric: Mark}}`` for systems in ``means``' order (see the module docstring)."""
    names = list(means)
    letter = letters(names)
    best = {m: max(means[n][m] for n in names) for m in metrics} if names else {}
    out: dict[str, dict[str, Mark]] = {}
    for name in names:
        out[name] = {}
        for m in metrics:
            above = []
            for other in names:
                if other == name or not means[name][m] > means[other][m]:
                    continue
                p = p_value(name, other, m)
                if p is not None and p < alpha:
                    above.append(letter[other])
            out[name][m] = Mark(means[name][m] >= best[m] - 1e-12, tuple(above))
    return out


def pairwise_p(result: Evaluated) -> dict[str, dict[str, dict[str, float]]]:
    """Every pair's p-value from the result's per-query scores: ranx's test (``result.stat_test``), as its reports.

    Systems without the test's statistic (ranx's Tukey test) fall back to the reference's p-values only.
    """
    import numpy as np
    from ranx.statistical_tests import compute_statistical_significance

    names = list(result.names)
    queries = list(result.queries)
    scores = {
        s.name: {m: np.asarray([s.per_query[m].get(q, 0.0) for q in queries], dtype=float) for m in result.metrics}
        for s in result.systems
    }
    out: dict[str, dict[str, dict[str, float]]] = {n: {} for n in names}
    if len(names) < 2 or len(queries) < 2 or result.stat_test not in ("student", "fisher"):
        for name, ps in result.p_values.items():
            out.setdefault(name, {})[result.reference] = dict(ps)
            out.setdefault(result.reference, {})[name] = dict(ps)
        return out
    comparisons = compute_statistical_significance(names, scores, stat_test=result.stat_test, max_p=ALPHA)
    for a in names:
        for b in names:
            if a != b:
                found = comparisons[frozenset((a, b))]
                out[a][b] = {m: _finite(found[m]["p_value"]) for m in result.metrics}
    return out


def result_marks(result: Evaluated) -> dict[str, dict[str, Mark]]:
    """:func:`marks` of an evaluation result (pairwise p-values from :func:`pairwise_p`)."""
    p = pairwise_p(result)
    means = {s.name: dict(s.mean) for s in result.systems}
    return marks(means, lambda a, b, m: p.get(a, {}).get(b, {}).get(m), result.metrics, alpha=result.alpha)


def _finite(value: object) -> float:
    """A p-value; NaN (the t-test on identical scores) means no difference: 1.0."""
    p = float(value)  # type: ignore[arg-type]
    return 1.0 if p != p else p
