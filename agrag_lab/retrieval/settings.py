"""Retrieval settings, with defaults read from the environment.

Five environment variables configure retrieval:

``RETRIEVAL_RRF_K``
    The RRF constant ``k`` (a number > 0, default 60).
``RETRIEVAL_METHOD_TIMEOUT``
    Seconds one retrieval method may run before it counts as failed
    (a number > 0, default 30).
``RETRIEVAL_RUN_TIMEOUT``
    Seconds one whole search run may take, every step included (a number
    > 0 and at most 3600, default 60); past it the search stops with a
    :class:`~agrag_lab.errors.SearchTimeoutError` naming the step.
``RETRIEVAL_CANDIDATES``
    When set, how many hits each method returns before fusion, for every
    recipe (an integer >= 1; it overrides ``Recipe.candidates``, which the
    built-in recipes set to 50). Unset, each recipe's own ``candidates`` holds.
``RETRIEVAL_ENTITY_MATCH``
    How close a name must be for ``find_entity`` to count an entity as found
    when no name or alias of it is the name asked for: the cosine similarity
    of the asked name with the nearest of the entity's name and aliases (a
    number in (0, 1], default 0.6; see
    :meth:`~agrag_lab.retrieval.engine.SearchEngine.find_entity`).

Examples
--------
>>> from agrag_lab.retrieval.settings import RetrievalSettings
>>> RetrievalSettings()
RetrievalSettings(rrf_k=60.0, method_timeout=30.0, candidates=None, entity_match=0.6, run_timeout=60.0)
>>> RetrievalSettings.from_env({"RETRIEVAL_RRF_K": "20"}).rrf_k
20.0
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from agrag_lab.errors import RecipeError
from agrag_lab.limits import MAX_RUN_SECONDS

__all__ = [
    "ENV_CANDIDATES",
    "ENV_ENTITY_MATCH",
    "ENV_METHOD_TIMEOUT",
    "ENV_RRF_K",
    "ENV_RUN_TIMEOUT",
    "RetrievalSettings",
]

#: Environment variable for :attr:`RetrievalSettings.rrf_k`.
ENV_RRF_K = "RETRIEVAL_RRF_K"
#: Environment variable for :attr:`RetrievalSettings.method_timeout`.
ENV_METHOD_TIMEOUT = "RETRIEVAL_METHOD_TIMEOUT"
#: Environment variable for :attr:`RetrievalSettings.run_timeout`.
ENV_RUN_TIMEOUT = "RETRIEVAL_RUN_TIMEOUT"
#: Environment variable for :attr:`RetrievalSettings.candidates`.
ENV_CANDIDATES = "RETRIEVAL_CANDIDATES"
#: Environment variable for :attr:`RetrievalSettings.entity_match`.
ENV_ENTITY_MATCH = "RETRIEVAL_ENTITY_MATCH"


def _positive_number_problem(value: object, what: str) -> str | None:
    """Return a hint if ``value`` is not a finite number > 0, else ``None``."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return f"must be a number > 0 (got {value!r}); {what}"
    if not math.isfinite(value) or value <= 0:
        return f"must be a finite number > 0 (got {value!r}); {what}"
    return None


_K_HINT = "it is the RRF constant k in w/(k + rank); 60 is the usual choice"
_TIMEOUT_HINT = "it is how many seconds one method may run before it counts as failed"
_RUN_TIMEOUT_HINT = (
    f"it is how many seconds one whole search (methods, walk, communities, re-rank) may run, "
    f"at most {MAX_RUN_SECONDS:g}"
)
_CANDIDATES_HINT = "it is how many hits each method returns before fusion"
_MATCH_HINT = (
    "it is the cosine similarity of a name with an entity's nearest name or alias above which "
    "find_entity counts the entity as found; 0.6 is the default"
)


