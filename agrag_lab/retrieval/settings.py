"""Retrieval settings, with defaults read from the environment.

Three environment variables configure retrieval:

``RETRIEVAL_RRF_K``
    The RRF constant ``k`` (a number > 0, default 60).
``RETRIEVAL_METHOD_TIMEOUT``
    Seconds one retrieval method may run before it counts as failed
    (a number > 0, default 30).
``RETRIEVAL_CANDIDATES``
    How many hits each method returns before fusion (an integer >= 1,
    default 50).

Examples
--------
>>> from agrag_lab.retrieval.settings import RetrievalSettings
>>> RetrievalSettings()
RetrievalSettings(rrf_k=60.0, method_timeout=30.0, candidates=50)
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

__all__ = ["ENV_CANDIDATES", "ENV_METHOD_TIMEOUT", "ENV_RRF_K", "RetrievalSettings"]

#: Environment variable for :attr:`RetrievalSettings.rrf_k`.
ENV_RRF_K = "RETRIEVAL_RRF_K"
#: Environment variable for :attr:`RetrievalSettings.method_timeout`.
ENV_METHOD_TIMEOUT = "RETRIEVAL_METHOD_TIMEOUT"
#: Environment variable for :attr:`RetrievalSettings.candidates`.
ENV_CANDIDATES = "RETRIEVAL_CANDIDATES"


def _positive_number_problem(value: object, what: str) -> str | None:
    """Return a hint if ``value`` is not a finite number > 0, else ``None``."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return f"must be a number > 0 (got {value!r}); {what}"
    if not math.isfinite(value) or value <= 0:
        return f"must be a finite number > 0 (got {value!r}); {what}"
    return None


_K_HINT = "it is the RRF constant k in w/(k + rank); 60 is the usual choice"
_TIMEOUT_HINT = "it is how many seconds one method may run before it counts as failed"
_CANDIDATES_HINT = "it is how many hits each method returns before fusion"


@dataclass(frozen=True, slots=True)
class RetrievalSettings:
    """Retrieval configuration shared by every search.

    Parameters
    ----------
    rrf_k : float, default 60.0
        The RRF constant ``k`` in ``w / (k + rank)``; must be > 0.
    method_timeout : float, default 30.0
        Seconds one retrieval method may run before it counts as failed.
    candidates : int, default 50
        How many hits each method returns before fusion; must be >= 1.

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
    candidates: int = 50

    def __post_init__(self) -> None:
        problems: dict[str, str] = {}
        for field, hint in (("rrf_k", _K_HINT), ("method_timeout", _TIMEOUT_HINT)):
            value = getattr(self, field)
            problem = _positive_number_problem(value, hint)
            if problem is None:
                object.__setattr__(self, field, float(value))
            else:
                problems[field] = problem
        if (
            isinstance(self.candidates, bool)
            or not isinstance(self.candidates, int)
            or self.candidates < 1
        ):
            problems["candidates"] = (
                f"must be an integer >= 1 (got {self.candidates!r}); {_CANDIDATES_HINT}"
            )
        if problems:
            raise RecipeError(problems, name="RetrievalSettings")

    @classmethod
    def from_env(cls, environ: Mapping[str, str] = os.environ) -> RetrievalSettings:
        """Read settings from environment variables; unset or empty ones keep defaults.

        Parameters
        ----------
        environ : Mapping[str, str], default os.environ
            Where to read ``RETRIEVAL_RRF_K``, ``RETRIEVAL_METHOD_TIMEOUT``
            and ``RETRIEVAL_CANDIDATES`` from.

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
        RetrievalSettings(rrf_k=60.0, method_timeout=30.0, candidates=100)
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
            (ENV_CANDIDATES, "candidates", int, "an integer >= 1", _CANDIDATES_HINT),
        )
        values: dict[str, Any] = {}
        problems: dict[str, str] = {}
        for variable, field, parse, expected, hint in specs:
            raw = environ.get(variable)
            if raw is None or not raw.strip():
                continue
            default = getattr(defaults, field)
            fix = f"Fix or unset {variable} (default {default!r})"
            try:
                value = parse(raw.strip())
            except ValueError:
                problems[variable] = f"must be {expected} (got {raw!r}); {hint}. {fix}"
                continue
            bad = (
                not math.isfinite(value) or value <= 0 if parse is float else value < 1
            )
            if bad:
                problems[variable] = f"must be {expected} (got {raw!r}); {hint}. {fix}"
                continue
            values[field] = value
        if problems:
            raise RecipeError(problems, name="RetrievalSettings")
        return cls(**values)
