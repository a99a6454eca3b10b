"""The caps on sizes a caller chooses: one home for every bound of a recipe, a recipe file and the CLI.

A value past a cap is refused with a message naming the value, the allowed
range and what the value means, never run for minutes or crashed on. The
caps are far above any useful setting: a search that returns more than
:data:`MAX_RESULTS` results is no longer read by a person or a model, and a
recipe file is a few hundred bytes.

==========================  ===========  ==============================================
cap                         value        bounds
==========================  ===========  ==============================================
:data:`MAX_RESULTS`         1,000        ``Recipe.limit``, ``agrag-lab search --limit``,
                                         ``walk.limit``, ``communities.top_k``,
                                         ``agrag-lab eval --per-hit``
:data:`MAX_CANDIDATES`      10,000       ``Recipe.candidates`` (hits per method)
:data:`MAX_WALK_DEPTH`      10           ``walk.depth`` (hops)
:data:`MIN_WALK_RESTART`    0.01         ``walk.restart`` (the PageRank walk's work grows as 1/restart)
:data:`MAX_WALK_VISITS`     1,000,000    ``candidates x walk.limit`` (seeds times neighbours a walk reads)
:data:`MAX_RUN_SECONDS`     3,600        ``RETRIEVAL_RUN_TIMEOUT`` (the deadline of one whole search run)
:data:`MIN_CHUNK_SIZE`      20           ``--chunk-size`` / ``chunk_size`` (characters)
:data:`MAX_CHUNK_SIZE`      100,000      ``--chunk-size`` / ``chunk_size`` (characters)
:data:`MAX_RECIPE_BYTES`    1,000,000    a recipe ``.toml`` file or text
:data:`MAX_RECIPE_NESTING`  10           tables and arrays inside one another in a recipe
:data:`MAX_TOP`             10,000       ``agrag-lab graph --top``
:data:`MAX_EVAL_ITEMS`      10,000,000   ``agrag-lab eval --queries``, ``--corpus``
:data:`MAX_SESSIONS`        100,000      ``agrag-lab mcp --max-sessions``, ``--sessions-per-client``
:data:`MAX_WORKERS`         64           ``agrag-lab mcp --workers``
:data:`MAX_IDLE_SECONDS`    604,800      ``agrag-lab mcp --session-idle-timeout`` (a week)
:data:`MAX_IMPORT_ROWS`     500,000      rows of one table an import reads (``--max-rows``)
:data:`MAX_DESCRIPTION`     200,000      characters of one description an import keeps (``--max-description``)
:data:`MAX_IMPORT_BYTES`    2 GiB        bytes of the files an import reads (``--max-bytes``)
==========================  ===========  ==============================================

The MCP tools have tighter caps of their own (a model's context is small):
:mod:`agrag_lab.evidence.tools`.

Examples
--------
>>> out_of_range(0, 1, MAX_RESULTS)
'must be an integer >= 1 (got 0)'
>>> out_of_range(5000, 1, MAX_RESULTS)
'must be at most 1000 (got 5000)'
>>> out_of_range(5, 1, MAX_RESULTS) is None
True
>>> int_in(1, MAX_RESULTS, "how many results")("100000000")
Traceback (most recent call last):
...
agrag_lab.errors.OptionError: must be at most 1000 (got 100000000); it is how many results
"""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

from agrag_lab.errors import OptionError

__all__ = [
    "MAX_CANDIDATES",
    "MAX_CHUNK_SIZE",
    "MAX_DESCRIPTION",
    "MAX_EVAL_ITEMS",
    "MAX_IDLE_SECONDS",
    "MAX_IMPORT_BYTES",
    "MAX_IMPORT_ROWS",
    "MAX_RECIPE_BYTES",
    "MAX_RECIPE_NESTING",
    "MAX_RESULTS",
    "MAX_RUN_SECONDS",
    "MAX_SESSIONS",
    "MAX_TOP",
    "MAX_WALK_DEPTH",
    "MAX_WALK_VISITS",
    "MAX_WORKERS",
    "MIN_CHUNK_SIZE",
    "MIN_WALK_RESTART",
    "int_in",
    "out_of_range",
    "restart_problem",
    "seconds_in",
]

