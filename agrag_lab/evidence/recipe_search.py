"""Recipe search within a session's scope: the engine's ranking, as the scope sees it.

:func:`search` runs a named recipe (or a :class:`~agrag_lab.recipes.Recipe`)
on the session's search engine with the scope as filters *inside* every
method and step of the run (:meth:`EvidenceSession.filters
<agrag_lab.evidence.session.EvidenceSession.filters>`, compiled in
:mod:`agrag_lab.scope_compiler`), so a scoped search fills its limit from
what the scope shows, and nothing is filtered after the cut:

* a passage (chunk) is a candidate only if its document is searchable;
* an entity or a community report is a candidate only if the scope shows
  something of it, and it is described as the scope shows it (aliases,
  description, relations and supporting passages from documents in scope only).

The explanation of a result is written from those scoped descriptions (no
string is patched afterwards). An unrestricted session shows the run as it is.

Examples
--------
>>> from agrag_lab import Graph                                       # doctest: +SKIP
>>> session = Graph.open("index").evidence(Scope(document_ids={"ada-lovelace"}))  # doctest: +SKIP
>>> found = session.search("Who worked with Babbage?", "HYBRID", limit=5)  # doctest: +SKIP
>>> found.results[0].explanation                                      # doctest: +SKIP
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Protocol

from agrag_lab.evidence.results import RankedResult, RecipeMethod, RecipeSearchResult
from agrag_lab.evidence.search import check_query
from agrag_lab.retrieval.report_reading import nothing_read

if TYPE_CHECKING:
    from agrag_lab.recipes import Recipe
    from agrag_lab.retrieval.engine import SearchEngine
    from agrag_lab.retrieval.filters import SearchFilters

__all__ = ["TEXT_CHARS", "search"]

#: A result's text is cut at this many characters.
TEXT_CHARS = 600


class RecipeSearching(Protocol):
    """What recipe search reads of its session: its search engine, and the scope as search filters."""

    def engine(self) -> SearchEngine:
        """The index's search engine."""

    def filters(self) -> SearchFilters | None:
        """The scope as search filters (None: everything)."""


def search(
    session: RecipeSearching, query: str, recipe: str | Recipe = "HYBRID", limit: int | None = None
) -> RecipeSearchResult:
    """Run a recipe within the session's scope; every result explained as the scope shows it.

    Parameters
    ----------
    session : RecipeSearching
        The session (and so the scope) to search in.
    query : str
        What to look for.
    recipe : str or Recipe
        A built-in recipe name (``ENTITY``, ``CHUNK``, ``HYBRID``,
        ``HYBRID_RERANKED``, ``GRAPH_EXPAND``, ``THEMATIC``) or a recipe.
    limit : int, optional
        Most results; default the recipe's own limit.

    Raises
    ------
    EvidenceArgumentError
        A blank query.
    RecipeError
        An unknown recipe name or an invalid limit.
    """
    from agrag_lab import recipes

    query = check_query(query)
    chosen = recipes.get(recipe) if isinstance(recipe, str) else recipe
    if limit is not None:
        chosen = chosen.replace(limit=limit)
    started = time.perf_counter()
    filters = session.filters()
    if filters is not None and not filters.document_ids:
        return RecipeSearchResult(query, chosen.name, 0.0, (), (), warnings=nothing_read(
            chosen, found_reports=False, index_reports=0, scoped=True))
    run = session.engine().run(query, chosen, filters=filters)
    results = tuple(
        RankedResult(
            r.rank, r.id, r.kind, r.score, r.title, r.text[:TEXT_CHARS], r.document_id, tuple(r.heading_path),
            r.label, tuple(r.passages()), run.explain(i), name=r.name,
        )
        for i, r in enumerate(run.results)
    )
    methods = tuple(RecipeMethod(m.name, m.status, m.seconds, m.error) for m in run.trace.methods)
    return RecipeSearchResult(query, chosen.name, time.perf_counter() - started, results, methods, run.trace.status,
                              run.trace.warnings)