def _fraction_problem(value: object, what: str) -> str | None:
    """Return a hint if ``value`` is not a number in (0, 1], else ``None``."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= 1:
        return f"must be a number in (0, 1] (got {value!r}); {what}"
    return None


@dataclass(frozen=True, slots=True)
class RetrievalSettings:
    """Retrieval configuration shared by every search.

    Parameters
    ----------
    rrf_k : float, default 60.0
        The RRF constant ``k`` in ``w / (k + rank)``; must be > 0.
    method_timeout : float, default 30.0
        Seconds one retrieval method may run before it counts as failed.
    candidates : int, optional
        When set (>= 1), how many hits each method returns before fusion for
        every recipe, overriding ``Recipe.candidates``; None (the default)
        keeps each recipe's own. See :meth:`candidates_for`.
    entity_match : float, default 0.6
        ``find_entity``'s similarity threshold, in (0, 1].
    run_timeout : float, default 60.0
        Seconds one whole search run (methods, walk, communities, fusion,
        re-rank) may take, at most :data:`~agrag_lab.limits.MAX_RUN_SECONDS`;
        past it the search raises
        :class:`~agrag_lab.errors.SearchTimeoutError` naming the step.

    Raises
    ------
    RecipeError
        A value is out of range; ``problems`` maps each field to a hint.

    Examples
    --------
    >>> RetrievalSettings(rrf_k=10).rrf_k
    10.0
    >>> RetrievalSettings(candidates=0)
    Traceback (most recent call last):
    ...
    agrag_lab.errors.RecipeError: RetrievalSettings is invalid (1 problem(s)):
      - candidates: must be an integer >= 1 (got 0); it is how many hits each method returns before fusion
    """

    rrf_k: float = 60.0
    method_timeout: float = 30.0
    candidates: int | None = None
    entity_match: float = 0.6
    run_timeout: float = 60.0

    def __post_init__(self) -> None:
        problems: dict[str, str] = {}
        match_problem = _fraction_problem(self.entity_match, _MATCH_HINT)
        if match_problem is None:
            object.__setattr__(self, "entity_match", float(self.entity_match))
        else:
            problems["entity_match"] = match_problem
        for field, value, hint in (
            ("rrf_k", self.rrf_k, _K_HINT), ("method_timeout", self.method_timeout, _TIMEOUT_HINT),
            ("run_timeout", self.run_timeout, _RUN_TIMEOUT_HINT),
        ):
            problem = _positive_number_problem(value, hint)
            if problem is None and field == "run_timeout" and value > MAX_RUN_SECONDS:
                problem = f"must be at most {MAX_RUN_SECONDS:g} (got {value!r}); {hint}"
            if problem is None:
                object.__setattr__(self, field, float(value))
            else:
                problems[field] = problem
        if self.candidates is not None and (
            isinstance(self.candidates, bool)
            or not isinstance(self.candidates, int)
            or self.candidates < 1
        ):
            problems["candidates"] = (
                f"must be an integer >= 1 (got {self.candidates!r}); {_CANDIDATES_HINT}"
            )
        if problems:
            raise RecipeError(problems, name="RetrievalSettings")

    def candidates_for(self, recipe_candidates: int) -> int:
        """How many hits each method returns for a recipe that asks for ``recipe_candidates``.

        Examples
        --------
        >>> RetrievalSettings().candidates_for(50), RetrievalSettings(candidates=7).candidates_for(50)
        (50, 7)
        """
        return self.candidates if self.candidates is not None else recipe_candidates

    @classmethod
    def from_env(cls, environ: Mapping[str, str] = os.environ) -> RetrievalSettings:
        """Read settings from environment variables; unset or empty ones keep defaults.

        Parameters
        ----------
        environ : Mapping[str, str], default os.environ
            Where to read ``RETRIEVAL_RRF_K``, ``RETRIEVAL_METHOD_TIMEOUT``, ``RETRIEVAL_RUN_TIMEOUT``,
            ``RETRIEVAL_CANDIDATES`` and ``RETRIEVAL_ENTITY_MATCH`` from.

        Returns
        -------
        RetrievalSettings

        Raises
        ------
        RecipeError
            A variable is set to a value that is not valid; ``problems`` is keyed
            by the variable's name, and every bad variable is reported at once.

        Examples
        --------
        >>> RetrievalSettings.from_env({"RETRIEVAL_CANDIDATES": "100"})
        RetrievalSettings(rrf_k=60.0, method_timeout=30.0, candidates=100, entity_match=0.6, run_timeout=60.0)
        >>> RetrievalSettings.from_env({"RETRIEVAL_RRF_K": "sixty"})
        Traceback (most recent call last):
        ...
        agrag_lab.errors.RecipeError: RetrievalSettings is invalid (1 problem(s)):
          - RETRIEVAL_RRF_K: must be a number > 0 (got 'sixty'); it is the RRF constant k in w/(k + rank); 60 is the usual choice. Fix or unset RETRIEVAL_RRF_K (default 60.0)
        """
        defaults = cls()
        specs: tuple[tuple[str, str, Callable[[str], Any], str, str], ...] = (
            (ENV_RRF_K, "rrf_k", float, "a number > 0", _K_HINT),
            (
                ENV_METHOD_TIMEOUT,
                "method_timeout",
                float,
                "a number > 0",
                _TIMEOUT_HINT,
            ),
            (ENV_RUN_TIMEOUT, "run_timeout", float, "a number > 0", _RUN_TIMEOUT_HINT),
            (ENV_CANDIDATES, "candidates", int, "an integer >= 1", _CANDIDATES_HINT),
            (ENV_ENTITY_MATCH, "entity_match", float, "a number in (0, 1]", _MATCH_HINT),
        )
        values: dict[str, Any] = {}
        problems: dict[str, str] = {}
        for variable, field, parse, expected, hint in specs:
            raw = environ.get(variable)
            if raw is None or not raw.strip():
                continue
            default = getattr(defaults, field)
            fix = f"Fix or unset {variable} " + (
                f"(default {default!r})" if default is not None else "(unset: each recipe's own value holds)"
            )
            try:
                value = parse(raw.strip())
            except ValueError:
                problems[variable] = f"must be {expected} (got {raw!r}); {hint}. {fix}"
                continue
            if field == "entity_match":
                bad = not 0 < value <= 1
            else:
                bad = not math.isfinite(value) or value <= 0 if parse is float else value < 1
            if bad:
                problems[variable] = f"must be {expected} (got {raw!r}); {hint}. {fix}"
                continue
            values[field] = value
        if problems:
            raise RecipeError(problems, name="RetrievalSettings")
        return cls(**values)