#: Most results one search returns.
MAX_RESULTS = 1000
#: Most hits one retrieval method returns before fusion.
MAX_CANDIDATES = 10_000
#: Deepest graph walk (hops).
MAX_WALK_DEPTH = 10
#: Smallest restart probability of the PageRank walk: its work grows as ``1 / restart``
#: (the push reads up to ``1 / (epsilon * restart)`` steps, the power iteration runs
#: ``log(tol) / log(1 - restart)`` rounds); at 0.01 a walk stays well under a second.
MIN_WALK_RESTART = 0.01
#: Most neighbour look-ups one graph walk may make: ``candidates`` (every entity hit is a seed)
#: times ``walk.limit`` (neighbours per seed).
MAX_WALK_VISITS = 1_000_000
#: Longest deadline of one whole search run (methods, walk, communities, re-rank), seconds.
MAX_RUN_SECONDS = 3600.0
#: Fewest characters per chunk.
MIN_CHUNK_SIZE = 20
#: Most characters per chunk.
MAX_CHUNK_SIZE = 100_000
#: Largest recipe TOML read (bytes).
MAX_RECIPE_BYTES = 1_000_000
#: Most tables and arrays nested inside one another in a recipe.
MAX_RECIPE_NESTING = 10
#: Most entities ``agrag-lab graph --top`` lists.
MAX_TOP = 10_000
#: Most evidence sessions an MCP server keeps.
MAX_SESSIONS = 100_000
#: Most threads an MCP server runs evidence calls on.
MAX_WORKERS = 64
#: Most judged queries or documents ``agrag-lab eval --queries`` / ``--corpus`` keep.
MAX_EVAL_ITEMS = 10_000_000
#: Longest an unused MCP evidence session is kept (seconds).
MAX_IDLE_SECONDS = 7 * 24 * 3600
#: Most rows of one table (GraphRAG parquet, LightRAG JSON records, GraphML nodes or edges) an import reads
#: by default: GraphRAG on a large corpus writes about 100,000 entities; a million takes hours to embed.
MAX_IMPORT_ROWS = 500_000
#: Most characters of one entity or relation description an import reads by default (an LLM writes a few
#: thousand; LightRAG's merged descriptions a few tens of thousands).
MAX_DESCRIPTION = 200_000
#: Most bytes of the files one import reads by default (checked from the file sizes before reading).
MAX_IMPORT_BYTES = 2 * 1024**3


def out_of_range(value: object, minimum: int, maximum: int | None = None) -> str | None:
    """``None`` if ``value`` is an int in ``minimum..maximum``, else what is wrong (the caller adds the fix)."""
    if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
        return f"must be an integer >= {minimum} (got {value!r})"
    if maximum is not None and value > maximum:
        return f"must be at most {maximum} (got {value!r})"
    return None


def restart_problem(value: object) -> str | None:
    """``None`` if ``value`` is a restart probability whose walk is bounded, else what is wrong.

    Examples
    --------
    >>> restart_problem(0.3) is None
    True
    >>> restart_problem(1e-10)
    'must be a number in [0.01, 1] (got 1e-10)'
    """
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not MIN_WALK_RESTART <= value <= 1.0
    ):
        return f"must be a number in [{MIN_WALK_RESTART:g}, 1] (got {value!r})"
    return None


def int_in(minimum: int, maximum: int, meaning: str) -> Callable[[str], int]:
    """An argparse ``type`` accepting integers in ``minimum..maximum``; ``meaning`` says what the value is."""

    def parse(text: str) -> int:
        try:
            value: object = int(text)
        except ValueError:
            value = text
        problem = out_of_range(value, minimum, maximum)
        if problem is not None:
            raise OptionError(f"{problem}; it is {meaning}")
        return cast("int", value)

    parse.__name__ = "integer"  # argparse names the type in its messages
    return parse


def seconds_in(maximum: float, meaning: str) -> Callable[[str], float]:
    """An argparse ``type`` accepting a number of seconds above 0 and at most ``maximum``."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = float("nan")
        if not 0 < value <= maximum:
            raise OptionError(
                f"must be a number of seconds above 0 and at most {maximum:g} (got {text!r}); it is {meaning}"
            )
        return value

    parse.__name__ = "seconds"
    return parse
